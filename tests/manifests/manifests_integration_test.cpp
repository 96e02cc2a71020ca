// The committed manifests (manifests/) describe exactly the corpus the scripts build on this machine:
// a fresh import is byte-identical and every feature digest matches.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_io.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

TEST(Manifests, CommittedMatchFreshImport) {
  const fs::path committed_dir = fs::path(PSTRAIN_SOURCE_DIR) / "manifests";
  for (const auto& [set, fresh] : {std::pair{"train", TrainManifest()}, std::pair{"heldout", HeldoutManifest()}}) {
    SCOPED_TRACE(set);
    const fs::path committed = committed_dir / (std::string("default-") + set + ".manifest");
    EXPECT_EQ(ReadFileText(committed), ReadFileText(fresh))
        << committed << " differs from a fresh import of the corpus built by scripts/prepare-corpus.sh";
    CommandResult r = RunCommand(Pstrain("manifest check " + ShellQuote(committed.string()) + " --corpus-root " +
                                         ShellQuote(CorpusDir().string())));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(": OK,"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace pstrain::testing
