// Regression tests for the defects fuzzing found (docs/fuzzing.md): each input that crashed a
// parser is also kept under tests/fuzz/crashes/<target>/ and replayed by ctest fuzz_replay_<target>;
// here the rule it broke is stated and the error checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/error.h"
#include "formats/mdef.h"
#include "formats/param_files.h"
#include "formats/s3_file.h"
#include "model/model_checks.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

using ::testing::HasSubstr;
using test::InputErrorMessage;

// A Gaussian file's header: n_mgau, n_feat, n_density, the streams' veclen, then an empty payload.
std::vector<std::uint8_t> GaussianHeaderOnly(std::uint32_t n_mgau, std::uint32_t n_density, const std::vector<std::uint32_t>& veclen) {
  S3Builder out;
  out.U32(n_mgau);
  out.U32(static_cast<std::uint32_t>(veclen.size()));
  out.U32(n_density);
  for (std::uint32_t v : veclen) out.U32(v);
  out.FloatArray1D({});
  return EncodeS3(out.file());
}

// veclen {2^32-1, 1} summed to 0 in 32 bits: the payload check expected 0 values, the file was
// accepted, and CheckMeans then read 2^32-1 values of an empty array (UBSan: reference binding to
// a null pointer; tests/fuzz/crashes/means/veclen-sum-wraps-to-zero).
TEST(FuzzFindingsTest, GaussianVeclenSumThatWrapsIn32BitsIsRejected) {
  const std::vector<std::uint8_t> bytes = GaussianHeaderOnly(1, 1, {0xFFFFFFFFu, 1u});
  const std::string message = InputErrorMessage([&] { CheckMeans(DecodeGaussianFile(bytes, "model/means"), "model/means"); });
  EXPECT_THAT(message, HasSubstr("model/means: vector length 4294967296"));
  EXPECT_THAT(message, HasSubstr("implausibly large"));
}

TEST(FuzzFindingsTest, GaussianVeclenWithinTheBoundStillParses) {
  S3Builder out;
  out.U32(1);
  out.U32(2);
  out.U32(1);
  out.U32(2);
  out.U32(1);
  out.FloatArray1D({0.5f, 1.5f, 2.5f});
  const GaussianParams params = DecodeGaussianFile(EncodeS3(out.file()), "model/means");
  EXPECT_EQ(params.TotalVeclen(), 3u);
  EXPECT_EQ(params.data, (std::vector<float>{0.5f, 1.5f, 2.5f}));
}

// A 2 KB mdef (an4_ci_cont's, 34 phones x 3 states) declaring 400,000,000 tied states sized two
// arrays by that count: 1.6 GB and 17 s before it was accepted. The count is now bounded by the
// phone rows' emitting states (tests/fuzz/crashes/mdef/n-tied-state-beyond-the-phone-rows).
TEST(FuzzFindingsTest, MdefDeclaringMoreTiedStatesThanThePhoneRowsHoldIsRejected) {
  auto mdef_text = [](const std::string& n_tied_state) {
    return "0.3\n1 n_base\n0 n_tri\n4 n_state_map\n" + n_tied_state + " n_tied_state\n3 n_tied_ci_state\n1 n_tied_tmat\n" +
           "SIL - - - filler 0 0 1 2 N\n";
  };
  EXPECT_THAT(InputErrorMessage([&] { Mdef::Parse(mdef_text("400000000"), "model/mdef"); }),
              HasSubstr("model/mdef: n_tied_state 400000000 is more than the 3 emitting states of the phone rows"));
  EXPECT_EQ(Mdef::Parse(mdef_text("3"), "model/mdef").n_tied_state(), 3u);
}

}  // namespace
}  // namespace pstrain
