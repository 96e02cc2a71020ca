// Element-wise comparison of pstrain's accumulators with SphinxTrain bw's, for the peer tests.
#include "support/peer_compare_util.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "accumulators/accumulators.h"
#include "common/file_io.h"
#include "formats/param_files.h"

namespace pstrain::testing {

namespace fs = std::filesystem;

namespace {

void Update(PeerComparison& c, double ours, double theirs, double count, const char* what, std::size_t index) {
  ++c.elements;
  const double diff = std::fabs(ours - theirs);
  const double ratio = diff / (kPeerElementRtol * std::fabs(theirs) + kPeerElementCountTol * count);
  if (!(ratio <= c.worst_ratio)) {  // also catches NaN
    c.worst_ratio = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
    c.worst_abs_diff = diff;
    c.worst_rel_diff = theirs != 0.0 ? diff / std::fabs(theirs) : 0.0;
    c.worst_where = std::string(what) + "[" + std::to_string(index) + "] ours=" + std::to_string(ours) + " bw=" + std::to_string(theirs);
  }
}

}  // namespace

PeerComparison CompareWithBw(const fs::path& ours_dir, const fs::path& bw_dir) {
  const Accumulators ours = Accumulators::Read(ours_dir.string());
  const GaudenCounts bw = ReadGaudenCountsFile((bw_dir / "gauden_counts").string());
  const Array3D bw_mixw = ReadArray3DFile((bw_dir / "mixw_counts").string());
  const Array3D bw_tmat = ReadArray3DFile((bw_dir / "tmat_counts").string());
  const AccumulatorShape& shape = ours.shape();
  PeerComparison c;
  c.shapes_match = bw.n_cb == shape.n_senones && bw.n_density == shape.n_density && bw.pass2var == ours.pass2var() &&
                   bw_tmat.d1 == shape.n_tmat && bw_tmat.d2 == shape.n_emit_state;
  if (!c.shapes_match) {
    c.worst_ratio = std::numeric_limits<double>::infinity();
    c.worst_where = "accumulator shapes differ";
    return c;
  }
  for (std::uint32_t senone = 0; senone < shape.n_senones; ++senone) {
    for (std::uint32_t k = 0; k < shape.n_density; ++k) {
      const std::size_t dens = std::size_t(senone) * shape.n_density + k;
      const double dnom = bw.dnom[dens];
      if (dnom < 1.0) continue;
      ++c.densities;
      Update(c, ours.dnom_data()[dens], dnom, dnom, "dnom", dens);
      Update(c, ours.mixw_data()[dens], bw_mixw.data[dens], dnom, "mixw", dens);
      for (std::uint32_t l = 0; l < shape.veclen; ++l) {
        const std::size_t e = dens * shape.veclen + l;
        Update(c, ours.mean_data()[e], bw.mean[e], dnom, "mean", e);
        Update(c, ours.var_data()[e], bw.var[e], dnom, "var", e);
      }
    }
  }
  const std::uint32_t n_to = shape.n_emit_state + 1;
  for (std::size_t row = 0; row < std::size_t(shape.n_tmat) * shape.n_emit_state; ++row) {
    double occupancy = 0.0;
    for (std::uint32_t to = 0; to < n_to; ++to) occupancy += bw_tmat.data[row * n_to + to];
    if (occupancy < 1.0) continue;
    ++c.tmat_rows;
    for (std::uint32_t to = 0; to < n_to; ++to) {
      Update(c, ours.tmat_data()[row * n_to + to], bw_tmat.data[row * n_to + to], occupancy, "tmat", row * n_to + to);
    }
  }
  return c;
}

BwLog ParseBwLog(const fs::path& stdout_log) {
  BwLog log;
  std::istringstream in(ReadFileText(stdout_log));
  for (std::string line; std::getline(in, line);) {
    std::istringstream tokens(line);
    std::vector<std::string> words;
    for (std::string w; tokens >> w;) words.push_back(w);
    if (!words.empty() && words[0] == "utt>" && words.size() >= 12) log.succeeded.push_back(words[2]);
    if (words.size() >= 6 && words[0] == "overall>" && words[1] == "stats") {
      log.frames = std::stoull(words[2]);
      log.total_log_likelihood = std::stod(words[5]);
    }
  }
  return log;
}

}  // namespace pstrain::testing
