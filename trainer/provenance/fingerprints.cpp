// Computing the fingerprints that bind a shard artifact to its pass's inputs.
#include "provenance/fingerprints.h"

#include <cstdio>
#include <filesystem>

#include "common/error.h"
#include "common/sha256.h"
#include "common/strict_json.h"
#include "model/acoustic_model.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

std::string Num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

}  // namespace

const char* ReductionModeName(ReductionMode mode) { return mode == ReductionMode::kExact ? "exact" : "float32"; }

ReductionMode ParseReductionMode(const std::string& text) {
  if (text == "exact") return ReductionMode::kExact;
  if (text == "float32") return ReductionMode::kFloat32;
  throw InputError("--reduction: unknown mode " + Quoted(text) + " (expected exact or float32)");
}

std::string DictionaryFingerprint(const std::string& dict_path, const std::string& filler_path) {
  return Sha256Hex("dict " + Sha256OfFile(dict_path) + "\nfiller " + Sha256OfFile(filler_path) + "\n");
}

std::string CanonicalConfig(const AccumulateOptions& o, ReductionMode reduction, const std::string& dictionary_fingerprint) {
  std::string text;
  text += "cmn=" + std::string(o.features.cmn == CmnMode::kBatch ? "batch" : "none") + "\n";
  text += "varnorm=" + std::string(o.features.varnorm ? "yes" : "no") + "\n";
  text += "ceplen=" + std::to_string(o.features.ceplen) + "\n";
  text += "feat=1s_c_d_dd\n";
  text += "topn=" + std::to_string(o.model.topn) + "\n";
  text += "varfloor=" + Num(o.model.varfloor) + "\n";
  text += "mwfloor=" + Num(o.model.mwfloor) + "\n";
  text += "tpfloor=" + Num(o.model.tpfloor) + "\n";
  text += "abeam=" + Num(o.fb.beams.abeam) + "\n";
  text += "bbeam=" + Num(o.fb.beams.bbeam) + "\n";
  text += "spthresh=" + Num(o.fb.spthresh) + "\n";
  text += "2passvar=" + std::string(o.fb.pass2var ? "yes" : "no") + "\n";
  text += "retry_beams=" + FormatRetryBeams(o.retry_beams) + "\n";
  // Only when on, so that the linear path's fingerprints (and artifacts) are unchanged.
  if (o.multipron) text += "multipron=yes\n";
  text += "reduction=" + std::string(ReductionModeName(reduction)) + "\n";
  text += "dictionaries=" + dictionary_fingerprint + "\n";
  return text;
}

std::string ConfigFingerprint(const AccumulateOptions& options, ReductionMode reduction, const std::string& dictionary_fingerprint) {
  return Sha256Hex(CanonicalConfig(options, reduction, dictionary_fingerprint));
}

ModelFileDigests ModelDirDigests(const std::string& model_dir) {
  ModelFileDigests digests;
  for (const char* name : kModelFiles) {
    const fs::path path = fs::path(model_dir) / name;
    if (!fs::is_regular_file(path)) continue;
    digests.emplace_back(name, Sha256OfFile(path));
  }
  return digests;
}

std::string ModelFingerprint(const std::string& model_dir) { return ModelFingerprint(ModelDirDigests(model_dir)); }

std::string ModelFingerprint(const ModelFileDigests& digests) {
  std::string lines;
  for (const auto& [name, sha256] : digests) lines += name + " " + sha256 + "\n";
  return Sha256Hex(lines);
}

std::string PassFingerprint(std::uint32_t pass, std::uint32_t shard_count, const std::string& model_fingerprint,
                            const std::string& config_fingerprint, const std::string& manifest_fingerprint) {
  return Sha256Hex("pass=" + std::to_string(pass) + "\nshards=" + std::to_string(shard_count) + "\nmodel=" + model_fingerprint +
                   "\nconfig=" + config_fingerprint + "\nmanifest=" + manifest_fingerprint + "\n");
}

boost::json::object PassFingerprintsJson(const PassFingerprints& f) {
  boost::json::object fp;  // insertion order is the key order
  fp["pass"] = f.pass;
  fp["model"] = f.model;
  fp["config"] = f.config;
  fp["manifest"] = f.manifest;
  return fp;
}

PassFingerprints ParsePassFingerprints(const boost::json::value& value, std::string_view field) {
  static constexpr std::string_view kKeys[] = {"pass", "model", "config", "manifest"};
  const boost::json::object& fp = strict_json::ObjectOf(value, field);
  strict_json::ExpectKeys(fp, kKeys, field);
  const std::string prefix = std::string(field) + ".";
  PassFingerprints f;
  f.pass = strict_json::StringAt(fp, "pass", prefix + "pass");
  f.model = strict_json::StringAt(fp, "model", prefix + "model");
  f.config = strict_json::StringAt(fp, "config", prefix + "config");
  f.manifest = strict_json::StringAt(fp, "manifest", prefix + "manifest");
  return f;
}

}  // namespace pstrain
