// `audit`: the model auditor. Its commands (scope, gates, compare, bytes, mutate, characterize)
// arrive with the sharded trainer; until then it only explains itself and refuses honestly.
#include <cstring>
#include <iostream>
#include <string>

namespace {

constexpr const char* kUsage =
    "usage: audit COMMAND [ARGS]\n"
    "\n"
    "The pstrain model auditor.\n"
    "\n"
    "Planned commands (not implemented in this version; each exits 2 with a message):\n"
    "  scope        write the gate-scope report (what each determinism gate checks vs describes)\n"
    "  gates        rerun the fixed-count and cross-count determinism gates\n"
    "  compare      diff two model directories, provenance.json included\n"
    "  bytes        byte-compare two artifact or model trees\n"
    "  mutate       mutation-test the rejection of stale or swapped shard payloads\n"
    "  characterize measure cross-shard-count parameter differences\n"
    "\n"
    "Options:\n"
    "  -h, --help   show this help\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::cerr << "audit: command '" << argv[1] << "' is not implemented in this version\n";
  return 2;
}
