// Writing and reading a worker's failure.json (a bad-input failure reported to the coordinator).
#include "coordinator/worker_failure.h"

#include <boost/json.hpp>
#include <fstream>
#include <iterator>

#include "common/file_io.h"

namespace pstrain {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* kFormat = "pstrain-worker-failure-1";
constexpr const char* kInputError = "input-error";
constexpr std::uintmax_t kMaxBytes = 64 * 1024;

}  // namespace

void WriteWorkerInputError(const fs::path& shard_dir, const std::string& message) noexcept {
  try {
    json::object report;
    report["format"] = kFormat;
    report["kind"] = kInputError;
    report["message"] = message;
    std::error_code ec;
    fs::create_directories(shard_dir, ec);
    WriteFileAtomic(shard_dir / kWorkerFailureFile, json::serialize(report) + "\n");
  } catch (...) {
    // The worker still reports the error on stderr and exits 2; the coordinator then says so.
  }
}

void ClearWorkerFailure(const fs::path& shard_dir) {
  std::error_code ec;
  fs::remove(shard_dir / kWorkerFailureFile, ec);
}

std::optional<std::string> ReadWorkerInputError(const fs::path& shard_dir) {
  const fs::path path = shard_dir / kWorkerFailureFile;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec)) || fs::file_size(path, ec) > kMaxBytes || ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json::parse_options options;
  options.allow_invalid_utf8 = true;
  json::error_code parse_ec;
  const json::value report = json::parse(text, parse_ec, {}, options);
  if (parse_ec || !report.is_object()) return std::nullopt;
  const json::object& o = report.as_object();
  const json::value* format = o.if_contains("format");
  const json::value* kind = o.if_contains("kind");
  const json::value* message = o.if_contains("message");
  if (!format || !kind || !message || !format->is_string() || !kind->is_string() || !message->is_string()) return std::nullopt;
  if (format->as_string() != kFormat || kind->as_string() != kInputError || message->as_string().empty()) return std::nullopt;
  return std::string(message->as_string());
}

}  // namespace pstrain
