// Building the context-dependent model that the peer-agreement and multipron tests and gates train.
#include "support/cd_model_util.h"

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace pstrain::testing {

namespace fs = std::filesystem;

fs::path UntiedCdModel(const fs::path& dir) {
  const fs::path corpus = CorpusDir();
  const fs::path model = dir / "cd-untied";
  fs::create_directories(model);
  const fs::path an4 = An4Model();
  CommandResult phones = RunCommand("grep -v '^#' " + ShellQuote((an4 / "mdef").string()) + " | awk 'NR>7{print $1}' > " +
                                    ShellQuote((dir / "phones.txt").string()));
  EXPECT_EQ(phones.exit_code, 0) << phones.output;
  CommandResult mk = RunCommand("timeout 120 /usr/lib/sphinxtrain/mk_mdef_gen -phnlstfn " + ShellQuote((dir / "phones.txt").string()) +
                                " -dictfn " + ShellQuote((corpus / "corpus.dic").string()) + " -fdictfn " +
                                ShellQuote((corpus / "corpus.filler").string()) + " -lsnfn " +
                                ShellQuote((corpus / "train.transcription").string()) + " -ountiedmdef " +
                                ShellQuote((model / "mdef").string()) + " -n_state_pm 3");
  EXPECT_EQ(mk.exit_code, 0) << mk.output;
  const auto m = [&](const char* file) { return ShellQuote((an4 / file).string()); };
  const auto d = [&](const char* file) { return ShellQuote((model / file).string()); };
  CommandResult init = RunCommand("timeout 120 /usr/lib/sphinxtrain/init_mixw -src_moddeffn " + m("mdef") + " -src_ts2cbfn .cont." +
                                  " -src_mixwfn " + m("mixture_weights") + " -src_meanfn " + m("means") + " -src_varfn " + m("variances") +
                                  " -src_tmatfn " + m("transition_matrices") + " -dest_moddeffn " + d("mdef") + " -dest_ts2cbfn .cont." +
                                  " -dest_mixwfn " + d("mixture_weights") + " -dest_meanfn " + d("means") + " -dest_varfn " +
                                  d("variances") + " -dest_tmatfn " + d("transition_matrices"));
  EXPECT_EQ(init.exit_code, 0) << init.output;
  fs::copy_file(an4 / "noisedict", model / "noisedict");
  return model;
}

}  // namespace pstrain::testing
