// The names of a run directory's parts.
#include "shards/run_layout.h"

#include <cstdio>

#include "common/file_io.h"

namespace pstrain {

std::string PassName(std::uint32_t pass) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%03u", pass);
  return buffer;
}

std::optional<std::uint32_t> PassNumberOf(std::string_view name) {
  std::uint64_t pass = 0;
  if (name.empty() || name.size() > 10) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    pass = pass * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (pass == 0 || pass > 0xFFFFFFFFull || PassName(static_cast<std::uint32_t>(pass)) != name) return std::nullopt;
  return static_cast<std::uint32_t>(pass);
}

std::filesystem::path PassesDir(const std::filesystem::path& run_dir) { return run_dir / kRunPassesDir; }

std::filesystem::path PassDir(const std::filesystem::path& run_dir, std::uint32_t pass) {
  return PassesDir(run_dir) / PassName(pass);
}

std::filesystem::path StagingPassDir(const std::filesystem::path& run_dir, std::uint32_t pass) {
  std::string name = ".";  // appended, not "." + ...: GCC 12 warns falsely (-Wrestrict) on that
  name += PassName(pass);
  name += ".staging";
  return PassesDir(run_dir) / name;
}

std::filesystem::path FinalModelStagingDir(const std::filesystem::path& run_dir) {
  return HiddenSibling(run_dir / kRunModelDir, ".staging");
}

std::string ShardDirName(std::uint32_t shard) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "shard-%03u", shard);
  return buffer;
}

}  // namespace pstrain
