// `audit compare`: the field-by-field comparison of two provenance.json files.
#include "compare/provenance_diff.h"

#include <algorithm>
#include <set>

#include <boost/json.hpp>

#include "common/file_io.h"
#include "provenance/provenance_file.h"
#include "report/audit_error.h"
#include "report/line_diff.h"

namespace pstrain::audit {

namespace json = boost::json;

namespace {

const json::value* Lookup(const json::object& root, const std::string& path) {
  const std::size_t dot = path.find('.');
  const json::value* v = root.if_contains(dot == std::string::npos ? path : path.substr(0, dot));
  if (v == nullptr || dot == std::string::npos) return v;
  if (!v->is_object()) return nullptr;
  return v->as_object().if_contains(path.substr(dot + 1));
}

std::optional<std::string> Text(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_array() && v->as_array().size() > 0 && v->as_array()[0].is_object()) {
    return std::to_string(v->as_array().size()) + " entries";
  }
  return json::serialize(*v);
}

// `[{"file": NAME, "sha256": DIGEST}, ...]` as a map (libraries, model_files).
std::map<std::string, std::string> FileDigests(const json::value* v, const std::string& name, const char* field) {
  std::map<std::string, std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) throw AuditErrorIn(name, std::string(field) + ": expected an array");
  for (const json::value& entry : v->as_array()) {
    const json::object* o = entry.if_object();
    const json::value* file = o ? o->if_contains("file") : nullptr;
    const json::value* sha = o ? o->if_contains("sha256") : nullptr;
    if (file == nullptr || sha == nullptr || !file->is_string() || !sha->is_string()) {
      throw AuditErrorIn(name, std::string(field) + ": expected entries {\"file\": ..., \"sha256\": ...}");
    }
    out[std::string(file->as_string())] = std::string(sha->as_string());
  }
  return out;
}

std::vector<std::string> DigestDetails(const std::map<std::string, std::string>& a,
                                       const std::map<std::string, std::string>& b) {
  std::vector<std::string> details;
  std::set<std::string> names;
  for (const auto& [k, v] : a) names.insert(k);
  for (const auto& [k, v] : b) names.insert(k);
  for (const std::string& n : names) {
    const auto ia = a.find(n), ib = b.find(n);
    if (ib == b.end()) {
      details.push_back("only in A: " + n + " " + ia->second);
    } else if (ia == a.end()) {
      details.push_back("only in B: " + n + " " + ib->second);
    } else if (ia->second != ib->second) {
      details.push_back("differs: " + n + " A " + ia->second + " B " + ib->second);
    }
  }
  return details;
}

const json::array* Passes(const json::object& root, const std::string& name) {
  const json::value* v = root.if_contains("passes");
  if (v == nullptr) return nullptr;
  if (!v->is_array()) throw AuditErrorIn(name, "passes: expected an array");
  return &v->as_array();
}

std::optional<double> PassLikelihoodOf(const json::array& passes, std::size_t i) {
  if (i >= passes.size() || !passes[i].is_object()) return std::nullopt;
  const json::value* totals = passes[i].as_object().if_contains("totals");
  if (totals == nullptr || !totals->is_object()) return std::nullopt;
  const json::value* l = totals->as_object().if_contains("log_likelihood_per_frame");
  if (l == nullptr || !l->is_number()) return std::nullopt;
  return l->to_number<double>();
}

const json::object& Root(const json::value& v, const std::string& name) {
  if (!v.is_object()) throw AuditErrorIn(name, "not a JSON object");
  return v.as_object();
}

}  // namespace

bool ProvenanceDiff::Identical() const {
  return std::all_of(fields.begin(), fields.end(), [](const FieldDiff& f) { return f.equal; });
}

const FieldDiff* ProvenanceDiff::Find(const std::string& field) const {
  for (const FieldDiff& f : fields) {
    if (f.field == field) return &f;
  }
  return nullptr;
}

std::vector<std::string> ProvenanceDiff::OtherNumericDifferences() const {
  std::vector<std::string> out;
  for (const FieldDiff& f : fields) {
    if (!f.equal && f.affects_numbers && f.field != "effective_shard_count" && f.field != "requested_jobs") {
      out.push_back(f.field);
    }
  }
  return out;
}

json::value ReadProvenance(const std::string& path) {
  const std::string text = AsAuditError([&] { return ReadFileText(path); });
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) throw AuditErrorIn(path, "not valid JSON (" + ec.message() + ")");
  Root(v, path);
  return v;
}

ProvenanceFacts ProvenanceFactsOf(const json::value& provenance, const std::string& name) {
  const json::object& root = Root(provenance, name);
  ProvenanceFacts facts;
  auto count = [&](const char* field) -> std::optional<std::uint64_t> {
    const json::value* v = root.if_contains(field);
    if (v == nullptr) return std::nullopt;
    if (!v->is_uint64() && !(v->is_int64() && v->as_int64() >= 0)) {
      throw AuditErrorIn(name, std::string(field) + ": expected a non-negative integer");
    }
    return v->to_number<std::uint64_t>();
  };
  auto text = [&](const char* field) -> std::optional<std::string> {
    const json::value* v = root.if_contains(field);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) throw AuditErrorIn(name, std::string(field) + ": expected a string");
    return std::string(v->as_string());
  };
  facts.effective_shard_count = count("effective_shard_count");
  facts.requested_jobs = count("requested_jobs");
  facts.reduction = text("reduction");
  facts.training_fingerprint = text("training_fingerprint");
  facts.model_files = FileDigests(root.if_contains("model_files"), name, "model_files");
  return facts;
}

ProvenanceDiff DiffProvenance(const json::value& va, const std::string& name_a, const json::value& vb,
                              const std::string& name_b) {
  const json::object& a = Root(va, name_a);
  const json::object& b = Root(vb, name_b);
  ProvenanceDiff diff;
  diff.a = ProvenanceFactsOf(va, name_a);
  diff.b = ProvenanceFactsOf(vb, name_b);
  const json::array* passes_a = Passes(a, name_a);
  const json::array* passes_b = Passes(b, name_b);

  std::set<std::string> known;
  for (const ProvenanceField& k : ProvenanceFields()) {
    known.insert(k.path);
    const json::value* x = Lookup(a, k.path);
    const json::value* y = Lookup(b, k.path);
    FieldDiff f;
    f.field = k.path;
    f.affects_numbers = k.fingerprinted;
    f.a = Text(x);
    f.b = Text(y);
    f.equal = (x == nullptr && y == nullptr) || (x != nullptr && y != nullptr && *x == *y);
    const std::string field = k.path;
    if (field == "libraries" || field == "model_files") {
      f.details = DigestDetails(FileDigests(x, name_a, k.path), FileDigests(y, name_b, k.path));
    } else if (field == "inputs.config" && !f.equal && f.a && f.b) {
      for (const DiffHunk& h : DiffLines(*f.a, *f.b, 0).hunks) {
        for (const DiffLine& l : h.lines) f.details.push_back(std::string(1, l.op) + " " + l.text);
      }
      f.a = std::to_string(SplitLines(*f.a).size()) + " lines";
      f.b = std::to_string(SplitLines(*f.b).size()) + " lines";
    } else if (field == "inputs.config") {
      if (f.a) f.a = std::to_string(SplitLines(*f.a).size()) + " lines";
      if (f.b) f.b = std::to_string(SplitLines(*f.b).size()) + " lines";
    } else if (field == "passes") {
      f.a = passes_a ? std::optional<std::string>(std::to_string(passes_a->size()) + " passes") : std::nullopt;
      f.b = passes_b ? std::optional<std::string>(std::to_string(passes_b->size()) + " passes") : std::nullopt;
      if (!f.equal && passes_a && passes_b) {
        for (std::size_t i = 0; i < std::max(passes_a->size(), passes_b->size()); ++i) {
          if (i >= passes_a->size()) {
            f.details.push_back("pass " + std::to_string(i + 1) + ": only in B");
          } else if (i >= passes_b->size()) {
            f.details.push_back("pass " + std::to_string(i + 1) + ": only in A");
          } else if ((*passes_a)[i] != (*passes_b)[i]) {
            std::vector<std::string> keys;
            const json::object* pa = (*passes_a)[i].if_object();
            const json::object* pb = (*passes_b)[i].if_object();
            if (pa && pb) {
              std::set<std::string> names;
              for (const auto& kv : *pa) names.insert(std::string(kv.key()));
              for (const auto& kv : *pb) names.insert(std::string(kv.key()));
              for (const std::string& n : names) {
                const json::value* u = pa->if_contains(n);
                const json::value* w = pb->if_contains(n);
                if (u == nullptr || w == nullptr || *u != *w) keys.push_back(n);
              }
            }
            std::string line = "pass " + std::to_string(i + 1) + ": differs";
            if (!keys.empty()) {
              line += " in";
              for (const std::string& key : keys) line += " " + key;
            }
            f.details.push_back(line);
          }
        }
      }
    }
    diff.fields.push_back(std::move(f));
  }
  // Fields this version does not know (at the top level and inside "inputs"), by name.
  std::set<std::string> unknown;
  for (const json::object* root : {&a, &b}) {
    for (const auto& kv : *root) {
      const std::string key(kv.key());
      if (key == "inputs" && kv.value().is_object()) {
        for (const auto& inner : kv.value().as_object()) {
          const std::string path = "inputs." + std::string(inner.key());
          if (!known.count(path)) unknown.insert(path);
        }
      } else if (!known.count(key)) {
        unknown.insert(key);
      }
    }
  }
  for (const std::string& path : unknown) {
    const json::value* x = Lookup(a, path);
    const json::value* y = Lookup(b, path);
    FieldDiff f;
    f.field = path;
    f.a = Text(x);
    f.b = Text(y);
    f.equal = x != nullptr && y != nullptr && *x == *y;
    diff.fields.push_back(std::move(f));
  }
  const std::size_t n_passes = std::max(passes_a ? passes_a->size() : 0, passes_b ? passes_b->size() : 0);
  for (std::size_t i = 0; i < n_passes; ++i) {
    PassLikelihood p;
    p.pass = static_cast<std::uint32_t>(i + 1);
    if (passes_a) p.a = PassLikelihoodOf(*passes_a, i);
    if (passes_b) p.b = PassLikelihoodOf(*passes_b, i);
    diff.likelihoods.push_back(p);
  }
  return diff;
}

ProvenanceDiff DiffProvenanceFiles(const std::string& path_a, const std::string& path_b) {
  return DiffProvenance(ReadProvenance(path_a), path_a, ReadProvenance(path_b), path_b);
}

}  // namespace pstrain::audit
