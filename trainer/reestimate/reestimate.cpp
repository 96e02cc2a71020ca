// Re-estimation (the M-step, SphinxTrain's norm): new parameters from summed accumulators.
#include "reestimate/reestimate.h"

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "common/parallel_for.h"

namespace pstrain {

ModelFiles Reestimate(const Accumulators& acc, const ModelFiles& previous, ReestimationReport* report,
                      const std::vector<std::uint8_t>* activated, unsigned threads) {
  return Reestimate(acc, ModelFiles(previous), report, activated, {}, threads);
}

namespace {

// Models with fewer mean elements than this are re-estimated on one thread: starting a second
// costs about what it would save (a CI model's 4k to 64k elements take well under a millisecond).
constexpr std::uint64_t kThreadedReestimationElements = std::uint64_t(1) << 17;

// The means, variances and mixture weights of senones [first, last) into `next` (which holds the
// previous ones until each is replaced), and what became of them into `report`.
void ReestimateSenones(const Accumulators& acc, const GaussianRows& rows, const ModelFiles& previous, std::uint32_t first,
                       std::uint32_t last, ModelFiles& next, ReestimationReport& report) {
  const AccumulatorShape& shape = acc.shape();
  const std::uint32_t veclen = shape.veclen;
  std::vector<double> mean_row(rows ? veclen : 0), var_row(rows ? veclen : 0);  // (with `rows`)
  for (std::uint32_t senone = first; senone < last; ++senone) {
    bool any_counts = false;
    for (std::uint32_t k = 0; k < shape.n_density; ++k) {
      const double dnom = acc.dnom(senone, k);
      const std::size_t offset = previous.means.Offset(senone, 0, k);
      if (dnom == 0.0) {
        ++report.densities_without_counts;
        continue;  // keeps the previous mean and variance
      }
      any_counts = true;
      const double* mean_acc = mean_row.data();
      const double* var_acc = var_row.data();
      if (rows) {
        rows(senone, k, mean_row.data(), var_row.data());
      } else {
        mean_acc = acc.mean(senone, k);
        var_acc = acc.var(senone, k);
      }
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const double mu = mean_acc[l] / dnom;
        const double var = acc.pass2var() ? var_acc[l] / dnom : var_acc[l] / dnom - mu * mu;
        next.means.data[offset + l] = static_cast<float>(mu);
        // Cancellation in E[x^2] - mu^2 can make a variance slightly negative; it is written as 0
        // (which every loader floors, as it would the negative value), so that no model pstrain
        // writes has a negative variance (a loaded model with one is refused).
        next.variances.data[offset + l] = var < 0.0 ? 0.0f : static_cast<float>(var);
        if (var < 0.0) ++report.negative_variances;
      }
    }
    if (!any_counts) report.unseen_senones.push_back(senone);

    double row_sum = 0.0;
    for (std::uint32_t k = 0; k < shape.n_density; ++k) row_sum += acc.mixw(senone, k);
    if (row_sum == 0.0) {
      ++report.mixw_rows_without_counts;
    } else {
      for (std::uint32_t k = 0; k < shape.n_density; ++k) {
        next.mixture_weights.at(senone, 0, k) = ClampTinyMagnitude(static_cast<float>(acc.mixw(senone, k)));
      }
    }
  }
}

}  // namespace

// In place: `next` holds the previous parameters until each is replaced. The survival prior reads
// the previous means, variances and mixture weights of every activated state before the first one
// is replaced (its loop ends before the division loop starts).
ModelFiles Reestimate(const Accumulators& acc_in, ModelFiles&& model, ReestimationReport* report_out,
                      const std::vector<std::uint8_t>* activated, const GaussianRows& rows, unsigned threads) {
  ModelFiles next = std::move(model);
  if (!rows && !acc_in.has_gaussians()) throw TrainingError("internal: re-estimation without the mean and variance sums");
  if (rows && activated != nullptr && !activated->empty()) {
    throw TrainingError("internal: the survival prior needs the statistics' mean and variance sums in the view");
  }
  const ModelFiles& previous = next;  // read for a parameter before it is replaced
  const AccumulatorShape& shape = acc_in.shape();
  if (!(shape == StatisticsShape(next.means, next.transition_matrices))) {
    throw InputError("accumulator dimensions (" + std::to_string(shape.n_senones) + " senones x " +
                     std::to_string(shape.n_density) + " densities x " + std::to_string(shape.veclen) + " dims, " +
                     std::to_string(shape.n_tmat) + " tmats) do not match the input model");
  }
  ReestimationReport report;
  const std::uint32_t veclen = shape.veclen;
  // The statistics are copied only when the survival prior changes them (multipron): a tied CD
  // model's double view is megabytes, and the pass's tail holds it already.
  const Accumulators* statistics = &acc_in;
  Accumulators with_prior;
  if (activated != nullptr && !activated->empty()) {
    if (activated->size() != shape.n_senones) {
      throw InputError("activation flags cover " + std::to_string(activated->size()) + " tied states, the model has " +
                       std::to_string(shape.n_senones));
    }
    with_prior = acc_in;
    statistics = &with_prior;
    Accumulators& acc = with_prior;
    for (std::uint32_t senone = 0; senone < shape.n_senones; ++senone) {
      if (!(*activated)[senone]) continue;
      double occupancy = 0.0;
      for (std::uint32_t k = 0; k < shape.n_density; ++k) occupancy += acc.dnom(senone, k);
      if (occupancy == 0.0) {
        ++report.activated_states_without_counts;
        continue;
      }
      ++report.survival_prior_states;
      double weight_sum = 0.0;
      for (std::uint32_t k = 0; k < shape.n_density; ++k) weight_sum += previous.mixture_weights.at(senone, 0, k);
      for (std::uint32_t k = 0; k < shape.n_density; ++k) {
        const double w = weight_sum > 0.0 ? previous.mixture_weights.at(senone, 0, k) / weight_sum : 1.0 / shape.n_density;
        acc.mixw(senone, k) += w;
        if (acc.dnom(senone, k) == 0.0) continue;
        acc.dnom(senone, k) += w;
        const std::size_t offset = previous.means.Offset(senone, 0, k);
        double* mean_acc = acc.mean(senone, k);
        double* var_acc = acc.var(senone, k);
        for (std::uint32_t l = 0; l < veclen; ++l) {
          const double mu = previous.means.data[offset + l];
          const double sigma2 = previous.variances.data[offset + l];
          mean_acc[l] += w * mu;
          var_acc[l] += acc.pass2var() ? w * sigma2 : w * (sigma2 + mu * mu);
        }
      }
    }
  }
  const Accumulators& acc = *statistics;
  // The senones in contiguous ranges, each with its own counts, on up to `threads` threads: every
  // parameter is computed from its own sums alone, so how they are split changes no value; the
  // ranges' counts are then added, and their unseen senones joined, in range order.
  const std::uint64_t elements = std::uint64_t(shape.n_senones) * shape.n_density * veclen;
  const unsigned use_threads = elements >= kThreadedReestimationElements ? std::max(threads, 1u) : 1u;
  const std::uint32_t n_ranges = std::min<std::uint32_t>(shape.n_senones, use_threads == 1 ? 1 : 4 * use_threads);
  std::vector<ReestimationReport> range_reports(n_ranges);
  ParallelFor(n_ranges, use_threads, [&](std::size_t r) {
    const std::uint32_t first = static_cast<std::uint32_t>(std::uint64_t(shape.n_senones) * r / n_ranges);
    const std::uint32_t last = static_cast<std::uint32_t>(std::uint64_t(shape.n_senones) * (r + 1) / n_ranges);
    ReestimateSenones(acc, rows, previous, first, last, next, range_reports[r]);
  });
  for (const ReestimationReport& range : range_reports) {
    report.densities_without_counts += range.densities_without_counts;
    report.mixw_rows_without_counts += range.mixw_rows_without_counts;
    report.negative_variances += range.negative_variances;
    report.unseen_senones.insert(report.unseen_senones.end(), range.unseen_senones.begin(), range.unseen_senones.end());
  }
  for (std::uint32_t tmat = 0; tmat < shape.n_tmat; ++tmat) {
    for (std::uint32_t from = 0; from < shape.n_emit_state; ++from) {
      double row_sum = 0.0;
      for (std::uint32_t to = 0; to <= shape.n_emit_state; ++to) row_sum += acc.tmat(tmat, from, to);
      if (row_sum == 0.0) {
        ++report.tmat_rows_without_counts;
        continue;
      }
      for (std::uint32_t to = 0; to <= shape.n_emit_state; ++to) {
        next.transition_matrices.at(tmat, from, to) = ClampTinyMagnitude(static_cast<float>(acc.tmat(tmat, from, to)));
      }
    }
  }
  if (report_out) *report_out = report;
  return next;
}

}  // namespace pstrain
