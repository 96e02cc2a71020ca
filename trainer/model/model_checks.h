// Checks of a model directory's parameter values, on top of ModelFiles::Load (which checks the
// files' formats and that their dimensions agree).
//
//   means                 finite
//   variances             finite and not negative (0 is legitimate: floored to --varfloor on load)
//   mixture_weights       finite and not negative
//   transition_matrices   finite and not negative
//
// bw and pocketsphinx floor or renormalize such values silently: a NaN mean made every utterance
// through its state fail, a variance of -1 was floored and written back, and a transition matrix of
// -0.5 everywhere normalized into one with skip and exit transitions. Each failure is an InputError
// naming the file, the tied state (senone) or transition matrix, the density or transition, and the
// dimension, e.g. "MODEL/means: senone 5, density 2, dimension 7 is NaN (...)".
//
// feat.params, when present, must declare the features pstrain computes (CheckFeatParamsSupported
// in formats/feat_params.h: 1s_c_d_dd from 13 cepstra, no transform).
#pragma once

#include <string>

#include "model/acoustic_model.h"

namespace pstrain {

// Throws InputError for the first setting or value (feat.params first, then the parameter files
// in file order) that breaks the rules above. `dir` is the model directory the files were loaded
// from (for the message).
void CheckModelParameters(const ModelFiles& files, const std::string& dir);
// The parameter-file checks of CheckModelParameters for files named one by one (bw's flags).
void CheckParameterFiles(const ModelFiles& files, const ModelPaths& paths);

// The checks of one parameter file (what CheckModelParameters runs on each); `path` names it.
void CheckMeans(const GaussianParams& means, const std::string& path);
void CheckVariances(const GaussianParams& variances, const std::string& path);
void CheckMixtureWeights(const Array3D& mixture_weights, const std::string& path);
void CheckTransitionMatrices(const Array3D& transition_matrices, const std::string& path);

// ModelFiles::Load(dir) followed by every check of this file: what pstrain uses wherever it loads
// a model to train from.
ModelFiles LoadCheckedModel(const std::string& dir);
// The same, with the SHA-256 of every file as read (ModelFiles::Load(dir, digests)).
ModelFiles LoadCheckedModel(const std::string& dir, ModelFileDigests& digests);

}  // namespace pstrain
