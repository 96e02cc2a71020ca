// provenance.json: its field list and its writer.
#include "provenance/provenance_file.h"

namespace pstrain {

namespace json = boost::json;

namespace {

constexpr ProvenanceField kFields[] = {
    {"effective_shard_count", true, false},
    {"requested_jobs", true, false},
    {"reduction", true, false},
    {"pstrain_version", true, false},
    {"architecture", true, false},
    {"compiler", true, false},
    {"binary_sha256", true, false},
    {"libraries", true, false},
    {"training_fingerprint", false, false},
    {"inputs.config_fingerprint", true, false},
    {"inputs.manifest_fingerprint", true, false},
    {"inputs.input_model_fingerprint", true, false},
    {"inputs.config", true, false},
    {"stop_rule", true, false},
    {"passes", false, false},
    {"stop_decision", false, false},
    {"model_files", false, false},
    {"launcher", false, false},
    {"host", false, false},
    {"shard_nodes", false, true},
    {"format", false, false},
};

}  // namespace

std::span<const ProvenanceField> ProvenanceFields() { return kFields; }

std::string ProvenanceJson(const ProvenanceRecord& record) {
  const TrainingIdentity& identity = record.identity;
  json::object root;
  root["format"] = kProvenanceFormat;
  root["pstrain_version"] = identity.build.version;
  root["training_fingerprint"] = record.training_fingerprint;
  root["requested_jobs"] = identity.requested_jobs;
  root["effective_shard_count"] = identity.shard_count;
  root["reduction"] = identity.reduction;
  root["launcher"] = record.launcher;
  root["architecture"] = identity.build.architecture;
  root["compiler"] = identity.build.compiler;
  root["binary_sha256"] = identity.build.binary_sha256;
  json::array libraries;
  for (const auto& [name, digest] : identity.build.libraries) {
    json::object lib;
    lib["file"] = name;
    lib["sha256"] = digest;
    libraries.push_back(std::move(lib));
  }
  root["libraries"] = std::move(libraries);
  root["host"] = record.host;
  if (!record.shard_nodes.empty()) root["shard_nodes"] = record.shard_nodes;
  json::object inputs;
  inputs["manifest_fingerprint"] = identity.manifest_fingerprint;
  inputs["input_model_fingerprint"] = identity.input_model_fingerprint;
  inputs["config_fingerprint"] = identity.config_fingerprint;
  inputs["config"] = identity.canonical_config;
  root["inputs"] = std::move(inputs);
  json::object stop;
  stop["min_passes"] = identity.min_passes;
  stop["max_passes"] = identity.max_passes;
  stop["convergence"] = identity.convergence;
  root["stop_rule"] = std::move(stop);
  root["stop_decision"] = record.stop_decision;
  root["model_files"] = record.model_files;
  root["passes"] = record.passes;
  return json::serialize(root) + "\n";
}

}  // namespace pstrain
