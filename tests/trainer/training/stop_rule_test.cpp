// Tests for the training stop rule (DecideStop, trainer/training/train_loop.h) and the retry-beam
// schedule syntax (ParseRetryBeams / FormatRetryBeams, trainer/estep/corpus_pass.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "estep/corpus_pass.h"
#include "training/train_loop.h"

namespace pstrain {
namespace {

TEST(StopRuleTest, DecideStop) {
  struct Case {
    std::string name;
    StopRule rule;
    std::uint32_t pass;
    bool has_previous;
    double previous, current;
    StopDecision expected;
  };
  const StopRule standard{1, 10, 0.5};  // min 1, max 10, threshold 0.5
  const StopRule min_five{5, 10, 0.5};
  const Case cases[] = {
      {"first pass continues", standard, 1, false, 0.0, -80.0, StopDecision::kContinue},
      {"first pass ignores the previous value", standard, 1, false, -1.0, -80.0, StopDecision::kContinue},
      {"first pass of a 1-pass run is the last", {1, 1, 0.5}, 1, false, 0.0, -80.0, StopDecision::kMaxPasses},
      {"large gain continues", standard, 3, true, -80.0, -79.0, StopDecision::kContinue},
      {"large gain continues up to max-1", standard, 9, true, -80.0, -79.0, StopDecision::kContinue},
      {"large gain at max stops", standard, 10, true, -80.0, -79.0, StopDecision::kMaxPasses},
      {"large gain beyond max stops", standard, 11, true, -80.0, -79.0, StopDecision::kMaxPasses},
      {"small gain converges", standard, 2, true, -80.0, -79.75, StopDecision::kConverged},
      {"gain equal to threshold converges", standard, 2, true, -2.5, -2.0, StopDecision::kConverged},
      {"gain just above threshold continues", standard, 2, true, -2.5, -1.999, StopDecision::kContinue},
      {"zero gain converges", standard, 2, true, -80.0, -80.0, StopDecision::kConverged},
      {"negative gain converges", standard, 2, true, -80.0, -81.0, StopDecision::kConverged},
      {"small gain at max converges, not max-passes", standard, 10, true, -80.0, -79.75, StopDecision::kConverged},
      {"small gain before min continues", min_five, 3, true, -80.0, -79.75, StopDecision::kContinue},
      {"negative gain before min continues", min_five, 4, true, -80.0, -85.0, StopDecision::kContinue},
      {"small gain at min converges", min_five, 5, true, -80.0, -79.75, StopDecision::kConverged},
      {"negative gain after min converges", min_five, 6, true, -80.0, -85.0, StopDecision::kConverged},
      {"min equal to max: small gain on the last pass converges", {3, 3, 0.5}, 3, true, -80.0, -79.75, StopDecision::kConverged},
      {"min equal to max: large gain on the last pass", {3, 3, 0.5}, 3, true, -80.0, -79.0, StopDecision::kMaxPasses},
      {"min equal to max: before it", {3, 3, 0.5}, 2, true, -80.0, -79.75, StopDecision::kContinue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_STREQ(StopDecisionName(DecideStop(c.rule, c.pass, c.has_previous, c.previous, c.current)), StopDecisionName(c.expected));
  }
}

TEST(StopRuleTest, DecisionNames) {
  EXPECT_STREQ(StopDecisionName(StopDecision::kContinue), "continue");
  EXPECT_STREQ(StopDecisionName(StopDecision::kConverged), "converged");
  EXPECT_STREQ(StopDecisionName(StopDecision::kMaxPasses), "max-passes");
}

TEST(RetryBeamsTest, ParseValid) {
  struct Case {
    std::string text;
    std::vector<BeamOptions> beams;
  };
  const Case cases[] = {
      {"none", {}},
      {"1e-150:1e-30", {{1e-150, 1e-30}}},
      {"1e-150:1e-30,1e-300:1e-100", {{1e-150, 1e-30}, {1e-300, 1e-100}}},
      {"1:1", {{1.0, 1.0}}},
      {"0.5:2.5e-3", {{0.5, 2.5e-3}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::vector<BeamOptions> beams = ParseRetryBeams(c.text);
    ASSERT_EQ(beams.size(), c.beams.size());
    for (std::size_t idx = 0; idx < beams.size(); ++idx) {
      EXPECT_EQ(beams[idx].abeam, c.beams[idx].abeam);
      EXPECT_EQ(beams[idx].bbeam, c.beams[idx].bbeam);
    }
  }
}

TEST(RetryBeamsTest, ParseMalformedThrows) {
  const std::string cases[] = {
      "1e-5",           // no colon
      "a:b",            // not numbers
      "1e-5:2",         // bbeam above 1
      "0:1e-5",         // abeam zero
      "1e-5:0",         // bbeam zero
      "-1e-5:1e-5",     // negative
      "1e-5:1e-5x",     // trailing text
      "1e-5x:1e-5",     // trailing text before the colon
      ":1e-5",          // empty abeam
      "1e-5:",          // empty bbeam
      "1e-5:1e-5:1e-5", // three fields
      "1e-150:1e-30,bad",
      ",1e-5:1e-5",     // empty pair
      "nan:1e-5",
      "inf:1e-5",
      "NONE",
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    EXPECT_THROW(ParseRetryBeams(text), InputError);
  }
}

TEST(RetryBeamsTest, FormatAndRoundTrip) {
  struct Case {
    std::vector<BeamOptions> beams;
    std::string text;
  };
  const Case cases[] = {
      {{}, "none"},
      {{{1e-150, 1e-30}}, "1e-150:1e-30"},
      {{{1e-150, 1e-30}, {1e-300, 1e-100}}, "1e-150:1e-30,1e-300:1e-100"},
      {{{0.5, 0.25}}, "0.5:0.25"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(FormatRetryBeams(c.beams), c.text);
    const std::vector<BeamOptions> parsed = ParseRetryBeams(c.text);
    ASSERT_EQ(parsed.size(), c.beams.size());
    for (std::size_t idx = 0; idx < parsed.size(); ++idx) {
      EXPECT_EQ(parsed[idx].abeam, c.beams[idx].abeam);
      EXPECT_EQ(parsed[idx].bbeam, c.beams[idx].bbeam);
    }
  }
  // The default schedule is the documented one.
  EXPECT_EQ(FormatRetryBeams(AccumulateOptions{}.retry_beams), "1e-150:1e-30,1e-300:1e-100");
}

}  // namespace
}  // namespace pstrain
