// Fingerprints (SHA-256, lower-case hex) that bind a shard artifact to the exact inputs of its pass:
// the input model's files, the configuration that affects the numbers, the manifest, and the pass.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "estep/corpus_pass.h"
#include "model/acoustic_model.h"

namespace pstrain {

enum class ReductionMode { kExact, kFloat32 };
const char* ReductionModeName(ReductionMode mode);
// "exact" or "float32"; anything else is an InputError.
ReductionMode ParseReductionMode(const std::string& text);

// SHA-256 over the dictionary's and the filler dictionary's SHA-256 (pronunciations change the
// sentence HMMs, hence the statistics).
std::string DictionaryFingerprint(const std::string& dict_path, const std::string& filler_path);

// The canonical text of every input that affects the statistics besides the model and the
// manifest: the options (one `name=value` line each, numbers with 17 significant digits) and the
// dictionary fingerprint; and its SHA-256.
std::string CanonicalConfig(const AccumulateOptions& options, ReductionMode reduction, const std::string& dictionary_fingerprint);
std::string ConfigFingerprint(const AccumulateOptions& options, ReductionMode reduction, const std::string& dictionary_fingerprint);

// SHA-256 over `name sha256\n` lines of the model directory's files (mdef, means, variances,
// mixture_weights, transition_matrices, and feat.params/noisedict when they are regular files: the
// files ModelFiles::Load reads), in that order, as they are now.
std::string ModelFingerprint(const std::string& model_dir);
// The digests that fingerprint is made of: each of those files and the SHA-256 of its bytes now.
ModelFileDigests ModelDirDigests(const std::string& model_dir);
// The same fingerprint from the digests of the files as a load read them (ModelFiles::Load(dir,
// digests)): the model that was loaded, whatever the directory holds by the time it is asked for.
std::string ModelFingerprint(const ModelFileDigests& digests);

// SHA-256 of the pass number, shard count and the three input fingerprints.
std::string PassFingerprint(std::uint32_t pass, std::uint32_t shard_count, const std::string& model_fingerprint,
                            const std::string& config_fingerprint, const std::string& manifest_fingerprint);

struct PassFingerprints {
  std::string pass, model, config, manifest;
  bool operator==(const PassFingerprints&) const = default;
};

// The "fingerprints" member of pass.json and artifact.json: {"pass","model","config","manifest"}
// in that order (one writer for both files).
boost::json::object PassFingerprintsJson(const PassFingerprints& fingerprints);
// Its strict reader (common/strict_json.h): an object of exactly those four strings; errors name
// `field` ("fingerprints") or `field`.KEY.
PassFingerprints ParsePassFingerprints(const boost::json::value& value, std::string_view field);

}  // namespace pstrain
