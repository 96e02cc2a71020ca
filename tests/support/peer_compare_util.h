// Element-wise comparison of pstrain's accumulators with SphinxTrain bw's, shared by the peer
// agreement test (tests/trainer/cli/peer_agreement_integration_test.cpp) and gate
// (gates/peer_agreement_gate.cpp).
//
// Every element of every density with bw dnom >= 1 (dnom, mixture count, mean and variance
// numerators) and of every transition row with occupancy >= 1 is compared; an element's allowed
// difference is 1e-4*|bw| + 1e-5*count (count = the density's dnom or the row's occupancy: bw
// accumulates in float32, and numerators can cancel to near zero).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pstrain::testing {

inline constexpr double kPeerElementRtol = 1e-4;
inline constexpr double kPeerElementCountTol = 1e-5;

struct PeerComparison {
  bool shapes_match = false;
  double worst_ratio = 0.0;  // largest |ours - bw| / allowed (> 1: out of tolerance; inf for NaN)
  double worst_abs_diff = 0.0;
  double worst_rel_diff = 0.0;
  std::string worst_where;   // "var[325] ours=... bw=..."
  std::size_t elements = 0, densities = 0, tmat_rows = 0;
};

// `ours_dir`: a pstrain accumulator directory; `bw_dir`: bw's -accumdir.
PeerComparison CompareWithBw(const std::filesystem::path& ours_dir, const std::filesystem::path& bw_dir);

// What bw's stdout (run with -timing no) says: utterances with a complete `utt>` line succeeded;
// the `overall> stats FRAMES (-N) PER_FRAME TOTAL` line gives the totals (0 when absent).
struct BwLog {
  std::vector<std::string> succeeded;  // control-file order
  std::uint64_t frames = 0;
  double total_log_likelihood = 0.0;
};
BwLog ParseBwLog(const std::filesystem::path& stdout_log);

}  // namespace pstrain::testing
