// The auditor's JUnit XML writer (audit gates run --junit): test suites, test cases with
// properties, and a failure or error element, escaped so that the file is well-formed for any text.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pstrain::audit {

struct JunitCase {
  enum class Outcome { kPass, kFailure, kError };
  std::string name;
  std::string classname;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // written in this order
  Outcome outcome = Outcome::kPass;
  std::string message;  // the failure's or error's message attribute
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

// The whole document: <testsuites name tests failures errors>, a <testsuite> per suite in the
// given order, and per case its <properties> (when any) and a <failure> or <error> element.
std::string RenderJunit(const std::string& name, const std::vector<JunitSuite>& suites);

}  // namespace pstrain::audit
