// The auditor's JUnit XML writer.
#include "report/junit_writer.h"

#include "report/xml_text.h"

#include <sstream>

namespace pstrain::audit {

std::string RenderJunit(const std::string& name, const std::vector<JunitSuite>& suites) {
  std::size_t tests = 0, failures = 0, errors = 0;
  for (const JunitSuite& s : suites) {
    for (const JunitCase& c : s.cases) {
      ++tests;
      failures += c.outcome == JunitCase::Outcome::kFailure;
      errors += c.outcome == JunitCase::Outcome::kError;
    }
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"" << XmlAttributeEscape(name) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\">\n";
  for (const JunitSuite& s : suites) {
    out << "  <testsuite name=\"" << XmlAttributeEscape(s.name) << "\" tests=\"" << s.cases.size() << "\">\n";
    for (const JunitCase& c : s.cases) {
      out << "    <testcase name=\"" << XmlAttributeEscape(c.name) << "\" classname=\"" << XmlAttributeEscape(c.classname)
          << "\" time=\"" << c.seconds << "\"";
      if (c.outcome == JunitCase::Outcome::kPass && c.properties.empty()) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      if (!c.properties.empty()) {
        out << "      <properties>\n";
        for (const auto& [key, value] : c.properties) {
          out << "        <property name=\"" << XmlAttributeEscape(key) << "\" value=\"" << XmlAttributeEscape(value) << "\"/>\n";
        }
        out << "      </properties>\n";
      }
      if (c.outcome != JunitCase::Outcome::kPass) {
        out << "      <" << (c.outcome == JunitCase::Outcome::kFailure ? "failure" : "error") << " message=\""
            << XmlAttributeEscape(c.message) << "\"/>\n";
      }
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace pstrain::audit
