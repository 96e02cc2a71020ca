// FormatUtteranceLogLine (trainer/estep/utterance_log_line.h) gives snprintf's text for the utt>
// line's formats, whatever the values: scripts read the line's fields by position.
#include "estep/utterance_log_line.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace pstrain {
namespace {

std::string Reference(const UtteranceLogFields& f) {
  std::vector<char> line(1024 + f.utt_id.size() + f.reason.size());
  const std::string id(f.utt_id), reason(f.reason);
  if (f.skipped) {
    std::snprintf(line.data(), line.size(), "utt> %5zu %25s %4u skipped %s", f.number, id.c_str(), f.n_frames, reason.c_str());
  } else {
    std::snprintf(line.data(), line.size(), "utt> %5zu %25s %4u %5zu %.1f %.1f %e %e %e%s", f.number, id.c_str(), f.n_frames,
                  f.n_states, f.avg_alpha_states, f.avg_beta_states, f.avg_pruned_posterior, f.log_likelihood / f.n_frames,
                  f.log_likelihood, f.retried ? " (retried)" : "");
  }
  return line.data();
}

std::string Formatted(const UtteranceLogFields& fields) {
  std::string out = "left over from the last line";
  FormatUtteranceLogLine(fields, out);
  return out;
}

TEST(UtteranceLogLine, AnAlignedAndASkippedLineAsBwWritesThem) {
  UtteranceLogFields fields;
  fields.number = 1;
  fields.utt_id = "train_0001_v1";
  fields.n_frames = 486;
  fields.n_states = 148;
  fields.avg_alpha_states = 7.06;
  fields.avg_beta_states = 1.6;
  fields.avg_pruned_posterior = 1.653248e-12;
  fields.log_likelihood = -577.6818;
  EXPECT_EQ(Formatted(fields),
            "utt>     1             train_0001_v1  486   148 7.1 1.6 1.653248e-12 -1.188646e+00 -5.776818e+02");
  fields.retried = true;
  EXPECT_EQ(Formatted(fields), Reference(fields));
  EXPECT_NE(Formatted(fields).find(" (retried)"), std::string::npos);
  fields.skipped = true;
  fields.reason = "alpha-underflow";
  EXPECT_EQ(Formatted(fields), "utt>     1             train_0001_v1  486 skipped alpha-underflow");
}

// Fields wider than their width are not cut, and a long id is not truncated (the snprintf of a
// 256-byte buffer before cut such a line short).
TEST(UtteranceLogLine, WideFieldsAndLongIdsAreWrittenWhole) {
  const std::string long_id(300, 'u');
  UtteranceLogFields fields;
  fields.number = 1234567;
  fields.utt_id = long_id;
  fields.n_frames = 123456;
  fields.n_states = 9876543;
  fields.log_likelihood = -1e300;
  EXPECT_EQ(Formatted(fields), Reference(fields));
  EXPECT_GT(Formatted(fields).size(), 300u);
  fields.utt_id = "";
  EXPECT_EQ(Formatted(fields), Reference(fields));
}

TEST(UtteranceLogLine, EveryDoubleGivesPrintfsText) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0, -0.0, 0.05, 0.25, 0.35, 0.45, 2.5, -2.5, 9.95, 9.96, 99.95, 1e-320, -4.9e-324,
                                std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), kInf, -kInf,
                                std::numeric_limits<double>::quiet_NaN(), 1.0000005, 9.9999995, 9.99999949999, 0.5e-5};
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<std::uint64_t> bits;
  std::uniform_real_distribution<double> uniform(-1000.0, 1000.0);
  for (int i = 0; i < 20000; ++i) {
    values.push_back(std::bit_cast<double>(bits(rng)));  // every exponent, NaNs of either sign and any payload
    values.push_back(uniform(rng));
    values.push_back(std::round(uniform(rng) * 20.0) / 20.0);  // near the %.1f ties
  }
  UtteranceLogFields fields;
  fields.number = 7;
  fields.utt_id = "a";
  fields.n_frames = 3;
  fields.n_states = 12;
  for (std::size_t i = 0; i < values.size(); ++i) {
    fields.avg_alpha_states = values[i];
    fields.avg_beta_states = values[(i + 1) % values.size()];
    fields.avg_pruned_posterior = values[(i + 2) % values.size()];
    fields.log_likelihood = values[(i + 3) % values.size()];
    ASSERT_EQ(Formatted(fields), Reference(fields)) << "values from " << i;
  }
  // No frames: the log likelihood per frame is x / 0 (inf, -inf or NaN).
  fields.n_frames = 0;
  for (const double ll : {-5.0, 0.0, 3.0}) {
    fields.log_likelihood = ll;
    EXPECT_EQ(Formatted(fields), Reference(fields)) << ll;
  }
}

}  // namespace
}  // namespace pstrain
