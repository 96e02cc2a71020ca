// Serializing and parsing a shard artifact's artifact.json, and its payload digest.
#include "shards/artifact.h"

#include "shards/fallback_sidecar.h"

#include <boost/json.hpp>
#include <cstdio>

#include "common/error.h"
#include "common/sha256.h"

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

json::array Strings(const std::vector<std::string>& values) {
  json::array out;
  for (const std::string& v : values) out.emplace_back(v);
  return out;
}

}  // namespace

std::string SerializeArtifact(const ShardArtifact& a) {
  json::object root;  // insertion order is the file's key order
  root["format"] = kArtifactFormat;
  root["pass"] = a.pass;
  root["shard"] = a.shard;
  root["shard_count"] = a.shard_count;
  json::object fp;
  fp["pass"] = a.fingerprints.pass;
  fp["model"] = a.fingerprints.model;
  fp["config"] = a.fingerprints.config;
  fp["manifest"] = a.fingerprints.manifest;
  root["fingerprints"] = std::move(fp);
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

class StrictObject {
 public:
  StrictObject(const json::value& value, std::string context, const std::string& path) : path_(path), context_(std::move(context)) {
    if (!value.is_object()) Fail("is not a JSON object");
    object_ = &value.as_object();
  }
  const json::value& Get(const char* key) {
    ++used_;
    const json::value* v = object_->if_contains(key);
    if (v == nullptr) Fail(std::string("lacks \"") + key + "\"");
    return *v;
  }
  std::string String(const char* key) {
    const json::value& v = Get(key);
    if (!v.is_string()) Fail(std::string("\"") + key + "\" is not a string");
    return std::string(v.as_string());
  }
  std::uint64_t Unsigned(const char* key) {
    const json::value& v = Get(key);
    if (v.is_uint64()) return v.as_uint64();
    if (v.is_int64() && v.as_int64() >= 0) return static_cast<std::uint64_t>(v.as_int64());
    Fail(std::string("\"") + key + "\" is not a non-negative integer");
  }
  const json::array& Array(const char* key) {
    const json::value& v = Get(key);
    if (!v.is_array()) Fail(std::string("\"") + key + "\" is not an array");
    return v.as_array();
  }
  std::vector<std::string> Strings(const char* key) {
    std::vector<std::string> out;
    for (const json::value& v : Array(key)) {
      if (!v.is_string()) Fail(std::string("\"") + key + "\" holds a non-string");
      out.emplace_back(v.as_string());
    }
    return out;
  }
  void ExpectNoOtherKeys() {
    if (object_->size() != used_) Fail("has unexpected keys");
  }
  [[noreturn]] void Fail(const std::string& what) const { throw FileError(path_, context_ + " " + what); }

 private:
  const json::object* object_ = nullptr;
  std::string path_;
  std::string context_;
  std::size_t used_ = 0;
};

std::uint32_t ToU32(std::uint64_t v, StrictObject& o, const char* key) {
  if (v > 0xFFFFFFFFull) o.Fail(std::string("\"") + key + "\" is too large");
  return static_cast<std::uint32_t>(v);
}

}  // namespace

ShardArtifact ParseArtifact(const std::string& text, const std::string& path) {
  if (text.size() > kMaxArtifactJsonBytes) throw FileError(path, "artifact.json is larger than " + std::to_string(kMaxArtifactJsonBytes) + " bytes");
  json::value root;
  try {
    root = json::parse(text);
  } catch (const std::exception& error) {
    throw FileError(path, std::string("malformed JSON: ") + error.what());
  }
  StrictObject o(root, "artifact", path);
  ShardArtifact a;
  if (o.String("format") != kArtifactFormat) o.Fail("has an unknown format (expected " + std::string(kArtifactFormat) + ")");
  a.pass = ToU32(o.Unsigned("pass"), o, "pass");
  a.shard = ToU32(o.Unsigned("shard"), o, "shard");
  a.shard_count = ToU32(o.Unsigned("shard_count"), o, "shard_count");
  StrictObject fp(o.Get("fingerprints"), "fingerprints", path);
  a.fingerprints.pass = fp.String("pass");
  a.fingerprints.model = fp.String("model");
  a.fingerprints.config = fp.String("config");
  a.fingerprints.manifest = fp.String("manifest");
  fp.ExpectNoOtherKeys();
  a.code_identity = o.String("code_identity");
  a.assigned_ids = o.Strings("assigned_ids");
  a.processed_ids = o.Strings("processed_ids");
  for (const json::value& v : o.Array("processed_frames")) {
    if (!v.is_uint64() && !(v.is_int64() && v.as_int64() >= 0)) o.Fail("\"processed_frames\" holds a non-integer");
    const std::uint64_t frames = v.to_number<std::uint64_t>();
    if (frames > 0xFFFFFFFFull) o.Fail("\"processed_frames\" holds a value out of range");
    a.processed_frames.push_back(static_cast<std::uint32_t>(frames));
  }
  a.retried_ids = o.Strings("retried_ids");
  for (const json::value& v : o.Array("skipped")) {
    StrictObject item(v, "skipped entry", path);
    a.skipped.push_back({item.String("id"), item.String("reason")});
    item.ExpectNoOtherKeys();
  }
  a.total_frames = o.Unsigned("total_frames");
  a.log_likelihood = o.String("log_likelihood");
  a.log_likelihood_exact = o.String("log_likelihood_exact");
  for (const json::value& v : o.Array("payload")) {
    StrictObject item(v, "payload entry", path);
    a.payload.push_back({item.String("file"), item.Unsigned("size"), item.String("sha256")});
    item.ExpectNoOtherKeys();
  }
  a.payload_sha256 = o.String("payload_sha256");
  o.ExpectNoOtherKeys();
  // Boost.JSON keeps the last of duplicate keys; only the canonical text has none.
  if (SerializeArtifact(a) != text) {
    throw FileError(path, "artifact is not in canonical form (duplicate, reordered or reformatted keys or values)");
  }
  return a;
}

}  // namespace pstrain
