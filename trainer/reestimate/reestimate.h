// Re-estimation (the M-step; SphinxTrain's `norm`): new model parameters from summed accumulators.
//
//   means      mu = sum(g x) / sum(g)
//   variances  sigma^2 = sum(g x^2) / sum(g) - mu^2      (2-pass: sum(g (x - mu_old)^2) / sum(g))
//   mixture_weights, transition_matrices: the summed counts, unnormalized, exactly as norm writes them
//
// Computed in double and rounded once to float32. Unlike norm, a density, mixture-weight row or
// transition row that received no counts keeps its previous parameters instead of becoming zero,
// and each such case is counted in the report. Variances are not floored on write (pocketsphinx and
// bw floor on load), again as norm does; a variance that float cancellation makes negative is
// written as 0 (norm writes the negative value) and reported.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "accumulators/accumulators.h"
#include "model/acoustic_model.h"

namespace pstrain {

struct ReestimationReport {
  std::uint32_t densities_without_counts = 0;   // kept previous mean and variance
  std::uint32_t mixw_rows_without_counts = 0;   // kept previous mixture weights
  std::uint32_t tmat_rows_without_counts = 0;   // kept previous transition row
  std::uint32_t negative_variances = 0;         // written as 0 (floored on load)
  std::vector<std::uint32_t> unseen_senones;    // senones whose every density had no counts
  // Multipron survival prior (docs/multipron.md): activated states that had counts and got the
  // prior, and activated states without counts (they keep their previous parameters exactly).
  std::uint32_t survival_prior_states = 0;
  std::uint32_t activated_states_without_counts = 0;
};

// Returns the re-estimated model: a copy of `previous` with means, variances, mixture_weights and
// transition_matrices replaced. Accumulator dimensions must match the model (InputError otherwise).
//
// `activated` (multipron; null or empty otherwise): one flag per tied state. Each activated state
// with counts gets one unit of prior count at its previous parameters, once, before the division:
// with w_k its previous mixture weights normalized to sum 1, mixw_k += w_k, and for each density k
// that has counts, dnom_k += w_k, mean_k += w_k mu_k, var_k += w_k (sigma_k^2 + mu_k^2) (2-pass:
// w_k sigma_k^2). A density or state without counts keeps its previous parameters, which is what
// the prior alone gives, so an activated state nobody observed survives unchanged.
// `threads` as for the in-place form below.
ModelFiles Reestimate(const Accumulators& acc, const ModelFiles& previous, ReestimationReport* report,
                      const std::vector<std::uint8_t>* activated = nullptr, unsigned threads = 1);
// The mean and variance sums of one density (veclen doubles each, into mean and var): for a view
// of the statistics that does not hold them (Accumulators::has_gaussians() false).
using GaussianRows = std::function<void(std::uint32_t senone, std::uint32_t density, double* mean, double* var)>;

// The same, re-estimated in place: `previous` becomes the result (no copy of the model; the
// training loop's previous model is not needed after its pass). `previous` is moved from even when
// this throws (the dimension check). With `rows`, each density's mean and variance sums are asked
// of it (the same values as a whole view's give the same model); `acc` may then be a view without
// them, and `activated` must be empty (the survival prior changes the sums it reads); `rows` may
// be called from several threads at once. With `threads` > 1 a large model's senones are
// re-estimated on up to that many threads (this one among them), in contiguous ranges: the same
// values and the same report as on one. (The ranges write disjoint parts of the model's arrays
// because its files agree in shape, as a loaded model's are checked to.)
ModelFiles Reestimate(const Accumulators& acc, ModelFiles&& previous, ReestimationReport* report,
                      const std::vector<std::uint8_t>* activated = nullptr, const GaussianRows& rows = {}, unsigned threads = 1);

}  // namespace pstrain
