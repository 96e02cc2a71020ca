// `audit characterize`: measuring two finished training runs of one corpus against each other.
#include "characterize/characterize_measure.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/param_files.h"
#include "report/audit_error.h"
#include "shards/run_layout.h"

namespace pstrain::audit {

namespace fs = std::filesystem;
namespace json = boost::json;

DiffStats CompareArrays(const std::vector<float>& a, const std::vector<float>& b, double budget, const std::string& what) {
  if (a.size() != b.size()) {
    throw AuditErrorIn(what, "the two runs have " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " elements");
  }
  DiffStats s;
  s.elements = a.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    if (x == y) continue;
    ++s.differing;
    double rel = std::numeric_limits<double>::infinity();
    if (!std::isnan(x) && !std::isnan(y)) rel = std::fabs(x - y) / std::max(std::fabs(x), std::fabs(y));
    if (rel > budget) ++s.over_budget;
    if (rel > s.max_relative) {
      s.max_relative = rel;
      s.max_index = i;
    }
  }
  return s;
}

bool ArmRun::Monotonic() const { return FirstFall() == 0; }

std::size_t ArmRun::FirstFall() const {
  for (std::size_t i = 1; i < log_likelihood_per_frame.size(); ++i) {
    if (log_likelihood_per_frame[i] < log_likelihood_per_frame[i - 1]) return i + 1;
  }
  return 0;
}

double ModeComparison::MaxMeansRelative() const {
  double m = 0;
  for (const PassComparison& p : passes) m = std::max(m, p.means.max_relative);
  return m;
}

double ModeComparison::MaxNumeratorRelative() const {
  double m = 0;
  for (const PassComparison& p : passes) m = std::max(m, p.mean_numerators.max_relative);
  return m;
}

bool ModeComparison::AllZero() const {
  return std::all_of(passes.begin(), passes.end(), [](const PassComparison& p) {
    return p.means.differing == 0 && p.mean_numerators.differing == 0 && p.means_identical_bytes && p.same_exact_log_likelihood;
  });
}

namespace {

struct PassRecord {
  std::uint32_t shard_count = 0;
  std::string reduction;
  double log_likelihood_per_frame = 0;
  std::string log_likelihood_exact;
};

PassRecord ReadPassRecord(const fs::path& path, std::uint32_t pass) {
  PassRecord r;
  try {
    const json::object o = json::parse(ReadFileText(path)).as_object();
    if (o.at("pass").to_number<std::uint64_t>() != pass) throw AuditError("\"pass\" is not " + std::to_string(pass));
    r.shard_count = static_cast<std::uint32_t>(o.at("shard_count").to_number<std::uint64_t>());
    r.reduction = std::string(o.at("reduction").as_string());
    const json::object& totals = o.at("totals").as_object();
    r.log_likelihood_per_frame = totals.at("log_likelihood_per_frame").to_number<double>();
    r.log_likelihood_exact = std::string(totals.at("total_log_likelihood_exact").as_string());
  } catch (const InputError& e) {  // ReadFileText's (the trainer's): it names the file
    throw AuditError(e.what());
  } catch (const std::exception& e) {  // JSON, a missing or mistyped field, or the pass number above
    throw AuditErrorIn(path.string(), std::string("unreadable: ") + e.what());
  }
  return r;
}

}  // namespace

ModeComparison CompareRuns(const std::string& reduction, const fs::path& run_a, std::uint32_t jobs_a, const fs::path& run_b,
                           std::uint32_t jobs_b, std::uint32_t passes, double budget) {
  ModeComparison m;
  m.reduction = reduction;
  m.a.requested_jobs = jobs_a;
  m.b.requested_jobs = jobs_b;
  m.a.run_dir = run_a.string();
  m.b.run_dir = run_b.string();
  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    const fs::path pa = PassDir(run_a, pass), pb = PassDir(run_b, pass);
    PassComparison c;
    c.pass = pass;
    const PassRecord ra = ReadPassRecord(pa / "pass.json", pass), rb = ReadPassRecord(pb / "pass.json", pass);
    for (const auto& [record, path] : {std::pair{&ra, &pa}, std::pair{&rb, &pb}}) {
      if (record->reduction != reduction) {
        throw AuditErrorIn((*path / "pass.json").string(), "reduction is " + record->reduction + ", expected " + reduction);
      }
    }
    if (pass == 1) {
      m.a.shard_count = ra.shard_count;
      m.b.shard_count = rb.shard_count;
    }
    m.a.log_likelihood_per_frame.push_back(ra.log_likelihood_per_frame);
    m.b.log_likelihood_per_frame.push_back(rb.log_likelihood_per_frame);
    m.a.log_likelihood_exact.push_back(ra.log_likelihood_exact);
    m.b.log_likelihood_exact.push_back(rb.log_likelihood_exact);
    c.log_likelihood_gap = rb.log_likelihood_per_frame - ra.log_likelihood_per_frame;
    c.same_exact_log_likelihood = ra.log_likelihood_exact == rb.log_likelihood_exact;

    const fs::path means_a = pa / "model" / "means", means_b = pb / "model" / "means";
    const GaussianParams ma = ReadGaussianFile(means_a.string()), mb = ReadGaussianFile(means_b.string());
    if (!ma.SameShape(mb)) throw AuditErrorIn(means_b.string(), "not the shape of " + means_a.string());
    c.means = CompareArrays(ma.data, mb.data, budget, means_b.string());
    c.means_identical_bytes = ReadFileBytes(means_a) == ReadFileBytes(means_b);

    const fs::path counts_a = pa / "accum" / "gauden_counts", counts_b = pb / "accum" / "gauden_counts";
    const GaudenCounts ga = ReadGaudenCountsFile(counts_a.string()), gb = ReadGaudenCountsFile(counts_b.string());
    if (!ga.has_means || !gb.has_means) throw AuditErrorIn(counts_a.string(), "holds no mean numerators");
    c.mean_numerators = CompareArrays(ga.mean, gb.mean, budget, counts_b.string());
    m.passes.push_back(c);
  }
  return m;
}

}  // namespace pstrain::audit
