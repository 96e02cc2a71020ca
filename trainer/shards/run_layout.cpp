// The names of a run directory's parts.
#include "shards/run_layout.h"

#include <cstdio>

namespace pstrain {

std::string PassName(std::uint32_t pass) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%03u", pass);
  return buffer;
}

std::filesystem::path PassDir(const std::filesystem::path& run_dir, std::uint32_t pass) {
  return run_dir / kRunPassesDir / PassName(pass);
}

std::filesystem::path StagingPassDir(const std::filesystem::path& run_dir, std::uint32_t pass) {
  std::string name = ".";  // appended, not "." + ...: GCC 12 warns falsely (-Wrestrict) on that
  name += PassName(pass);
  name += ".staging";
  return run_dir / kRunPassesDir / name;
}

std::string ShardDirName(std::uint32_t shard) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "shard-%03u", shard);
  return buffer;
}

}  // namespace pstrain
