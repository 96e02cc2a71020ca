// The gate kit: how a determinism gate records what it exercises and checks (the ledger).
#include "gate_kit.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/file_io.h"
#include "common/sha256.h"

namespace pstrain::gates {

namespace fs = std::filesystem;
namespace json = boost::json;

void AppendLedgerLine(const std::string& json_line) {
  const char* ledger = std::getenv("PSTRAIN_GATE_LEDGER");
  if (ledger == nullptr || *ledger == '\0') return;
  // O_APPEND: lines from concurrently running gate processes never interleave within a line.
  const int fd = ::open(ledger, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    ADD_FAILURE() << "cannot open the gate ledger " << ledger;
    return;
  }
  const std::string line = json_line + "\n";
  const ssize_t written = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) ADD_FAILURE() << "cannot write the gate ledger " << ledger;
}

namespace {

std::string CurrentTestName() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : "(outside a test)";
}

std::string DigestOrMissing(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "missing";
  return Sha256OfFile(path);
}

// The value at a dotted path, or nullptr.
const json::value* At(const json::value& root, const std::string& dotted) {
  const json::value* v = &root;
  std::stringstream parts(dotted);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!v->is_object()) return nullptr;
    v = v->as_object().if_contains(key);
    if (v == nullptr) return nullptr;
  }
  return v;
}

json::value ParseFile(const fs::path& path, std::string& error) {
  try {
    return json::parse(ReadFileText(path));
  } catch (const std::exception& e) {
    error = path.string() + ": " + e.what();
    return nullptr;
  }
}

const char* RelationName(FieldRelation relation) {
  switch (relation) {
    case FieldRelation::kPresent: return "present";
    case FieldRelation::kEqual: return "equal";
    case FieldRelation::kDifferent: return "different";
  }
  return "?";
}

}  // namespace

Gate::Gate(GateDeclaration declaration) : declaration_(std::move(declaration)), name_(CurrentTestName()) {
  json::object record;
  record["ledger_format"] = kLedgerFormat;
  record["record"] = "declaration";
  record["gate"] = name_;
  record["kind"] = declaration_.kind;
  json::array counts;
  for (std::uint32_t c : declaration_.shard_counts) counts.emplace_back(c);
  record["shard_counts"] = std::move(counts);
  record["passes"] = declaration_.passes;
  record["limitation"] = declaration_.limitation;
  AppendLedgerLine(json::serialize(record));
}

void Gate::RecordRun(const GateRun& run) {
  json::object record;
  record["ledger_format"] = kLedgerFormat;
  record["record"] = "run";
  record["gate"] = name_;
  record["profile"] = run.profile;
  json::array counts;
  for (std::uint32_t c : run.shard_counts) counts.emplace_back(c);
  record["shard_counts"] = std::move(counts);
  record["passes"] = run.passes;
  json::object corpus;
  corpus["name"] = run.corpus;
  corpus["manifest"] = run.corpus_manifest;
  corpus["root"] = run.corpus_root;
  corpus["utterances"] = run.utterances;
  corpus["fingerprint"] = run.manifest_fingerprint;
  record["corpus"] = std::move(corpus);
  record["pstrain"] = run.pstrain;
  json::array applied, ignored;
  for (const std::string& s : run.overrides_applied) applied.emplace_back(s);
  for (const std::string& s : run.overrides_ignored) ignored.emplace_back(s);
  record["overrides_applied"] = std::move(applied);
  record["overrides_ignored"] = std::move(ignored);
  AppendLedgerLine(json::serialize(record));

  // The same in GoogleTest's XML report (and so in the JUnit file `audit gates run` copies).
  std::string list;
  for (std::uint32_t c : run.shard_counts) {
    if (!list.empty()) list += ',';
    list += std::to_string(c);
  }
  const auto joined = [](const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) {
      if (!out.empty()) out += "; ";
      out += s;
    }
    return out;
  };
  if (::testing::UnitTest::GetInstance()->current_test_info() != nullptr) {
    ::testing::Test::RecordProperty("run_shard_counts", list);
    ::testing::Test::RecordProperty("run_passes", std::to_string(run.passes));
    ::testing::Test::RecordProperty("run_corpus", run.corpus_manifest + " (" + std::to_string(run.utterances) + " utterances, sha256 " +
                                                      run.manifest_fingerprint.substr(0, 16) + ")");
    ::testing::Test::RecordProperty("run_pstrain", run.pstrain);
    ::testing::Test::RecordProperty("run_overrides_applied", joined(run.overrides_applied));
    ::testing::Test::RecordProperty("run_overrides_ignored", joined(run.overrides_ignored));
  }
}

bool Gate::Record(const char* helper, const std::vector<std::string>& subjects, bool passed, const std::string& detail,
                  const CallSite& site) {
  json::object record;
  record["ledger_format"] = kLedgerFormat;
  record["record"] = "check";
  record["gate"] = name_;
  record["helper"] = helper;
  json::array list;
  for (const std::string& s : subjects) list.emplace_back(s);
  record["subjects"] = std::move(list);
  record["result"] = passed ? "pass" : "fail";
  record["detail"] = detail;
  record["file"] = site.file_name();
  record["line"] = site.line();
  record["column"] = site.column();
  AppendLedgerLine(json::serialize(record));
  return passed;
}

namespace {

// Where two different files first differ: "first difference at byte N (sizes X and Y)".
std::string FirstDifference(const fs::path& a, const fs::path& b) {
  std::vector<std::uint8_t> ba, bb;
  try {
    ba = ReadFileBytes(a);
    bb = ReadFileBytes(b);
  } catch (const std::exception& e) {
    return std::string("unreadable: ") + e.what();
  }
  std::size_t offset = 0;
  while (offset < ba.size() && offset < bb.size() && ba[offset] == bb[offset]) ++offset;
  return "first difference at byte " + std::to_string(offset) + " (sizes " + std::to_string(ba.size()) + " and " +
         std::to_string(bb.size()) + ")";
}

bool CompareFiles(const fs::path& a, const fs::path& b, const std::vector<std::string>& names, std::string& detail) {
  bool all_same = true;
  for (const std::string& name : names) {
    const std::string da = DigestOrMissing(a / name), db = DigestOrMissing(b / name);
    const bool same = da == db && da != "missing";
    if (same) continue;
    all_same = false;
    std::string what;
    if (da == "missing" || db == "missing") {
      what = name + " missing in " + (da == "missing" ? (a / name).string() : (b / name).string());
      if (da == "missing" && db == "missing") what += " and in " + (b / name).string();
    } else {
      what = name + " differs: " + FirstDifference(a / name, b / name) + "; sha256 " + da.substr(0, 12) + " vs " + db.substr(0, 12) +
             "; " + (a / name).string() + " vs " + (b / name).string();
    }
    ADD_FAILURE() << what;
    detail += (detail.empty() ? "" : "; ") + what;
  }
  if (names.empty()) {
    ADD_FAILURE() << "a file comparison with no file names checks nothing";
    all_same = false;
    detail = "no names";
  }
  return all_same;
}

}  // namespace

bool Gate::ExpectProducedFilesIdentical(const fs::path& a, const fs::path& b, const std::vector<std::string>& names, CallSite site) {
  std::string detail;
  const bool ok = CompareFiles(a, b, names, detail);
  return Record("ExpectProducedFilesIdentical", names, ok, detail, site);
}

bool Gate::ExpectCopiedInputsIdentical(const fs::path& a, const fs::path& b, const std::vector<std::string>& names, CallSite site) {
  std::string detail;
  const bool ok = CompareFiles(a, b, names, detail);
  return Record("ExpectCopiedInputsIdentical", names, ok, detail, site);
}

bool Gate::ExpectJsonFieldsEqual(const fs::path& a, const fs::path& b, const std::vector<std::string>& fields, CallSite site) {
  std::string error;
  const json::value ja = ParseFile(a, error), jb = ParseFile(b, error);
  bool ok = error.empty() && !fields.empty();
  std::string detail = error;
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_FALSE(fields.empty()) << "a field comparison with no fields checks nothing";
  for (const std::string& field : fields) {
    if (!error.empty()) break;
    const json::value* va = At(ja, field);
    const json::value* vb = At(jb, field);
    const bool same = va && vb && json::serialize(*va) == json::serialize(*vb);
    EXPECT_TRUE(same) << field << " differs between " << a << " and " << b;
    if (!same) {
      ok = false;
      detail += (detail.empty() ? "" : "; ") + field + (va && vb ? " differs" : " missing");
    }
  }
  return Record("ExpectJsonFieldsEqual", fields, ok, detail, site);
}

bool Gate::ExpectProvenanceField(const fs::path& a, const fs::path& b, const std::string& field, FieldRelation relation, CallSite site) {
  std::string error;
  const json::value ja = ParseFile(a, error), jb = ParseFile(b, error);
  const json::value* va = error.empty() ? At(ja, field) : nullptr;
  const json::value* vb = error.empty() ? At(jb, field) : nullptr;
  bool ok = va && vb;
  if (ok && relation == FieldRelation::kEqual) ok = json::serialize(*va) == json::serialize(*vb);
  if (ok && relation == FieldRelation::kDifferent) ok = json::serialize(*va) != json::serialize(*vb);
  EXPECT_TRUE(ok) << "provenance field " << field << " is not " << RelationName(relation) << " (" << a << ", " << b << ") " << error;
  return Record("ExpectProvenanceField", {field, RelationName(relation)}, ok,
                ok ? "" : (va && vb ? std::string("relation does not hold") : "field missing " + error), site);
}

bool Gate::ExpectRejected(const std::string& subject, int exit_code, const std::string& output, const std::string& check, CallSite site) {
  // Exit 1 is "rejected" for `pstrain validate` and a failed pass alike; 2 means it could not even run.
  const bool ok = exit_code == 1 && output.find("check \"" + check + "\"") != std::string::npos;
  EXPECT_TRUE(ok) << subject << " was not rejected by check \"" << check << "\" (exit " << exit_code << "):\n" << output;
  return Record("ExpectRejected", {subject, check}, ok, ok ? "" : "exit " + std::to_string(exit_code), site);
}

bool Gate::ExpectWithin(const std::string& what, double actual, double expected, double rtol, double atol, CallSite site) {
  const double allowed = rtol * std::fabs(expected) + atol;
  const bool ok = std::fabs(actual - expected) <= allowed;
  EXPECT_TRUE(ok) << what << ": " << actual << " vs " << expected << " (allowed " << allowed << ")";
  std::ostringstream detail;
  detail.precision(17);
  detail << "actual " << actual << " expected " << expected << " rtol " << rtol << " atol " << atol;
  return Record("ExpectWithin", {what}, ok, detail.str(), site);
}

}  // namespace pstrain::gates
