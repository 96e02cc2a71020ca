// Serializing and parsing a shard artifact's artifact.json, and its payload digest.
#include "shards/artifact.h"

#include "shards/fallback_sidecar.h"

#include <boost/json.hpp>
#include <cstdio>

#include "common/error.h"
#include "common/sha256.h"
#include "common/strict_json.h"

namespace pstrain {

namespace json = boost::json;

std::vector<std::string> PayloadFileNames(bool multipron) {
  std::vector<std::string> names(std::begin(kPayloadFiles), std::end(kPayloadFiles));
  if (multipron) names.emplace_back(kFallbackSidecarFile);
  return names;
}

std::string PayloadDigest(const std::vector<PayloadFile>& payload) {
  std::string lines;
  for (const PayloadFile& file : payload) lines += file.name + " " + std::to_string(file.size) + " " + file.sha256 + "\n";
  return Sha256Hex(lines);
}

namespace {

constexpr std::string_view kArtifactKeys[] = {"format",        "pass",          "shard",          "shard_count",  "fingerprints",
                                              "code_identity", "assigned_ids",  "processed_ids",  "processed_frames",
                                              "retried_ids",   "skipped",       "total_frames",   "log_likelihood",
                                              "log_likelihood_exact", "payload", "payload_sha256"};

json::array Strings(const std::vector<std::string>& values) {
  json::array out;
  for (const std::string& v : values) out.emplace_back(v);
  return out;
}

}  // namespace

std::span<const std::string_view> ShardArtifactFields() { return kArtifactKeys; }

std::string SerializeArtifact(const ShardArtifact& a) {
  json::object root;  // insertion order is the file's key order
  root["format"] = kArtifactFormat;
  root["pass"] = a.pass;
  root["shard"] = a.shard;
  root["shard_count"] = a.shard_count;
  root["fingerprints"] = PassFingerprintsJson(a.fingerprints);
  root["code_identity"] = a.code_identity;
  root["assigned_ids"] = Strings(a.assigned_ids);
  root["processed_ids"] = Strings(a.processed_ids);
  json::array frames;
  for (std::uint32_t f : a.processed_frames) frames.emplace_back(f);
  root["processed_frames"] = std::move(frames);
  root["retried_ids"] = Strings(a.retried_ids);
  json::array skipped;
  for (const SkippedUtterance& s : a.skipped) {
    json::object item;
    item["id"] = s.id;
    item["reason"] = s.reason;
    skipped.push_back(std::move(item));
  }
  root["skipped"] = std::move(skipped);
  root["total_frames"] = a.total_frames;
  root["log_likelihood"] = a.log_likelihood;
  root["log_likelihood_exact"] = a.log_likelihood_exact;
  json::array payload;
  for (const PayloadFile& file : a.payload) {
    json::object item;
    item["file"] = file.name;
    item["size"] = file.size;
    item["sha256"] = file.sha256;
    payload.push_back(std::move(item));
  }
  root["payload"] = std::move(payload);
  root["payload_sha256"] = a.payload_sha256;
  return json::serialize(root) + "\n";
}

namespace {

constexpr std::string_view kSkippedKeys[] = {"id", "reason"};
constexpr std::string_view kPayloadKeys[] = {"file", "size", "sha256"};

// The fields of the artifact object; StrictJsonError names the one that fails.
ShardArtifact ArtifactFrom(const json::object& o) {
  using strict_json::ArrayAt, strict_json::At, strict_json::ExpectKeys, strict_json::Fail, strict_json::ObjectOf,
      strict_json::StringAt, strict_json::StringsAt, strict_json::Uint32At, strict_json::Uint32Of, strict_json::UnsignedAt;
  ExpectKeys(o, kArtifactKeys, "artifact");
  const std::string format = StringAt(o, "format", "format");
  if (format != kArtifactFormat) Fail("format", "is \"" + format + "\", expected \"" + kArtifactFormat + "\"");
  ShardArtifact a;
  a.pass = Uint32At(o, "pass", "pass");
  a.shard = Uint32At(o, "shard", "shard");
  a.shard_count = Uint32At(o, "shard_count", "shard_count");
  a.fingerprints = ParsePassFingerprints(At(o, "fingerprints", "fingerprints"), "fingerprints");
  a.code_identity = StringAt(o, "code_identity", "code_identity");
  a.assigned_ids = StringsAt(o, "assigned_ids", "assigned_ids");
  a.processed_ids = StringsAt(o, "processed_ids", "processed_ids");
  for (const json::value& v : ArrayAt(o, "processed_frames", "processed_frames")) a.processed_frames.push_back(Uint32Of(v, "processed_frames"));
  a.retried_ids = StringsAt(o, "retried_ids", "retried_ids");
  for (const json::value& v : ArrayAt(o, "skipped", "skipped")) {
    const json::object& item = ObjectOf(v, "skipped");
    ExpectKeys(item, kSkippedKeys, "skipped");
    a.skipped.push_back({StringAt(item, "id", "skipped.id"), StringAt(item, "reason", "skipped.reason")});
  }
  a.total_frames = UnsignedAt(o, "total_frames", "total_frames");
  a.log_likelihood = StringAt(o, "log_likelihood", "log_likelihood");
  a.log_likelihood_exact = StringAt(o, "log_likelihood_exact", "log_likelihood_exact");
  for (const json::value& v : ArrayAt(o, "payload", "payload")) {
    const json::object& item = ObjectOf(v, "payload");
    ExpectKeys(item, kPayloadKeys, "payload");
    a.payload.push_back({StringAt(item, "file", "payload.file"), UnsignedAt(item, "size", "payload.size"), StringAt(item, "sha256", "payload.sha256")});
  }
  a.payload_sha256 = StringAt(o, "payload_sha256", "payload_sha256");
  return a;
}

}  // namespace

ShardArtifact ParseArtifact(const std::string& text, const std::string& path) {
  if (text.size() > kMaxArtifactJsonBytes) throw FileError(path, "artifact.json is larger than " + std::to_string(kMaxArtifactJsonBytes) + " bytes");
  ShardArtifact a;
  try {
    a = ArtifactFrom(strict_json::ParseObject(text).get_object());
  } catch (const StrictJsonError& error) {
    throw FileError(path, std::string("artifact: ") + error.what());
  }
  // Boost.JSON keeps the last of duplicate keys; only the canonical text has none.
  if (SerializeArtifact(a) != text) {
    throw FileError(path, "artifact is not in canonical form (duplicate, reordered or reformatted keys or values)");
  }
  return a;
}

}  // namespace pstrain
