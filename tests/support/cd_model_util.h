// A context-dependent model for the integration tests and gates (peer agreement, multipron): built
// the way SphinxTrain's CD stage starts, by SphinxTrain's own tools.
#pragma once

#include <filesystem>

namespace pstrain::testing {

// mk_mdef_gen writes an untied triphone mdef for every triphone of the default corpus's training
// transcripts (base pronunciations, with word positions), init_mixw copies the an4_ci_cont CI
// parameters into it. Written to DIR/cd-untied, which is returned; failures are test failures.
std::filesystem::path UntiedCdModel(const std::filesystem::path& dir);

}  // namespace pstrain::testing
