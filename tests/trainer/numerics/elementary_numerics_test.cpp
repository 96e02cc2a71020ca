// The project's Exp and Log against MPFR (correctly rounded at 160 bits), and the bit-identity of
// every instruction-set level's vector kernels with the scalar code.
//
// Samples: PSTRAIN_MPFR_SAMPLES per range (default 200,000; the nightly runs 10,000,000). The worst
// error found is printed (and recorded in docs/numerics.md).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "numerics/elementary.h"
#include "numerics/elementary_constants.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain::numerics {
namespace {

std::size_t Samples() {
  const char* value = std::getenv("PSTRAIN_MPFR_SAMPLES");
  return value != nullptr ? std::strtoull(value, nullptr, 10) : 200000;
}

std::uint64_t BitsOf(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The error of `got` in units in the last place of the correctly rounded result (the ulp of the
// binade of the exact value; for subnormal results the subnormal spacing 2^-1074).
class UlpMeter {
 public:
  UlpMeter() { mpfr_inits2(160, x_, exact_, diff_, (mpfr_ptr)0); }
  ~UlpMeter() { mpfr_clears(x_, exact_, diff_, (mpfr_ptr)0); }
  double Error(double input, double got, int (*fn)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t)) {
    mpfr_set_d(x_, input, MPFR_RNDN);
    fn(exact_, x_, MPFR_RNDN);
    const double rounded = mpfr_get_d(exact_, MPFR_RNDN);
    if (std::isinf(rounded) || std::isnan(rounded) || rounded == 0.0) return got == rounded ? 0.0 : 1e9;
    int exponent = 0;
    std::frexp(rounded, &exponent);  // rounded = f 2^exponent, f in [0.5, 1)
    const int ulp_exponent = std::max(exponent - 53, -1074);
    mpfr_set_d(diff_, got, MPFR_RNDN);
    mpfr_sub(diff_, diff_, exact_, MPFR_RNDN);
    mpfr_mul_2si(diff_, diff_, -ulp_exponent, MPFR_RNDN);
    return std::fabs(mpfr_get_d(diff_, MPFR_RNDN));
  }

 private:
  mpfr_t x_, exact_, diff_;
};

struct Worst {
  double ulps = 0.0;
  double input = 0.0;
  void Add(double error, double x) {
    if (error > ulps) {
      ulps = error;
      input = x;
    }
  }
};

TEST(Elementary, ConstantsAreMpfrRounded) {
  mpfr_t v, t;
  mpfr_inits2(256, v, t, (mpfr_ptr)0);
  for (int j = 0; j < 64; ++j) {
    mpfr_set_si(t, j, MPFR_RNDN);
    mpfr_div_ui(t, t, 64, MPFR_RNDN);
    mpfr_ui_pow(v, 2, t, MPFR_RNDN);
    const double hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(t, v, hi, MPFR_RNDN);
    EXPECT_EQ(BitsOf(constants::kExp2Table[2 * j]), BitsOf(hi)) << "2^(" << j << "/64) hi";
    EXPECT_EQ(BitsOf(constants::kExp2Table[2 * j + 1]), BitsOf(mpfr_get_d(t, MPFR_RNDN))) << "2^(" << j << "/64) lo";
  }
  mpfr_const_log2(v, MPFR_RNDN);
  mpfr_sub_d(t, v, constants::kLn2Hi, MPFR_RNDN);
  EXPECT_EQ(BitsOf(constants::kLn2Lo), BitsOf(mpfr_get_d(t, MPFR_RNDN)));
  // k * kLn2Hi exact for |k| < 2^11, k * kLn2By64Hi for |k| < 2^18: few enough significant bits.
  EXPECT_EQ(BitsOf(constants::kLn2Hi) & ((std::uint64_t{1} << 11) - 1), 0u);
  EXPECT_EQ(BitsOf(constants::kLn2By64Hi) & ((std::uint64_t{1} << 18) - 1), 0u);
  mpfr_clears(v, t, (mpfr_ptr)0);
}

TEST(Elementary, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(BitsOf(Exp(0.0)), BitsOf(1.0));
  EXPECT_EQ(BitsOf(Exp(-0.0)), BitsOf(1.0));
  EXPECT_EQ(Exp(inf), inf);
  EXPECT_EQ(BitsOf(Exp(-inf)), BitsOf(0.0));
  EXPECT_EQ(Exp(710.0), inf);
  EXPECT_EQ(BitsOf(Exp(-746.0)), BitsOf(0.0));
  EXPECT_GT(Exp(709.7), 1e308);
  EXPECT_GT(Exp(-745.0), 0.0);  // the smallest subnormal range
  EXPECT_TRUE(std::isnan(Exp(nan)));
  EXPECT_EQ(BitsOf(Log(1.0)), BitsOf(0.0));
  EXPECT_EQ(Log(0.0), -inf);
  EXPECT_EQ(Log(-0.0), -inf);
  EXPECT_EQ(Log(inf), inf);
  EXPECT_TRUE(std::isnan(Log(-1.0)));
  EXPECT_TRUE(std::isnan(Log(-inf)));
  EXPECT_TRUE(std::isnan(Log(nan)));
  EXPECT_EQ(Log(2.0), constants::kLn2Hi + constants::kLn2Lo);
  // The smallest subnormal and the largest double.
  UlpMeter meter;
  EXPECT_LT(meter.Error(4.9406564584124654e-324, Log(4.9406564584124654e-324), mpfr_log), 1.0);
  EXPECT_LT(meter.Error(std::numeric_limits<double>::max(), Log(std::numeric_limits<double>::max()), mpfr_log), 1.0);
}

// Inputs of the trainer: exp of log densities minus the frame scale (at most 10, down to -inf),
// log of scale factors, likelihoods and variances (any positive double).
TEST(Elementary, ExpWithinOneUlpOfMpfr) {
  const std::size_t n = Samples();
  std::mt19937_64 rng(20261201);
  UlpMeter meter;
  struct Range {
    double lo, hi;
  };
  const Range ranges[] = {{-745.2, 10.0}, {-1.0, 1.0}, {-0.01, 0.01}, {-745.2, -708.0}, {700.0, 709.8}};
  for (const Range& range : ranges) {
    Worst worst;
    std::uniform_real_distribution<double> dist(range.lo, range.hi);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = dist(rng);
      worst.Add(meter.Error(x, Exp(x), mpfr_exp), x);
    }
    std::printf("Exp on [%g, %g]: worst error %.4f ulp at x = %a (%zu samples)\n", range.lo, range.hi, worst.ulps, worst.input, n);
    EXPECT_LT(worst.ulps, 1.0) << "at x = " << worst.input;
  }
}

TEST(Elementary, LogWithinOneUlpOfMpfr) {
  const std::size_t n = Samples();
  std::mt19937_64 rng(20261202);
  UlpMeter meter;
  Worst worst;
  // Uniform in the exponent (every binade, subnormals included), uniform around 1.
  std::uniform_real_distribution<double> exponent(-1074.0, 1024.0);
  std::uniform_real_distribution<double> near_one(0.9, 1.1);
  std::uniform_int_distribution<std::uint64_t> any_bits(1, 0x7fefffffffffffffULL);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = std::ldexp(1.0 + near_one(rng) - 0.9, static_cast<int>(exponent(rng)));
    const double b = near_one(rng);
    std::uint64_t bits = any_bits(rng);
    double c;
    std::memcpy(&c, &bits, sizeof c);
    for (const double x : {a, b, c}) {
      if (!(x > 0.0) || std::isinf(x)) continue;
      worst.Add(meter.Error(x, Log(x), mpfr_log), x);
    }
  }
  std::printf("Log: worst error %.4f ulp at x = %a (%zu samples in each of 3 ranges)\n", worst.ulps, worst.input, n);
  EXPECT_LT(worst.ulps, 1.0) << "at x = " << worst.input;
}

// Every level's vector exp gives the scalar Exp's bits, including the special values and the
// lengths that leave a tail.
TEST(VectorKernels, EveryLevelGivesTheScalarBits) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-760.0, 20.0);
  std::vector<double> in(100003);
  for (double& v : in) v = dist(rng);
  // Positive values of every magnitude for the log kernel (the exp inputs above are mostly negative).
  std::uniform_real_distribution<double> magnitude(-1074.0, 1023.0);
  for (std::size_t i = 50000; i < in.size(); ++i) in[i] = std::ldexp(1.0 + std::fabs(dist(rng)) / 800.0, static_cast<int>(magnitude(rng)));
  // The kernel gets in - shift, so the last eight are the clamp's bounds (+-800) and the overflow
  // and underflow thresholds (709.78..., -745.13...) themselves, and their neighbours, after it.
  const double shift = -3.25;
  const double specials[] = {0.0, -0.0, 1e-300, -1e-300, 709.78, 709.79, -745.13, -745.14, 800.0, -800.0, 1e300, -1e300,
                             std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             800.0 + shift, std::nextafter(800.0 + shift, 1e9), std::nextafter(800.0 + shift, 0.0),
                             -800.0 + shift, std::nextafter(-800.0 + shift, -1e9), std::nextafter(-800.0 + shift, 0.0),
                             709.782712893384 + shift, -745.1332191019412 + shift};
  std::copy(std::begin(specials), std::end(specials), in.begin());
  std::vector<double> expected(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) expected[i] = Exp(in[i] - shift);

  // Grouped distances: 7 groups of 4 densities (the vector kernels take 2 groups at a time, then
  // 1), 39 dimensions, values of trained models.
  const std::uint32_t veclen = 39, n_groups = 7;
  std::vector<float> x(veclen), mean(std::size_t(n_groups) * veclen * 4);
  std::vector<double> precision(mean.size());  // float32 values held as double, as the model's layout
  std::normal_distribution<float> gauss(0.0f, 3.0f);
  for (float& v : x) v = gauss(rng);
  for (float& v : mean) v = gauss(rng);
  for (double& v : precision) v = static_cast<float>(1.0 / (2.0 * (0.01 + std::fabs(gauss(rng)))));
  // float32 values held as double, as AcousticModel::PairPrecision holds them
  std::vector<double> pair_precision(mean.size());
  for (std::size_t i = 0; i < pair_precision.size(); ++i) {
    pair_precision[i] = static_cast<double>(static_cast<float>(precision[(i * 7) % precision.size()]));
  }
  std::vector<double> expected_dist(std::size_t(n_groups) * 4);
  KernelsFor(IsaLevel::kScalar).grouped_distances(x.data(), mean.data(), precision.data(), veclen, n_groups, expected_dist.data());
  for (std::uint32_t g = 0; g < n_groups; ++g) {
    for (std::uint32_t j = 0; j < 4; ++j) {
      double d = 0.0;  // one density at a time, as forward_backward/gaussian_eval.h computes it
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const std::size_t at = (std::size_t(g) * veclen + l) * 4 + j;
        const double diff = x[l] - mean[at];
        d += precision[at] * diff * diff;
      }
      EXPECT_EQ(BitsOf(expected_dist[g * 4 + j]), BitsOf(d));
    }
  }

  for (const IsaLevel level : SupportedIsaLevels()) {
    SCOPED_TRACE(std::string(IsaName(level)));
    const VectorKernels& kernels = KernelsFor(level);
    // Every length below, at and around the lanes (2, 4 or 8) and a frame's few dozen, into a
    // separate array and in place (the statistics gatherer's call), from an offset start.
    for (const std::size_t n : {in.size(), std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4},
                                std::size_t{5}, std::size_t{6}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{15},
                                std::size_t{16}, std::size_t{17}, std::size_t{41}}) {
      for (const bool in_place : {false, true}) {
        const std::size_t first = n < in.size() ? 3 : 0;
        // Runs `kernel` (in, out, n) and counts the values whose bits differ from want(input), and
        // the element after the last, which must stay as it was (a short call's masked store).
        const auto mismatches = [&](const auto& kernel, const auto& want) {
          std::vector<double> out(n + 1, -1.0);
          if (in_place) std::copy(in.begin() + first, in.begin() + first + n, out.begin());
          out[n] = 12345.0;
          kernel(in_place ? out.data() : in.data() + first, out.data());
          std::size_t count = out[n] == 12345.0 ? 0 : 1;
          for (std::size_t i = 0; i < n; ++i) {
            const double w = want(first + i);
            count += BitsOf(out[i]) != BitsOf(w) && !(std::isnan(out[i]) && std::isnan(w));
          }
          return count;
        };
        EXPECT_EQ(mismatches([&](const double* from, double* to) { kernels.exp_shifted(from, shift, to, n); },
                             [&](std::size_t i) { return expected[i]; }),
                  0u)
            << "exp, n = " << n << (in_place ? ", in place" : "");
        EXPECT_EQ(mismatches([&](const double* from, double* to) { kernels.log(from, to, n); },
                             [&](std::size_t i) { return Log(in[i]); }),
                  0u)
            << "log, n = " << n << (in_place ? ", in place" : "");
      }
    }
    // Frame statistics, one- and two-pass variance, from non-zero sums, for 39 dimensions and every
    // length up to 17 (each tail of the 2-, 4- and 8-lane loops), over 1, 2, 3 and 7 frames of
    // different features; the element after the last dimension must stay untouched. The scalar
    // level's n frames must also be its n single frames one after another (the order the sums
    // depend on).
    // Gammas with a full significand: (g * d) * d and g * (d * d) round apart (with 0.375 they had not).
    const std::vector<double> gammas = {0.3718281828459045, 1.4142135623730951, 0.0577215664901533, 2.718281828459045e-7,
                                        0.6931471805599453, 3.141592653589793, 0.5772156649015329};
    std::vector<std::vector<float>> rows(gammas.size(), std::vector<float>(veclen));
    for (std::vector<float>& row : rows) {
      for (float& v : row) v = gauss(rng);
    }
    std::vector<const float*> xs;
    for (const std::vector<float>& row : rows) xs.push_back(row.data());
    const VectorKernels& reference = KernelsFor(IsaLevel::kScalar);
    for (const std::size_t n_frames : {std::size_t{1}, std::size_t{2}, std::size_t{3}, gammas.size()}) {
      for (const std::uint32_t acc_veclen : {veclen, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u, 16u, 17u}) {
        for (const bool two_pass : {false, true}) {
          SCOPED_TRACE(testing::Message() << n_frames << " frames, veclen " << acc_veclen << " two_pass " << two_pass);
          std::vector<double> mean_want(acc_veclen + 1, 0.25), var_want(acc_veclen + 1, 1.5);
          for (std::uint32_t l = 0; l < acc_veclen; ++l) {
            mean_want[l] += 0.125 * l;
            var_want[l] += 0.0625 * l;
          }
          std::vector<double> mean_got = mean_want, var_got = var_want, mean_one = mean_want, var_one = var_want;
          const float* input_mean = two_pass ? mean.data() + 5 : nullptr;
          reference.accumulate_frames(gammas.data(), xs.data(), n_frames, input_mean, mean_want.data(), var_want.data(), acc_veclen, false);
          for (std::size_t f = 0; f < n_frames; ++f) {
            reference.accumulate_frames(&gammas[f], &xs[f], 1, input_mean, mean_one.data(), var_one.data(), acc_veclen, false);
          }
          kernels.accumulate_frames(gammas.data(), xs.data(), n_frames, input_mean, mean_got.data(), var_got.data(), acc_veclen, false);
          for (std::uint32_t l = 0; l <= acc_veclen; ++l) {
            EXPECT_EQ(BitsOf(mean_want[l]), BitsOf(mean_one[l])) << "dim " << l;
            EXPECT_EQ(BitsOf(var_want[l]), BitsOf(var_one[l])) << "dim " << l;
            EXPECT_EQ(BitsOf(mean_got[l]), BitsOf(mean_want[l])) << "dim " << l;
            EXPECT_EQ(BitsOf(var_got[l]), BitsOf(var_want[l])) << "dim " << l;
          }
          EXPECT_EQ(mean_got[acc_veclen], 0.25);
          EXPECT_EQ(var_got[acc_veclen], 1.5);
        }
      }
    }
    // Fresh sums (a density's first frame in an utterance): the bits of zeroed sums accumulated,
    // whatever the arrays held, with products of -0.0 (dimensions of -0.0, and a gamma so small
    // that gamma * x underflows to -0.0 for a small negative x) giving +0.0 as 0.0 + (-0.0) does.
    // -0.0 in the first lane of every chunk and tail the levels make of the lengths below (2, 4
    // and 8 lanes, avx512's chunk of four and its masked tail, the one-at-a-time tails).
    std::vector<float> x_signed = x;
    for (const std::uint32_t l : {0u, 3u, 4u, 8u, 11u, 12u, 16u, 24u, 32u}) x_signed[l] = -0.0f;
    x_signed[veclen - 1] = -0.0f;  // the last dimension of the 39
    x_signed[5] = -0.25f;          // times the smallest gamma: -0.0
    const float* fresh_xs[] = {x_signed.data(), rows[0].data(), x_signed.data()};
    for (const double fresh_gamma : {gammas[0], std::numeric_limits<double>::denorm_min()}) {
      for (const std::size_t n_frames : {std::size_t{1}, std::size_t{3}}) {
        const double fresh_gammas[] = {fresh_gamma, gammas[1], fresh_gamma};
        for (const std::uint32_t acc_veclen : {veclen, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u, 16u, 17u}) {
          for (const bool two_pass : {false, true}) {
            const float* input_mean = two_pass ? mean.data() + 5 : nullptr;
            std::vector<double> mean_want(acc_veclen + 1, 0.0), var_want(acc_veclen + 1, 0.0);
            mean_want[acc_veclen] = var_want[acc_veclen] = 7.0;
            reference.accumulate_frames(fresh_gammas, fresh_xs, n_frames, input_mean, mean_want.data(), var_want.data(), acc_veclen, false);
            std::vector<double> mean_got(acc_veclen + 1, -12.5), var_got(acc_veclen + 1, std::numeric_limits<double>::quiet_NaN());
            mean_got[acc_veclen] = var_got[acc_veclen] = 7.0;
            kernels.accumulate_frames(fresh_gammas, fresh_xs, n_frames, input_mean, mean_got.data(), var_got.data(), acc_veclen, true);
            std::size_t negative_zeros = 0;
            for (std::uint32_t l = 0; l <= acc_veclen; ++l) {
              SCOPED_TRACE(testing::Message() << "fresh, gamma " << fresh_gamma << ", " << n_frames << " frames, veclen " << acc_veclen
                                              << " dim " << l);
              EXPECT_EQ(BitsOf(mean_got[l]), BitsOf(mean_want[l]));
              EXPECT_EQ(BitsOf(var_got[l]), BitsOf(var_want[l]));
              negative_zeros += std::signbit(mean_got[l]) && mean_got[l] == 0.0;
            }
            EXPECT_EQ(negative_zeros, 0u);
          }
        }
      }
    }
    // (The products the rule is about occur in these inputs: -0.0 with either gamma, and with the
    // smallest one also from a negative dimension of magnitude below 0.5.)
    std::size_t negative_zero_products = 0;
    for (const float xl : x_signed) {
      const double product = std::numeric_limits<double>::denorm_min() * double(xl);
      negative_zero_products += std::signbit(product) && product == 0.0;
    }
    EXPECT_GT(negative_zero_products, 10u);
    // Pair distances: densities anywhere in memory, in any order, every count 1..20 (every short
    // last group of the 4- and 8-density loops), against EvaluateLogDensity's loop over the same
    // float32 values; with 39 dimensions and with lengths below, at and around the kernels' blocks
    // of four.
    for (const std::uint32_t pair_veclen : {veclen, 1u, 3u, 4u, 5u, 8u, 13u}) {
      for (std::size_t n = 1; n <= 20; ++n) {
        std::vector<const float*> means(n);
        std::vector<const double*> precisions(n);
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t at = ((i * 5 + 3) % n_groups) * veclen * 4 + i % 4;  // a stretch of `mean`, not aligned
          means[i] = mean.data() + at;
          precisions[i] = pair_precision.data() + at;
          double d = 0.0;
          for (std::uint32_t l = 0; l < pair_veclen; ++l) {
            const double diff = x[l] - means[i][l];
            d += precisions[i][l] * diff * diff;
          }
          want[i] = d;
        }
        std::vector<double> got(n, -1.0);
        kernels.pair_distances(x.data(), means.data(), precisions.data(), pair_veclen, n, got.data());
        for (std::size_t i = 0; i < n; ++i) {
          EXPECT_EQ(BitsOf(got[i]), BitsOf(want[i])) << "pair distances, veclen " << pair_veclen << ", n = " << n << ", " << i;
        }
      }
    }
    // Every count of groups from 1 to 7: the 2-group loop with and without a last single group.
    for (std::uint32_t groups = 1; groups <= n_groups; ++groups) {
      std::vector<double> dist_out(std::size_t(groups) * 4, -1.0);
      kernels.grouped_distances(x.data(), mean.data(), precision.data(), veclen, groups, dist_out.data());
      for (std::size_t i = 0; i < dist_out.size(); ++i) {
        EXPECT_EQ(BitsOf(dist_out[i]), BitsOf(expected_dist[i])) << groups << " groups, value " << i;
      }
    }
  }
}

// The distances of groups of 8 densities ([dim][8], a model with a multiple of 8 densities): every
// level gives each density's one-at-a-time bits, and the same bits as the groups of 4 (the same
// densities laid out [dim][4]), over 1 to 5 groups (the avx512 level's two-group loop with and
// without a last single group), two groups anywhere (two senones: a stride of either sign) and two
// dimensions (39, 13).
TEST(VectorKernels, GroupsOfEightGiveTheOneDensityBits) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> gauss(0.0f, 3.0f);
  constexpr std::uint32_t kMaxGroups = 5;
  for (const std::uint32_t veclen : {39u, 13u}) {
    SCOPED_TRACE("veclen " + std::to_string(veclen));
    std::vector<float> x(veclen), mean8(std::size_t(kMaxGroups) * veclen * 8), mean4(mean8.size());
    std::vector<double> precision8(mean8.size()), precision4(mean8.size());
    for (float& v : x) v = gauss(rng);
    for (float& v : mean8) v = gauss(rng);
    for (double& v : precision8) v = static_cast<float>(1.0 / (2.0 * (0.01 + std::fabs(gauss(rng)))));
    // Density 8g + j, dimension l: [g][l][8] here, [2g + j / 4][l][4] for the groups of 4.
    std::vector<double> want(std::size_t(kMaxGroups) * 8);
    for (std::uint32_t g = 0; g < kMaxGroups; ++g) {
      for (std::uint32_t j = 0; j < 8; ++j) {
        double d = 0.0;
        for (std::uint32_t l = 0; l < veclen; ++l) {
          const std::size_t at8 = (std::size_t(g) * veclen + l) * 8 + j;
          const std::size_t at4 = ((std::size_t(2 * g + j / 4)) * veclen + l) * 4 + j % 4;
          mean4[at4] = mean8[at8];
          precision4[at4] = precision8[at8];
          const double diff = x[l] - mean8[at8];
          d += precision8[at8] * diff * diff;
        }
        want[std::size_t(g) * 8 + j] = d;
      }
    }
    for (const IsaLevel level : SupportedIsaLevels()) {
      SCOPED_TRACE(std::string(IsaName(level)));
      const VectorKernels& kernels = KernelsFor(level);
      for (std::uint32_t groups = 1; groups <= kMaxGroups; ++groups) {
        std::vector<double> got8(std::size_t(groups) * 8, -1.0), got4(got8.size(), -1.0);
        kernels.grouped8_distances(x.data(), mean8.data(), precision8.data(), veclen, groups, std::ptrdiff_t(veclen) * 8,
                                   got8.data());
        kernels.grouped_distances(x.data(), mean4.data(), precision4.data(), veclen, 2 * groups, got4.data());
        for (std::size_t i = 0; i < got8.size(); ++i) {
          EXPECT_EQ(BitsOf(got8[i]), BitsOf(want[i])) << groups << " groups of 8, density " << i;
          EXPECT_EQ(BitsOf(got4[i]), BitsOf(want[i])) << 2 * groups << " groups of 4, density " << i;
        }
      }
      // Two groups anywhere (two senones of 8): group 3 then group 1 (a negative stride), 4 then 0.
      for (const auto& [first, second] : {std::pair<std::size_t, std::size_t>{3, 1}, {4, 0}, {0, 2}}) {
        std::vector<double> got(16, -1.0);
        const std::ptrdiff_t stride = (std::ptrdiff_t(second) - std::ptrdiff_t(first)) * std::ptrdiff_t(veclen) * 8;
        const std::size_t at = first * veclen * 8;
        kernels.grouped8_distances(x.data(), mean8.data() + at, precision8.data() + at, veclen, 2, stride, got.data());
        for (std::size_t j = 0; j < 8; ++j) {
          EXPECT_EQ(BitsOf(got[j]), BitsOf(want[first * 8 + j])) << "groups " << first << ", " << second << ": density " << j;
          EXPECT_EQ(BitsOf(got[8 + j]), BitsOf(want[second * 8 + j])) << "groups " << first << ", " << second << ": density " << 8 + j;
        }
      }
    }
  }
}

TEST(Isa, SupportedLevelsAreBuiltAndStartWithScalar) {
  // Forcing a level (PSTRAIN_ISA) and its errors: PortableNumerics.ForcedLevelTheCpuLacksIsBadInput
  // and Gate.CrossMachineReproducibility, which run the binary.
  // The best supported level is the default; every supported level is in the build's list.
  const std::vector<IsaLevel> supported = SupportedIsaLevels();
  ASSERT_FALSE(supported.empty());
  EXPECT_EQ(supported.front(), IsaLevel::kScalar);
  const std::vector<IsaLevel> built = BuildIsaLevels();
  for (const IsaLevel level : supported) EXPECT_NE(std::find(built.begin(), built.end(), level), built.end());
  // Without PSTRAIN_ISA the process uses the best level the CPU has.
  if (std::getenv("PSTRAIN_ISA") == nullptr) {
    EXPECT_EQ(ActiveIsaLevel(), supported.back());
  }
}

// The avx512 level runs AVX2 code as well: a CPU (or a virtual machine's CPU model) showing
// AVX-512F without AVX2 gets avx2's absence and no avx512 level either.
TEST(Isa, Avx512LevelNeedsAvx2AndAvx512f) {
  using L = IsaLevel;
  EXPECT_EQ(X86IsaLevels({}), (std::vector<L>{L::kScalar, L::kSse2}));
  EXPECT_EQ(X86IsaLevels({.avx2 = true}), (std::vector<L>{L::kScalar, L::kSse2, L::kAvx2}));
  EXPECT_EQ(X86IsaLevels({.avx2 = false, .avx512f = true}), (std::vector<L>{L::kScalar, L::kSse2}));
  EXPECT_EQ(X86IsaLevels({.avx2 = true, .avx512f = true}), (std::vector<L>{L::kScalar, L::kSse2, L::kAvx2, L::kAvx512}));
}

}  // namespace
}  // namespace pstrain::numerics
