// Tests for .mfc cepstral files (trainer/formats/mfc_file.h) and the 1s_c_d_dd feature computation
// with batch CMN (trainer/features/features.h), on tiny examples whose answers are worked out by hand
// in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "features/features.h"
#include "formats/mfc_file.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

using ::testing::HasSubstr;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kCeplen = 13;

using test::InputErrorMessage;

// `n_frames` x 13 cepstra with value(t, i) at frame t, coefficient i.
Cepstra MakeCepstra(std::uint32_t n_frames, const std::function<float(std::uint32_t, std::uint32_t)>& value) {
  Cepstra cep;
  cep.ceplen = kCeplen;
  cep.n_frames = n_frames;
  cep.data.resize(std::size_t(n_frames) * kCeplen);
  for (std::uint32_t t = 0; t < n_frames; ++t) {
    for (std::uint32_t i = 0; i < kCeplen; ++i) cep.data[std::size_t(t) * kCeplen + i] = value(t, i);
  }
  return cep;
}

// Reverses the bytes of every 4-byte word (a file written on a big-endian machine).
Bytes SwapWords(Bytes bytes) {
  for (std::size_t pos = 0; pos + 4 <= bytes.size(); pos += 4) {
    std::swap(bytes[pos], bytes[pos + 3]);
    std::swap(bytes[pos + 1], bytes[pos + 2]);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// .mfc files

TEST(MfcFeaturesFileTest, EncodeParseRoundTrip) {
  const Cepstra cep = MakeCepstra(3, [](std::uint32_t t, std::uint32_t i) { return 0.5f * float(t) - 0.25f * float(i) + 1e-3f; });
  const Bytes bytes = EncodeMfc(cep);
  ASSERT_EQ(bytes.size(), 4u + 4u * 39u);
  EXPECT_EQ(bytes[0], 39u);  // little-endian value count
  EXPECT_EQ(bytes[1], 0u);
  EXPECT_EQ(bytes[2], 0u);
  EXPECT_EQ(bytes[3], 0u);
  const Cepstra back = ParseMfc(bytes, "utt.mfc", kCeplen);
  EXPECT_EQ(back.ceplen, kCeplen);
  EXPECT_EQ(back.n_frames, 3u);
  EXPECT_EQ(back.data, cep.data);
  EXPECT_EQ(EncodeMfc(back), bytes);
  EXPECT_EQ(back.frame(2)[5], cep.data[2 * kCeplen + 5]);
}

TEST(MfcFeaturesFileTest, EmptyFileWithZeroCountHasNoFrames) {
  const Cepstra back = ParseMfc(Bytes{0, 0, 0, 0}, "empty.mfc", kCeplen);
  EXPECT_EQ(back.n_frames, 0u);
  EXPECT_TRUE(back.data.empty());
}

TEST(MfcFeaturesFileTest, ByteSwappedFileIsDetectedFromTheSize) {
  // A big-endian count word 26 (00 00 00 1a) read as little-endian is 0x1a000000: far too many
  // values for the size, so the reader swaps and finds 4 + 4 * 26 bytes.
  const Cepstra cep = MakeCepstra(2, [](std::uint32_t t, std::uint32_t i) { return float(t * 100 + i) / 7.0f; });
  const Bytes swapped = SwapWords(EncodeMfc(cep));
  EXPECT_EQ(swapped[3], 26u);
  const Cepstra back = ParseMfc(swapped, "swapped.mfc", kCeplen);
  EXPECT_EQ(back.n_frames, 2u);
  EXPECT_EQ(back.data, cep.data);
}

TEST(MfcFeaturesFileTest, BadFilesAreRejectedWithTheFileAndTheProblem) {
  const Cepstra cep = MakeCepstra(4, [](std::uint32_t t, std::uint32_t i) { return float(t) + 0.1f * float(i); });
  const Bytes good = EncodeMfc(cep);
  auto truncated = [&](std::size_t size) { return Bytes(good.begin(), good.begin() + size); };
  auto with_value = [&](std::uint32_t frame, std::uint32_t coefficient, float value) {
    Bytes bytes = good;
    std::memcpy(bytes.data() + 4 + 4 * (frame * kCeplen + coefficient), &value, 4);
    return bytes;
  };
  Cepstra not_multiple = cep;
  not_multiple.data.resize(25);  // 25 values: not whole 13-coefficient frames

  struct Case {
    const char* name;
    Bytes bytes;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"empty file", {}, {"truncated"}},
      {"count word cut", truncated(3), {"truncated"}},
      {"last value cut", truncated(good.size() - 1), {"truncated"}},
      {"last frame missing", truncated(good.size() - 4 * kCeplen), {"truncated", "does not match"}},
      {"only the count", truncated(4), {"truncated"}},
      {"extra bytes", [&] { Bytes b = good; b.push_back(0); return b; }(), {"does not match"}},
      {"count not a multiple of ceplen", EncodeMfc(not_multiple), {"25", "not a multiple", "13"}},
      {"NaN", with_value(2, 7, std::numeric_limits<float>::quiet_NaN()), {"frame 2", "coefficient 7", "NaN"}},
      {"positive infinity", with_value(0, 0, std::numeric_limits<float>::infinity()), {"frame 0", "infinite"}},
      {"negative infinity", with_value(3, 12, -std::numeric_limits<float>::infinity()), {"frame 3", "infinite"}},
      {"NaN in a byte-swapped file", SwapWords(with_value(1, 4, std::nanf(""))), {"frame 1", "coefficient 4", "NaN"}},
      {"the first of two bad values", [&] {
         Bytes b = with_value(3, 2, std::numeric_limits<float>::quiet_NaN());
         const float inf = std::numeric_limits<float>::infinity();
         std::memcpy(b.data() + 4 + 4 * (1 * kCeplen + 9), &inf, 4);
         return b;
       }(), {"frame 1", "coefficient 9", "infinite"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = "corpus/feat/" + std::string(c.name) + ".mfc";
    const std::string message = InputErrorMessage([&] { ParseMfc(c.bytes, path, kCeplen); });
    EXPECT_THAT(message, HasSubstr(path));
    for (const std::string& expected : c.expected) EXPECT_THAT(message, HasSubstr(expected));
  }
}

TEST(MfcFeaturesFileTest, ReadMfcFileNamesAMissingFile) {
  const std::string path = "/nonexistent/pstrain/utt.mfc";
  const std::string message = InputErrorMessage([&] { ReadMfcFile(path, kCeplen); });
  EXPECT_THAT(message, HasSubstr(path));
}

// ---------------------------------------------------------------------------------------------
// Batch CMN

TEST(MfcFeaturesTest, BatchCmnMeanExcludesNegativeC0FramesButIsSubtractedFromAll) {
  // c0 per frame: -3 2 -1 4 0 6 8 10 12 14. Frames 0 and 2 (c0 < 0) are left out of the mean; frame
  // 4 (c0 == 0) is in it. The 8 frames used are t = 1 3 4 5 6 7 8 9:
  //   c0 mean = (2 + 4 + 0 + 6 + 8 + 10 + 12 + 14) / 8 = 56 / 8 = 7
  //   coefficient i > 0 is i * t, mean = i * (1+3+4+5+6+7+8+9) / 8 = i * 43 / 8 = 5.375 i
  // (All frames would give c0 mean 5.2; leaving out c0 == 0 too would give 8.) Every frame, the
  // excluded ones included, then has the mean subtracted: c0 - 7 and i * (t - 5.375), all exact.
  const float c0[10] = {-3, 2, -1, 4, 0, 6, 8, 10, 12, 14};
  Cepstra cep = MakeCepstra(10, [&](std::uint32_t t, std::uint32_t i) { return i == 0 ? c0[t] : float(i * t); });
  FeatureOptions options;
  options.cmn = CmnMode::kBatch;
  ApplyCmn(cep, options, "utt.mfc");
  for (std::uint32_t t = 0; t < 10; ++t) {
    SCOPED_TRACE("frame " + std::to_string(t));
    EXPECT_EQ(cep.frame(t)[0], c0[t] - 7.0f);
    for (std::uint32_t i = 1; i < kCeplen; ++i) EXPECT_EQ(cep.frame(t)[i], float(i) * (float(t) - 5.375f)) << "coefficient " << i;
  }
}

TEST(MfcFeaturesTest, CmnNoneLeavesTheCepstraAlone) {
  const Cepstra original = MakeCepstra(5, [](std::uint32_t t, std::uint32_t i) { return float(t) * 3.0f - float(i); });
  Cepstra cep = original;
  FeatureOptions options;
  options.cmn = CmnMode::kNone;
  ApplyCmn(cep, options, "utt.mfc");
  EXPECT_EQ(cep.data, original.data);
}

TEST(MfcFeaturesTest, VarnormUsesTheC0MeanButTheVarianceOfAllFrames) {
  // c0 per frame: -1 1 3 5 7; coefficient i is (i + 1) * c0 + i. The mean over the c0 >= 0 frames
  // is 4 for c0 ((1+3+5+7)/4), (i+1)*4 + i for coefficient i. Deviations over ALL frames are
  // (i+1) * (-5 -3 -1 1 3), sum of squares (i+1)^2 * 45, so the scale is sqrt(5 / (45 (i+1)^2))
  // = 1 / (3 (i+1)) and every coefficient becomes -5/3 -1 -1/3 1/3 1.
  // (A variance over the c0 >= 0 frames only would give scale sqrt(4/20) and other values.)
  const float c0[5] = {-1, 1, 3, 5, 7};
  Cepstra cep = MakeCepstra(5, [&](std::uint32_t t, std::uint32_t i) { return float(i + 1) * c0[t] + float(i); });
  FeatureOptions options;
  options.cmn = CmnMode::kBatch;
  options.varnorm = true;
  ApplyCmn(cep, options, "utt.mfc");
  const float expected[5] = {-5.0f / 3.0f, -1.0f, -1.0f / 3.0f, 1.0f / 3.0f, 1.0f};
  for (std::uint32_t t = 0; t < 5; ++t) {
    for (std::uint32_t i = 0; i < kCeplen; ++i) {
      EXPECT_NEAR(cep.frame(t)[i], expected[t], 1e-6) << "frame " << t << " coefficient " << i;
    }
  }
}

TEST(MfcFeaturesTest, VarnormOfAConstantCoefficientIsAnError) {
  Cepstra cep = MakeCepstra(4, [](std::uint32_t t, std::uint32_t i) { return i == 5 ? 2.0f : float(t + i); });
  FeatureOptions options;
  options.varnorm = true;
  const std::string message = InputErrorMessage([&] { ApplyCmn(cep, options, "flat.mfc"); });
  EXPECT_THAT(message, HasSubstr("flat.mfc"));
  EXPECT_THAT(message, HasSubstr("coefficient 5"));
}

TEST(MfcFeaturesTest, AllFramesWithNegativeC0CannotBeMeanNormalized) {
  const Cepstra cep = MakeCepstra(10, [](std::uint32_t t, std::uint32_t i) { return i == 0 ? -1.0f - float(t) : 1.0f; });
  FeatureOptions options;
  options.cmn = CmnMode::kBatch;
  const std::string message = InputErrorMessage([&] { ComputeFeatures(cep, options, "feat/silent.mfc"); });
  EXPECT_THAT(message, HasSubstr("feat/silent.mfc"));
  EXPECT_THAT(message, HasSubstr("c0 < 0"));
  // Without CMN the same cepstra are fine.
  options.cmn = CmnMode::kNone;
  EXPECT_EQ(ComputeFeatures(cep, options, "feat/silent.mfc").n_frames, 10u);
}

// ---------------------------------------------------------------------------------------------
// Deltas

TEST(MfcFeaturesTest, DeltaAndDoubleDeltaWithEdgeReplication) {
  // c0 is the primes p = 2 3 5 7 11 13 17 19 23 29 (t = 0..9); coefficient i is (i + 1) * p[t].
  // Edge frames are replicated: p[-3..-1] = 2, p[10..12] = 29.
  //   delta[t]  = p[t+2] - p[t-2]
  //     t=0: 5-2=3   t=1: 7-2=5   t=2: 11-2=9  t=3: 13-3=10  t=4: 17-5=12
  //     t=5: 19-7=12 t=6: 23-11=12 t=7: 29-13=16 t=8: 29-17=12 t=9: 29-19=10
  //   ddelta[t] = (p[t+3] - p[t-1]) - (p[t+1] - p[t-3])
  //     t=0: (7-2)-(3-2)=4     t=1: (11-2)-(5-2)=6    t=2: (13-3)-(7-2)=5   t=3: (17-5)-(11-2)=3
  //     t=4: (19-7)-(13-3)=2   t=5: (23-11)-(17-5)=0  t=6: (29-13)-(19-7)=4 t=7: (29-17)-(23-11)=0
  //     t=8: (29-19)-(29-13)=-6  t=9: (29-23)-(29-17)=-6
  const float p[10] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
  const float delta[10] = {3, 5, 9, 10, 12, 12, 12, 16, 12, 10};
  const float ddelta[10] = {4, 6, 5, 3, 2, 0, 4, 0, -6, -6};
  const Cepstra cep = MakeCepstra(10, [&](std::uint32_t t, std::uint32_t i) { return float(i + 1) * p[t]; });
  FeatureOptions options;
  options.cmn = CmnMode::kNone;
  const Features features = ComputeFeatures(cep, options, "utt.mfc");
  ASSERT_EQ(features.dim, 39u);
  ASSERT_EQ(features.n_frames, 10u);
  ASSERT_EQ(features.data.size(), 390u);
  for (std::uint32_t t = 0; t < 10; ++t) {
    SCOPED_TRACE("frame " + std::to_string(t));
    for (std::uint32_t i = 0; i < kCeplen; ++i) {
      const float scale = float(i + 1);
      EXPECT_EQ(features.frame(t)[i], scale * p[t]) << "cep " << i;
      EXPECT_EQ(features.frame(t)[kCeplen + i], scale * delta[t]) << "delta " << i;
      EXPECT_EQ(features.frame(t)[2 * kCeplen + i], scale * ddelta[t]) << "ddelta " << i;
    }
  }
}

TEST(MfcFeaturesTest, FeaturesUseTheMeanNormalizedCepstra) {
  // Batch CMN happens before the deltas: the static part equals ApplyCmn's output, and since a
  // constant shift cancels in differences the deltas equal those of the raw cepstra.
  const float c0[6] = {1, -2, 4, 8, 3, 5};
  const Cepstra raw = MakeCepstra(6, [&](std::uint32_t t, std::uint32_t i) { return c0[t] + 0.5f * float(i * t); });
  FeatureOptions batch;
  batch.cmn = CmnMode::kBatch;
  FeatureOptions none;
  none.cmn = CmnMode::kNone;
  Cepstra normalized = raw;
  ApplyCmn(normalized, batch, "utt.mfc");
  const Features with_cmn = ComputeFeatures(raw, batch, "utt.mfc");
  const Features without = ComputeFeatures(raw, none, "utt.mfc");
  for (std::uint32_t t = 0; t < 6; ++t) {
    for (std::uint32_t i = 0; i < kCeplen; ++i) {
      EXPECT_EQ(with_cmn.frame(t)[i], normalized.frame(t)[i]) << "frame " << t << " cep " << i;
      EXPECT_NEAR(with_cmn.frame(t)[kCeplen + i], without.frame(t)[kCeplen + i], 1e-5) << "frame " << t << " delta " << i;
      EXPECT_NEAR(with_cmn.frame(t)[2 * kCeplen + i], without.frame(t)[2 * kCeplen + i], 1e-5) << "frame " << t << " ddelta " << i;
    }
  }
  // The mean over the c0 >= 0 frames (1 4 8 3 5 -> 21 / 5 = 4.2) was subtracted from c0.
  EXPECT_FLOAT_EQ(with_cmn.frame(1)[0], -2.0f - 4.2f);
}

// The features as the formulas above say, one value at a time (edge frames replicated), for the
// comparison below: ComputeFeatures runs other loops (the usual 13 coefficients as a constant, the
// inner frames without clamping), which must give the same floats.
std::vector<float> ReferenceFeatures(const Cepstra& raw, bool cmn) {
  const std::uint32_t len = raw.ceplen, n = raw.n_frames;
  std::vector<float> c(raw.data.begin(), raw.data.end());
  if (cmn) {
    std::vector<float> mean(len, 0.0f);
    std::uint32_t used = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (c[std::size_t(t) * len] < 0.0f) continue;
      for (std::uint32_t i = 0; i < len; ++i) mean[i] += c[std::size_t(t) * len + i];
      ++used;
    }
    for (std::uint32_t i = 0; i < len; ++i) mean[i] /= float(used);
    for (std::uint32_t t = 0; t < n; ++t) {
      for (std::uint32_t i = 0; i < len; ++i) c[std::size_t(t) * len + i] -= mean[i];
    }
  }
  auto at = [&](long t, std::uint32_t i) {
    t = std::clamp(t, 0L, long(n) - 1);
    return c[std::size_t(t) * len + i];
  };
  std::vector<float> out(std::size_t(n) * 3 * len);
  for (long t = 0; t < long(n); ++t) {
    for (std::uint32_t i = 0; i < len; ++i) {
      float* f = out.data() + std::size_t(t) * 3 * len;
      f[i] = at(t, i);
      f[len + i] = at(t + 2, i) - at(t - 2, i);
      f[2 * len + i] = (at(t + 3, i) - at(t - 1, i)) - (at(t + 1, i) - at(t - 3, i));
    }
  }
  return out;
}

TEST(MfcFeaturesTest, FeaturesEqualTheFormulasBitForBitForAnyLengthAndFrameCount) {
  std::uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return float(std::int32_t(state >> 8) - (1 << 23)) / 65536.0f;  // about -128 .. 128, many digits
  };
  for (const std::uint32_t len : {13u, 12u, 20u, 1u}) {
    for (const std::uint32_t n : {1u, 2u, 3u, 5u, 6u, 7u, 8u, 9u, 57u}) {
      for (const bool cmn : {true, false}) {
        SCOPED_TRACE("ceplen " + std::to_string(len) + ", " + std::to_string(n) + " frames, cmn " + (cmn ? "batch" : "none"));
        Cepstra cep;
        cep.ceplen = len;
        cep.n_frames = n;
        for (std::size_t k = 0; k < std::size_t(n) * len; ++k) cep.data.push_back(next());
        cep.data[0] = std::fabs(cep.data[0]);  // at least one frame with c0 >= 0
        FeatureOptions options;
        options.ceplen = len;
        options.cmn = cmn ? CmnMode::kBatch : CmnMode::kNone;
        const Features features = ComputeFeatures(cep, options, "utt.mfc");
        const std::vector<float> expected = ReferenceFeatures(cep, cmn);
        ASSERT_EQ(features.dim, 3 * len);
        ASSERT_EQ(features.data.size(), expected.size());
        EXPECT_EQ(std::memcmp(features.data.data(), expected.data(), expected.size() * sizeof(float)), 0);
      }
    }
  }
}

TEST(MfcFeaturesTest, SingleFrameUtteranceHasZeroDeltas) {
  const Cepstra cep = MakeCepstra(1, [](std::uint32_t, std::uint32_t i) { return float(i) + 1.0f; });
  FeatureOptions options;
  options.cmn = CmnMode::kNone;
  const Features features = ComputeFeatures(cep, options, "one.mfc");
  ASSERT_EQ(features.n_frames, 1u);
  for (std::uint32_t i = 0; i < kCeplen; ++i) {
    EXPECT_EQ(features.frame(0)[i], float(i) + 1.0f);
    EXPECT_EQ(features.frame(0)[kCeplen + i], 0.0f);
    EXPECT_EQ(features.frame(0)[2 * kCeplen + i], 0.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// -cmn values

TEST(MfcFeaturesTest, ParseCmnModeAcceptsBatchCurrentAndNone) {
  EXPECT_EQ(ParseCmnMode("batch"), CmnMode::kBatch);
  EXPECT_EQ(ParseCmnMode("current"), CmnMode::kBatch);
  EXPECT_EQ(ParseCmnMode("none"), CmnMode::kNone);
}

TEST(MfcFeaturesTest, ParseCmnModeRefusesLiveAndExplainsWhy) {
  for (const char* value : {"live", "prior"}) {
    SCOPED_TRACE(value);
    const std::string message = InputErrorMessage([&] { ParseCmnMode(value); });
    EXPECT_THAT(message, HasSubstr(value));
    EXPECT_THAT(message, HasSubstr("not supported"));
    EXPECT_THAT(message, HasSubstr("running mean"));  // why: state carried between utterances
    EXPECT_THAT(message, HasSubstr("shard"));         // why it matters here
    EXPECT_THAT(message, HasSubstr("batch"));         // what to use instead
  }
}

TEST(MfcFeaturesTest, ParseCmnModeRejectsUnknownValues) {
  for (const char* value : {"", "Batch", "mean", "current "}) {
    SCOPED_TRACE(value);
    const std::string message = InputErrorMessage([&] { ParseCmnMode(value); });
    EXPECT_THAT(message, HasSubstr("unknown value"));
  }
}

}  // namespace
}  // namespace pstrain
