// Tests for the s3 binary container and the model files built on it (trainer/formats/s3_file.h,
// param_files.h), the text mdef (mdef.h), feat.params and the noise dictionary, against the model
// files shipped with pocketsphinx (an4_ci_cont): byte-identical round trips, the checksum, both byte
// orders, and a corruption table whose errors must name the file and the problem; the writers'
// clamp of tiny magnitudes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/dictionary.h"
#include "formats/feat_params.h"
#include "formats/mdef.h"
#include "formats/param_files.h"
#include "formats/s3_file.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Bytes = std::vector<std::uint8_t>;

const fs::path kAn4Dir = "/usr/share/pocketsphinx/test/data/an4_ci_cont";

using test::InputErrorMessage;

// The shipped file, or a test failure naming the package that provides it.
Bytes ShippedBytes(const std::string& name) {
  const fs::path path = kAn4Dir / name;
  if (!fs::is_regular_file(path)) {
    ADD_FAILURE() << path << " is missing: install the Debian package pocketsphinx-testdata";
    return {};
  }
  return ReadFileBytes(path);
}

std::string AsText(const Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

void WriteBytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}
void WriteText(const fs::path& path, const std::string& text) { WriteBytes(path, Bytes(text.begin(), text.end())); }

// A per-test scratch directory, removed afterwards.
class S3FormatsScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("pstrain-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// Byte-identical round trips of every shipped an4_ci_cont file.

TEST(S3FormatsShippedModelTest, GaussianFilesRoundTripByteIdentically) {
  for (const char* name : {"means", "variances"}) {
    SCOPED_TRACE(name);
    const Bytes original = ShippedBytes(name);
    ASSERT_EQ(original.size(), 15980u);  // 44 header+magic, 3 dims + veclen, count, 3978 floats, checksum
    const GaussianParams params = ReadGaussianFile((kAn4Dir / name).string());
    EXPECT_EQ(params.n_mgau, 102u);
    EXPECT_EQ(params.n_feat, 1u);
    EXPECT_EQ(params.n_density, 1u);
    EXPECT_EQ(params.veclen, std::vector<std::uint32_t>{39});
    EXPECT_EQ(params.data.size(), 102u * 39u);
    EXPECT_TRUE(EncodeGaussianFile(params) == original) << name << " does not re-encode to the same bytes";
  }
}

TEST(S3FormatsShippedModelTest, Array3DFilesRoundTripByteIdentically) {
  struct Case {
    const char* name;
    std::uint32_t d1, d2, d3;
    std::size_t size;
  };
  const Case cases[] = {
      {"mixture_weights", 102, 1, 1, 472},      // [n_mixw][n_feat][n_density]
      {"transition_matrices", 34, 3, 4, 1696},  // [n_tmat][n_emit][n_emit + 1]
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Bytes original = ShippedBytes(c.name);
    ASSERT_EQ(original.size(), c.size);
    const Array3D array = ReadArray3DFile((kAn4Dir / c.name).string());
    EXPECT_EQ(array.d1, c.d1);
    EXPECT_EQ(array.d2, c.d2);
    EXPECT_EQ(array.d3, c.d3);
    EXPECT_EQ(array.data.size(), std::size_t(c.d1) * c.d2 * c.d3);
    EXPECT_TRUE(EncodeArray3DFile(array) == original) << c.name << " does not re-encode to the same bytes";
  }
}

TEST(S3FormatsShippedModelTest, ShippedTransitionMatricesAreLinearThreeStateTopology) {
  const Array3D tmat = ReadArray3DFile((kAn4Dir / "transition_matrices").string());
  ASSERT_EQ(tmat.d3, 4u);
  for (std::uint32_t t = 0; t < tmat.d1; ++t) {
    for (std::uint32_t from = 0; from < tmat.d2; ++from) {
      for (std::uint32_t to = 0; to < tmat.d3; ++to) {
        const bool allowed = to == from || to == from + 1;  // self loop or next state (incl. the exit)
        EXPECT_EQ(tmat.at(t, from, to) > 0.0f, allowed) << "tmat " << t << " " << from << "->" << to;
      }
    }
  }
}

TEST(S3FormatsShippedModelTest, MdefRoundTripsByteIdentically) {
  const Bytes original = ShippedBytes("mdef");
  const Mdef mdef = Mdef::Load((kAn4Dir / "mdef").string());
  EXPECT_EQ(mdef.n_ci_phones(), 34u);
  EXPECT_EQ(mdef.n_triphones(), 0u);
  EXPECT_EQ(mdef.n_tied_state(), 102u);
  EXPECT_EQ(mdef.n_tied_ci_state(), 102u);
  EXPECT_EQ(mdef.n_tied_tmat(), 34u);
  EXPECT_EQ(mdef.n_emit_state(), 3u);
  ASSERT_TRUE(mdef.CiPhone("SIL").has_value());
  EXPECT_TRUE(mdef.phones()[*mdef.CiPhone("SIL")].is_filler);
  EXPECT_FALSE(mdef.phones()[*mdef.CiPhone("AA")].is_filler);
  EXPECT_EQ(mdef.Serialize(), AsText(original));
}

TEST(S3FormatsShippedModelTest, FeatParamsRoundTripsByteIdentically) {
  const Bytes original = ShippedBytes("feat.params");
  const FeatParams params = FeatParams::Load((kAn4Dir / "feat.params").string());
  EXPECT_EQ(params.Get("feat"), "1s_c_d_dd");
  EXPECT_EQ(params.Get("cmn"), "current");
  EXPECT_EQ(params.Get("nfilt"), "40");
  EXPECT_FALSE(params.Get("lowerf ").has_value());
  EXPECT_EQ(params.entries().size(), 7u);
  EXPECT_EQ(params.Serialize(), AsText(original));
}

TEST(S3FormatsShippedModelTest, NoisedictHasThreeSilenceFillers) {
  ShippedBytes("noisedict");
  const Dictionary noise = Dictionary::Load((kAn4Dir / "noisedict").string(), /*is_filler=*/true);
  ASSERT_EQ(noise.size(), 3u);
  for (const char* word : {"<s>", "</s>", "<sil>"}) {
    SCOPED_TRACE(word);
    const Pronunciation* pron = noise.Find(word);
    ASSERT_NE(pron, nullptr);
    EXPECT_EQ(pron->phones, std::vector<std::string>{"SIL"});
    EXPECT_TRUE(pron->is_filler);
  }
  EXPECT_TRUE(noise.duplicates().empty());
}

// ---------------------------------------------------------------------------------------------
// The s3 container: header layout, checksum, byte orders.

TEST(S3FormatsContainerTest, ShippedMeansHeaderIsTheStandardFortyBytes) {
  const Bytes original = ShippedBytes("means");
  ASSERT_GE(original.size(), 44u);
  // "s3\nversion 1.0\nchksum0 yes\n" (27 bytes) + 6 spaces + "endhdr\n": the magic starts at 40.
  EXPECT_EQ(AsText(Bytes(original.begin(), original.begin() + 40)), "s3\nversion 1.0\nchksum0 yes\n      endhdr\n");
  EXPECT_EQ(AsText(Bytes(original.begin() + 40, original.begin() + 44)), std::string("\x44\x33\x22\x11", 4));
  const S3File file = ParseS3(original, "means");
  EXPECT_EQ(file.header, StandardS3Header());
  EXPECT_EQ(file.byte_order, ByteOrder::kLittle);
  EXPECT_TRUE(file.has_checksum);
  EXPECT_EQ(file.words.size(), (15980u - 44u - 4u) / 4u);  // payload words without the checksum
}

TEST(S3FormatsContainerTest, ChecksumKnownAnswers) {
  // sum = rotl32(sum, 20) + word, from sum = 0:
  //   {1, 2, 3}: 0 -> 0x00000001 -> rotl(1,20) = 0x00100000, +2 = 0x00100002
  //              -> rotl(0x00100002,20) = (0x00000002 << 20 = 0x00200000) | (0x00100002 >> 12 = 0x100)
  //                 = 0x00200100, +3 = 0x00200103
  //   {0xFFFFFFFF, 1}: rotl(0xFFFFFFFF,20) = 0xFFFFFFFF, +1 wraps to 0
  //   {1.0f, 1.0f} as bits 0x3F800000: rotl(0x3F800000,20) = 0x0003F800 (the low 12 bits are 0),
  //              + 0x3F800000 = 0x3F83F800
  //   {0x12345678, 0}: rotl(0x12345678,20) = 0x67812345
  struct Case {
    const char* name;
    std::vector<std::uint32_t> words;
    std::uint32_t expected;
  };
  const Case cases[] = {
      {"empty", {}, 0u},
      {"one two three", {1, 2, 3}, 0x00200103u},
      {"wraparound", {0xFFFFFFFFu, 1}, 0u},
      {"float bits", {FloatBits(1.0f), FloatBits(1.0f)}, 0x3F83F800u},
      {"rotation of a mixed word", {0x12345678u, 0}, 0x67812345u},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(S3Checksum(c.words), c.expected);
  }
}

TEST(S3FormatsContainerTest, EncodedFileEndsWithTheChecksumOfThePayload) {
  S3File file;
  file.header = StandardS3Header();
  file.has_checksum = true;
  file.words = {1, 2, 3};
  const Bytes bytes = EncodeS3(file);
  // 40 header bytes, magic, three words, checksum 0x00200103 (little-endian).
  ASSERT_EQ(bytes.size(), 40u + 4u + 12u + 4u);
  const Bytes tail(bytes.end() - 4, bytes.end());
  EXPECT_EQ(tail, (Bytes{0x03, 0x01, 0x20, 0x00}));
  const S3File parsed = ParseS3(bytes, "mem");
  EXPECT_EQ(parsed.words, file.words);
}

TEST(S3FormatsContainerTest, HeaderPaddingPutsTheMagicOnAnEightByteBoundary) {
  for (const std::string& value : {std::string("1"), std::string("12"), std::string("1234567"), std::string("12345678")}) {
    SCOPED_TRACE(value);
    S3File file;
    file.header = {{"version", "1.0"}, {"comment", value}, {"chksum0", "yes"}};
    file.has_checksum = true;
    file.words = {7};
    const Bytes bytes = EncodeS3(file);
    const std::string text = AsText(bytes);
    const std::size_t magic = text.find("endhdr\n") + 7;
    EXPECT_EQ(magic % 8, 0u);
    const S3File parsed = ParseS3(bytes, "mem");
    EXPECT_EQ(parsed.header, file.header);
    EXPECT_EQ(parsed.words, file.words);
  }
}

TEST_F(S3FormatsScratchTest, BigEndianFilesParseToTheSameValues) {
  const GaussianParams means = ReadGaussianFile((kAn4Dir / "means").string());
  const Array3D tmat = ReadArray3DFile((kAn4Dir / "transition_matrices").string());
  GaudenCounts counts;
  counts.has_means = counts.has_vars = true;
  counts.pass2var = true;
  counts.n_cb = 2;
  counts.n_density = 1;
  counts.veclen = {3};
  counts.mean = {1.5f, -2.25f, 3.0f, 0.0f, 1e-3f, -7.0f};
  counts.var = {0.5f, 0.25f, 4.0f, 1.0f, 2.0f, 3.0f};
  counts.dnom = {10.0f, 0.125f};

  const struct {
    const char* name;
    Bytes little;
    std::function<void(const std::string&)> check;
  } cases[] = {
      {"means", EncodeGaussianFile(means),
       [&](const std::string& path) {
         const GaussianParams back = ReadGaussianFile(path);
         EXPECT_TRUE(back.SameShape(means));
         EXPECT_EQ(back.data, means.data);
       }},
      {"transition_matrices", EncodeArray3DFile(tmat),
       [&](const std::string& path) {
         const Array3D back = ReadArray3DFile(path);
         EXPECT_EQ(back.d1, tmat.d1);
         EXPECT_EQ(back.d2, tmat.d2);
         EXPECT_EQ(back.d3, tmat.d3);
         EXPECT_EQ(back.data, tmat.data);
       }},
      {"gauden_counts", EncodeGaudenCountsFile(counts),
       [&](const std::string& path) {
         const GaudenCounts back = ReadGaudenCountsFile(path);
         EXPECT_TRUE(back.has_means);
         EXPECT_TRUE(back.has_vars);
         EXPECT_TRUE(back.pass2var);
         EXPECT_EQ(back.n_cb, counts.n_cb);
         EXPECT_EQ(back.n_density, counts.n_density);
         EXPECT_EQ(back.veclen, counts.veclen);
         EXPECT_EQ(back.mean, counts.mean);
         EXPECT_EQ(back.var, counts.var);
         EXPECT_EQ(back.dnom, counts.dnom);
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    S3File file = ParseS3(c.little, c.name);
    ASSERT_EQ(file.byte_order, ByteOrder::kLittle);
    file.byte_order = ByteOrder::kBig;
    const Bytes big = EncodeS3(file);
    ASSERT_EQ(big.size(), c.little.size());
    EXPECT_EQ(Bytes(big.begin() + 40, big.begin() + 44), (Bytes{0x11, 0x22, 0x33, 0x44}));
    EXPECT_NE(big, c.little);
    // Every word of the big-endian file is the byte-reversed little-endian word.
    for (std::size_t pos = 40; pos + 4 <= big.size(); pos += 4) {
      ASSERT_EQ(big[pos], c.little[pos + 3]) << "byte " << pos;
      ASSERT_EQ(big[pos + 3], c.little[pos]) << "byte " << pos;
    }
    const S3File parsed = ParseS3(big, c.name);
    EXPECT_EQ(parsed.byte_order, ByteOrder::kBig);
    EXPECT_EQ(parsed.words, file.words);
    EXPECT_EQ(EncodeS3(parsed), big);  // a big-endian file re-encodes to itself
    const fs::path path = dir_ / c.name;
    WriteBytes(path, big);
    c.check(path.string());
  }
}

TEST(S3FormatsContainerTest, GaudenCountsWithoutMeansOrVarsRoundTrip) {
  for (const bool has_means : {false, true}) {
    for (const bool has_vars : {false, true}) {
      SCOPED_TRACE(std::string("has_means=") + (has_means ? "1" : "0") + " has_vars=" + (has_vars ? "1" : "0"));
      GaudenCounts counts;
      counts.has_means = has_means;
      counts.has_vars = has_vars;
      counts.n_cb = 1;
      counts.n_density = 2;
      counts.veclen = {2};
      if (has_means) counts.mean = {1, 2, 3, 4};
      if (has_vars) counts.var = {5, 6, 7, 8};
      counts.dnom = {9, 10};
      const Bytes bytes = EncodeGaudenCountsFile(counts);
      const S3File file = ParseS3(bytes, "mem");
      // flags(3) + n_cb + n_density + n_feat + veclen + [n + 4] + [n + 4] + dnom dims(3) + n + 2
      EXPECT_EQ(file.words.size(), 7u + (has_means ? 5u : 0u) + (has_vars ? 5u : 0u) + 6u);
      EXPECT_EQ(EncodeS3(file), bytes);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Corruption table: every error names the file and the problem.

// Returns a copy of the payload words of a little-endian s3 file.
std::vector<std::uint32_t> Words(const Bytes& bytes) { return ParseS3(bytes, "mem").words; }

Bytes Reencode(std::vector<std::uint32_t> words, std::vector<std::pair<std::string, std::string>> header = StandardS3Header()) {
  S3File file;
  file.header = std::move(header);
  file.has_checksum = true;
  for (const auto& [key, value] : file.header) {
    if (key == "chksum0") file.has_checksum = value == "yes";
  }
  file.words = std::move(words);
  return EncodeS3(file);
}

std::string ReplaceFirst(std::string text, const std::string& from, const std::string& to) {
  const std::size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// The streamed encoder gives EncodeS3's bytes whatever the length: around every piece boundary,
// and with the sink's pieces never above kPieceBytes.
TEST(S3FormatsContainerTest, StreamEncoderGivesTheWholeEncodersBytes) {
  const std::size_t piece_words = S3StreamEncoder::kPieceBytes / 4;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, piece_words - 12, piece_words - 11, piece_words - 10, piece_words - 1,
                              piece_words, piece_words + 1, 3 * piece_words + 5}) {
    SCOPED_TRACE(n);
    std::vector<std::uint32_t> words(n);
    for (std::size_t i = 0; i < n; ++i) words[i] = static_cast<std::uint32_t>(i * 2654435761u + 17u);
    Bytes streamed;
    std::size_t largest_piece = 0;
    S3StreamEncoder encoder([&](const void* data, std::size_t size) {
      const auto* bytes = static_cast<const std::uint8_t*>(data);
      streamed.insert(streamed.end(), bytes, bytes + size);
      largest_piece = std::max(largest_piece, size);
    });
    for (const std::uint32_t w : words) encoder.Word(w);
    encoder.Finish();
    EXPECT_EQ(streamed, Reencode(words));
    EXPECT_LE(largest_piece, S3StreamEncoder::kPieceBytes);
  }
}

// gauden_counts streamed from doubles: the bytes of EncodeGaudenCountsFile of the float32 values
// bw writes (ClampTinyMagnitude of each), for either variance kind, a file larger than a piece,
// and values that round, clamp or stay zero.
TEST(S3FormatsContainerTest, GaudenCountsFromDoublesAreTheEncodersBytes) {
  const std::uint32_t n_cb = 37, n_density = 8, veclen = 39;
  const std::size_t n_dens = std::size_t(n_cb) * n_density, n_values = n_dens * veclen;
  std::vector<double> mean(n_values), var(n_values), dnom(n_dens);
  for (std::size_t i = 0; i < n_values; ++i) {
    mean[i] = std::ldexp(static_cast<double>(i % 97) - 48.3, static_cast<int>(i % 150) - 100) / 3.0;  // signs, tiny ones, exponents
    var[i] = i % 11 == 0 ? 0.0 : static_cast<double>(i) / 7.0;
  }
  for (std::size_t i = 0; i < n_dens; ++i) dnom[i] = i % 5 == 0 ? 1e-50 : static_cast<double>(i) * 0.1;
  auto clamped = [](const std::vector<double>& values) {
    std::vector<float> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = ClampTinyMagnitude(static_cast<float>(values[i]));
    return out;
  };
  for (const bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var);
    GaudenCounts counts;
    counts.has_means = counts.has_vars = true;
    counts.pass2var = pass2var;
    counts.n_cb = n_cb;
    counts.n_density = n_density;
    counts.veclen = {veclen};
    counts.mean = clamped(mean);
    counts.var = clamped(var);
    counts.dnom = clamped(dnom);
    Bytes streamed;
    EmitGaudenCountsFromDoubles(n_cb, n_density, veclen, pass2var, mean.data(), var.data(), dnom.data(),
                                [&](const void* data, std::size_t size) {
                                  const auto* bytes = static_cast<const std::uint8_t*>(data);
                                  streamed.insert(streamed.end(), bytes, bytes + size);
                                });
    const Bytes whole = EncodeGaudenCountsFile(counts);
    EXPECT_GT(whole.size(), S3StreamEncoder::kPieceBytes);
    EXPECT_EQ(streamed, whole);
  }
}

// The model files' encoders (through S3StreamEncoder, one buffer) give EncodeS3's bytes of the
// words S3Builder lays out: for files smaller and larger than a piece, several feature streams,
// and no values at all.
TEST(S3FormatsContainerTest, ModelFileEncodersGiveTheBuildersBytes) {
  const auto values = [](std::size_t n) {
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(std::ldexp(static_cast<double>(i % 89) - 44.5, static_cast<int>(i % 60) - 30));
    return out;
  };
  for (const std::vector<std::uint32_t>& veclen : {std::vector<std::uint32_t>{39}, std::vector<std::uint32_t>{13, 13, 13}, std::vector<std::uint32_t>{}}) {
    for (const std::uint32_t n_mgau : {0u, 3u, 602u}) {
      GaussianParams p;
      p.n_mgau = n_mgau;
      p.n_feat = static_cast<std::uint32_t>(veclen.size());
      p.n_density = 8;
      p.veclen = veclen;
      std::uint32_t total = 0;
      for (std::uint32_t v : veclen) total += v;
      p.data = values(std::size_t(n_mgau) * p.n_density * total);
      S3Builder builder;
      for (const std::uint32_t word : {p.n_mgau, p.n_feat, p.n_density}) builder.U32(word);
      for (const std::uint32_t v : p.veclen) builder.U32(v);
      builder.FloatArray1D(p.data);
      SCOPED_TRACE(std::to_string(veclen.size()) + " streams, " + std::to_string(n_mgau) + " codebooks");
      EXPECT_EQ(EncodeGaussianFile(p), EncodeS3(builder.file()));
    }
  }
  for (const std::uint32_t d1 : {0u, 1u, 602u, 9000u}) {
    Array3D a;
    a.d1 = d1;
    a.d2 = 1;
    a.d3 = 8;
    a.data = values(std::size_t(d1) * 8);
    S3Builder builder;
    for (const std::uint32_t word : {a.d1, a.d2, a.d3}) builder.U32(word);
    builder.FloatArray1D(a.data);
    SCOPED_TRACE(d1);
    EXPECT_EQ(EncodeArray3DFile(a), EncodeS3(builder.file()));
  }
  EXPECT_EQ(StandardS3HeaderBytes(), Reencode({}).size() - 8);  // (the byte-order magic and the checksum)
}

TEST_F(S3FormatsScratchTest, CorruptS3FilesAreRejectedWithTheFileAndTheProblem) {
  const Bytes means = ShippedBytes("means");
  ASSERT_EQ(means.size(), 15980u);
  const Bytes mixw = ShippedBytes("mixture_weights");
  ASSERT_EQ(mixw.size(), 472u);
  const Bytes tmat = ShippedBytes("transition_matrices");

  enum class Reader { kGaussian, kArray3D };
  struct Case {
    const char* name;
    Reader reader;
    Bytes bytes;
    std::vector<std::string> expected;  // substrings of the message (besides the file path)
  };
  auto flip = [](Bytes bytes, std::size_t pos) {
    bytes.at(pos) ^= 0x10;
    return bytes;
  };
  auto truncate = [](const Bytes& bytes, std::size_t size) { return Bytes(bytes.begin(), bytes.begin() + size); };
  auto text_edit = [](const Bytes& bytes, const std::string& from, const std::string& to) {
    const std::string text = ReplaceFirst(AsText(bytes), from, to);
    return Bytes(text.begin(), text.end());
  };

  // Payload-level corruptions with a valid checksum, so that the structure check itself fires.
  std::vector<std::uint32_t> means_words = Words(means);
  std::vector<std::uint32_t> more_densities = means_words;
  more_densities[2] = 2;  // n_density 1 -> 2: 102*2*39 values expected, 3978 present
  std::vector<std::uint32_t> wrong_count = means_words;
  wrong_count[4] = 3977;  // the count word after n_mgau, n_feat, n_density, veclen
  std::vector<std::uint32_t> extra_word = means_words;
  extra_word.push_back(0);
  std::vector<std::uint32_t> mixw_words = Words(mixw);
  std::vector<std::uint32_t> mixw_dims = mixw_words;
  mixw_dims[0] = 101;  // d1 = 101, count still 102
  std::vector<std::uint32_t> short_payload(means_words.begin(), means_words.end() - 10);

  std::vector<std::pair<std::string, std::string>> no_checksum_header = {{"version", "1.0"}, {"chksum0", "no"}};

  const Case cases[] = {
      // A flipped byte anywhere after the header is caught by the checksum.
      {"flipped byte in the float data", Reader::kGaussian, flip(means, 44 + 5 * 4 + 1000), {"checksum"}},
      {"flipped byte in a dimension", Reader::kGaussian, flip(means, 44 + 4), {"checksum"}},
      {"flipped byte in the checksum", Reader::kGaussian, flip(means, means.size() - 2), {"checksum"}},
      {"flipped byte in mixture weights", Reader::kArray3D, flip(mixw, 200), {"checksum"}},
      {"flipped byte in transition matrices", Reader::kArray3D, flip(tmat, tmat.size() - 100), {"checksum"}},
      // Truncation at several offsets.
      {"truncated inside the first header line", Reader::kGaussian, truncate(means, 3), {"truncated"}},
      {"truncated inside the header", Reader::kGaussian, truncate(means, 10), {"truncated"}},
      {"truncated inside the endhdr padding", Reader::kGaussian, truncate(means, 30), {"truncated"}},
      {"truncated before the magic", Reader::kGaussian, truncate(means, 40), {"truncated"}},
      {"truncated inside the magic", Reader::kGaussian, truncate(means, 42), {"truncated"}},
      {"truncated after the magic", Reader::kGaussian, truncate(means, 44), {"truncated"}},
      {"truncated inside a payload word", Reader::kGaussian, truncate(means, 1003), {"truncated", "multiple of 4"}},
      {"truncated at a payload word boundary", Reader::kGaussian, truncate(means, 8000), {"checksum", "truncated"}},
      {"checksum word missing", Reader::kGaussian, truncate(means, means.size() - 4), {"checksum", "truncated"}},
      {"truncated mixture weights", Reader::kArray3D, truncate(mixw, 100), {"truncated"}},
      {"truncated payload without a checksum", Reader::kGaussian, Reencode(short_payload, no_checksum_header),
       {"truncated", "parameter data"}},
      // Header problems.
      {"wrong version", Reader::kGaussian, text_edit(means, "version 1.0", "version 0.1"), {"version", "0.1"}},
      {"no version key", Reader::kGaussian, text_edit(means, "version 1.0\n", "verzion 1.0\n"), {"version"}},
      {"not an s3 file", Reader::kGaussian, text_edit(means, "s3\n", "s4\n"), {"not an s3"}},
      {"bad magic", Reader::kGaussian, text_edit(means, std::string("\x44\x33\x22\x11", 4), std::string("\x44\x33\x22\x12", 4)),
       {"magic"}},
      // Dimensions that do not match the element count (checksums valid).
      {"n_density does not match the count", Reader::kGaussian, Reencode(more_densities), {"does not match"}},
      {"count does not match the dims", Reader::kGaussian, Reencode(wrong_count), {"does not match", "3977"}},
      {"array d1 does not match the count", Reader::kArray3D, Reencode(mixw_dims), {"does not match"}},
      {"extra payload word", Reader::kGaussian, Reencode(extra_word), {"wrong size"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir_ / "corrupt_file";
    WriteBytes(path, c.bytes);
    const std::string message = InputErrorMessage([&] {
      if (c.reader == Reader::kGaussian) ReadGaussianFile(path.string());
      else ReadArray3DFile(path.string());
    });
    EXPECT_THAT(message, HasSubstr(path.string()));
    for (const std::string& expected : c.expected) EXPECT_THAT(message, HasSubstr(expected));
  }
}

TEST_F(S3FormatsScratchTest, MissingFileIsAnInputErrorNamingIt) {
  const fs::path path = dir_ / "no_such_means";
  const std::string message = InputErrorMessage([&] { ReadGaussianFile(path.string()); });
  EXPECT_THAT(message, HasSubstr(path.string()));
}

// Two codebooks of one density of 2 dimensions, with means and variances.
GaudenCounts SmallGaudenCounts(bool pass2var) {
  GaudenCounts counts;
  counts.has_means = counts.has_vars = true;
  counts.pass2var = pass2var;
  counts.n_cb = 2;
  counts.n_density = 1;
  counts.veclen = {2};
  counts.mean = {1, 2, 3, 4};
  counts.var = {5, 6, 7, 8};
  counts.dnom = {9, 10};
  return counts;
}

TEST_F(S3FormatsScratchTest, CorruptGaudenCountsAreRejected) {
  const GaudenCounts counts = SmallGaudenCounts(false);
  const std::vector<std::uint32_t> words = Words(EncodeGaudenCountsFile(counts));
  // Layout: has_means has_vars pass2var n_cb n_density n_feat veclen | n mean[4] | n var[4] | d1 d2 d3 n dnom[2]
  std::vector<std::uint32_t> bad_flag = words;
  bad_flag[2] = 7;
  std::vector<std::uint32_t> bad_dnom_dims = words;
  bad_dnom_dims[17] = 3;  // dnom d1 = 3 but n_cb = 2
  std::vector<std::uint32_t> bad_mean_count = words;
  bad_mean_count[7] = 5;
  struct Case {
    const char* name;
    std::vector<std::uint32_t> words;
    std::string expected;
  };
  const Case cases[] = {
      {"flag that is not 0 or 1", bad_flag, "pass2var"},
      {"dnom dims differ from the codebooks", bad_dnom_dims, "do not match"},
      {"mean count differs from the dims", bad_mean_count, "does not match"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir_ / "gauden_counts";
    WriteBytes(path, Reencode(c.words));
    const std::string message = InputErrorMessage([&] { ReadGaudenCountsFile(path.string()); });
    EXPECT_THAT(message, HasSubstr(path.string()));
    EXPECT_THAT(message, HasSubstr(c.expected));
  }
}

// The check-only readers a shard's validation uses (CheckGaudenCountsFile, CheckArray3DFile) read
// the file forward in pieces and give the decoders' verdict with the decoders' message on every
// file: the valid ones (both byte orders, with and without a checksum, a header line longer than a
// piece), each truncation, each flipped byte, and each payload word replaced (checksum valid). Each
// reader gives every byte of the file to its sink once, in order, whatever its verdict, in pieces
// of any size (one byte; three, so that words straddle pieces; the default).
TEST_F(S3FormatsScratchTest, CheckOnlyReadersGiveTheDecodersVerdicts) {
  const GaudenCounts counts = SmallGaudenCounts(true);
  Array3D mixw;
  mixw.d1 = 2;
  mixw.d2 = 1;
  mixw.d3 = 3;
  mixw.data = {0.5f, 1, 2, 3, 4, 5};
  // The reader's outcome: "" when it accepts the file, else its message.
  const auto outcome = [](const std::function<void()>& read) -> std::string {
    try {
      read();
      return "";
    } catch (const InputError& error) {
      return error.what();
    }
  };
  using Check = void (*)(const fs::path&, const ByteSink&, std::size_t);
  const struct {
    const char* name;
    Bytes bytes;
    std::function<void(const Bytes&, const std::string&)> decode;
    Check check;
  } files[] = {
      {"gauden_counts", EncodeGaudenCountsFile(counts), [](const Bytes& b, const std::string& p) { DecodeGaudenCountsFile(b, p); },
       &CheckGaudenCountsFile},
      {"mixw_counts", EncodeArray3DFile(mixw), [](const Bytes& b, const std::string& p) { DecodeArray3DFile(b, p); }, &CheckArray3DFile},
  };
  const fs::path path = dir_ / "counts";
  for (const auto& file : files) {
    SCOPED_TRACE(file.name);
    const std::vector<std::uint32_t> words = Words(file.bytes);
    S3File big_endian = ParseS3(file.bytes, "f");
    big_endian.byte_order = ByteOrder::kBig;
    S3File big_endian_without_checksum = big_endian;
    big_endian_without_checksum.header = {{"version", "1.0"}};
    big_endian_without_checksum.has_checksum = false;
    std::vector<Bytes> variants = {file.bytes, EncodeS3(big_endian), EncodeS3(big_endian_without_checksum),
                                   Reencode(words, {{"version", "1.0"}}),
                                   Reencode(words, {{"version", "1.0"}, {"comment", std::string(300, 'x')}, {"chksum0", "yes"}})};
    for (std::size_t size = 0; size < file.bytes.size(); ++size) variants.emplace_back(file.bytes.begin(), file.bytes.begin() + static_cast<long>(size));
    for (std::size_t pos = 0; pos < file.bytes.size(); ++pos) {
      variants.push_back(file.bytes);
      variants.back()[pos] ^= 0x10;
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
      for (const std::uint32_t value : {0u, 1u, 3u, 7u, words[i] + 1, 0xFFFFFFFFu}) {
        std::vector<std::uint32_t> changed = words;
        changed[i] = value;
        variants.push_back(Reencode(changed));
        variants.push_back(Reencode(changed, {{"version", "1.0"}}));
      }
    }
    std::vector<std::uint32_t> longer = words;
    longer.push_back(0);
    variants.push_back(Reencode(longer));
    std::size_t accepted = 0;
    for (std::size_t v = 0; v < variants.size(); ++v) {
      WriteBytes(path, variants[v]);
      const std::string decoded = outcome([&] { file.decode(variants[v], path.string()); });
      for (const std::size_t piece : {std::size_t{1}, std::size_t{3}, kS3StreamPieceBytes}) {
        Bytes given;
        const ByteSink sink = [&](const void* data, std::size_t size) {
          given.insert(given.end(), static_cast<const std::uint8_t*>(data), static_cast<const std::uint8_t*>(data) + size);
        };
        EXPECT_EQ(outcome([&] { file.check(path, sink, piece); }), decoded) << "variant " << v << ", pieces of " << piece;
        EXPECT_EQ(given, variants[v]) << "variant " << v << ", pieces of " << piece;
      }
      accepted += decoded.empty() ? 1 : 0;
    }
    EXPECT_GE(accepted, 5u) << "the valid files";
    EXPECT_LT(accepted, variants.size() / 2) << "most variants are rejected";
  }
}

// ---------------------------------------------------------------------------------------------
// mdef errors.

TEST_F(S3FormatsScratchTest, BrokenMdefsAreRejectedWithTheFileAndTheProblem) {
  const std::string original = AsText(ShippedBytes("mdef"));
  ASSERT_FALSE(original.empty());
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  ASSERT_NE(original.find(last_ci_row), std::string::npos);

  struct Case {
    const char* name;
    std::string text;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"n_base says 34 but 33 rows follow", ReplaceFirst(original, last_ci_row, ""), {"missing phone", "34"}},
      {"triphone context is not a CI phone",
       ReplaceFirst(ReplaceFirst(ReplaceFirst(original, "0 n_tri\n", "1 n_tri\n"), "136 n_state_map", "140 n_state_map"),
                    last_ci_row, last_ci_row + "   AA  XX   B i    n/a    0    0    1    2    N\n"),
       {"XX", "not a defined CI phone"}},
      {"binary mdef", "BMDF\x01\x02\x03\x04 binary junk", {"not supported", "BMDF"}},
      {"senone id out of range", ReplaceFirst(original, "33   99  100  101", "33   99  100  102"), {"senone", "102", "out of range"}},
      {"tmat id out of range", ReplaceFirst(original, "33   99  100  101", "34   99  100  101"), {"tmat", "out of range"}},
      {"wrong version", ReplaceFirst(original, "\n0.3\n", "\n0.2\n"), {"0.3"}},
      {"row without the N column", ReplaceFirst(original, "33   99  100  101    N", "33   99  100  101"), {"non-emitting"}},
      {"empty file", "", {"empty"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir_ / "mdef";
    WriteText(path, c.text);
    const std::string message = InputErrorMessage([&] { Mdef::Load(path.string()); });
    EXPECT_THAT(message, HasSubstr(path.string()));
    for (const std::string& expected : c.expected) EXPECT_THAT(message, HasSubstr(expected));
  }
}

TEST(S3FormatsMdefTest, ValidTriphoneRowIsParsedAndSerialized) {
  const std::string original = AsText(ShippedBytes("mdef"));
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  const std::string text =
      ReplaceFirst(ReplaceFirst(ReplaceFirst(ReplaceFirst(original, "0 n_tri\n", "1 n_tri\n"), "136 n_state_map", "140 n_state_map"),
                                "102 n_tied_state", "105 n_tied_state"),
                   last_ci_row, last_ci_row + "   AA   B   K i    n/a    0  102  103  104    N\n");
  const Mdef mdef = Mdef::Parse(text, "mdef");
  ASSERT_EQ(mdef.n_triphones(), 1u);
  const auto id = mdef.Triphone("AA", "B", "K", WordPosition::kInternal);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(*id, 34u);
  const std::vector<std::uint32_t> senones(mdef.Senones(*id).begin(), mdef.Senones(*id).end());
  EXPECT_EQ(senones, (std::vector<std::uint32_t>{102, 103, 104}));
  EXPECT_EQ(mdef.phones()[*id].base, *mdef.CiPhone("AA"));
  EXPECT_EQ(mdef.Name(mdef.phones()[*id].left), "B");
  EXPECT_EQ(mdef.Name(mdef.phones()[*id].right), "K");
  EXPECT_EQ(mdef.Attributes(mdef.phones()[*id]), "n/a");
  EXPECT_EQ(mdef.SenoneCiPhone(103), *mdef.CiPhone("AA"));
  EXPECT_FALSE(mdef.Triphone("AA", "B", "K", WordPosition::kBegin).has_value());
  EXPECT_EQ(mdef.Serialize(), text);
}


// The triphone table is filled row by row as the file is read: every row is found again, a row
// defined twice is reported at its second line, and a header that declares fewer triphones than
// follow (the table then grows past its planned size) is refused by the count check, not a hang.
TEST(S3FormatsMdefTest, ManyTriphonesAreFoundAndTheirCountIsChecked) {
  const std::string original = AsText(ShippedBytes("mdef"));
  const Mdef ci = Mdef::Parse(original, "mdef");
  const auto name = [&](std::uint32_t id) { return std::string(ci.Name(id)); };
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  std::string rows;
  std::vector<std::array<std::uint32_t, 3>> made;
  for (std::uint32_t b = 0; b < 6; ++b) {
    for (std::uint32_t l = 0; l < 5; ++l) {
      for (std::uint32_t r = 0; r < 4; ++r) {
        rows += name(b) + " " + name(l + 6) + " " + name(r + 11) + " i n/a 0 0 1 2 N\n";
        made.push_back({b, l + 6, r + 11});
      }
    }
  }
  const auto with_rows = [&](std::size_t declared, const std::string& extra) {
    return ReplaceFirst(ReplaceFirst(ReplaceFirst(original, "0 n_tri\n", std::to_string(declared) + " n_tri\n"), "136 n_state_map",
                                     std::to_string((34 + declared) * 4) + " n_state_map"),
                        last_ci_row, last_ci_row + rows + extra);
  };
  const Mdef mdef = Mdef::Parse(with_rows(made.size(), ""), "mdef");
  ASSERT_EQ(mdef.n_triphones(), made.size());
  for (std::size_t i = 0; i < made.size(); ++i) {
    const auto id = mdef.Triphone(made[i][0], made[i][1], made[i][2], WordPosition::kInternal);
    ASSERT_TRUE(id.has_value()) << "row " << i;
    EXPECT_EQ(*id, 34 + i);
  }
  EXPECT_FALSE(mdef.Triphone(made[0][0], made[0][1], made[0][2], WordPosition::kBegin).has_value());

  const std::string twice = InputErrorMessage([&] {
    Mdef::Parse(with_rows(made.size() + 1, name(3) + " " + name(7) + " " + name(12) + " i n/a 0 0 1 2 N\n"), "mdef");
  });
  EXPECT_THAT(twice, HasSubstr("triphone is defined twice"));
  const std::size_t duplicate_line = std::count(original.begin(), original.end(), '\n') + made.size() + 1;
  EXPECT_THAT(twice, HasSubstr("mdef:" + std::to_string(duplicate_line) + ":"));

  const std::string undeclared = InputErrorMessage([&] { Mdef::Parse(with_rows(2, ""), "mdef"); });
  EXPECT_THAT(undeclared, HasSubstr("header declares 34 CI phones and 2 triphones, but 154 phone rows follow"));
}

// More CI phones than the name table's first size (64 slots, at most half full), with names of
// every length from 3 to 16 bytes: each is found by its name, names that differ in one byte or in
// length are not, and a name defined twice is refused.
TEST(S3FormatsMdefTest, ManyCiPhonesAreFoundByName) {
  constexpr std::uint32_t kPhones = 150;
  const auto name = [](std::uint32_t id) {
    std::string n = "P";  // (appended to, not "P" + ...: GCC 12's -Wrestrict false positive)
    n.append(id % 12, char('a' + id % 26));
    return n + std::to_string(id) + ".";
  };
  const auto mdef_text = [&](const std::string& last_name) {
    std::string text = "0.3\n" + std::to_string(kPhones) + " n_base\n0 n_tri\n" + std::to_string(kPhones * 4) +
                       " n_state_map\n" + std::to_string(kPhones * 3) + " n_tied_state\n" + std::to_string(kPhones * 3) +
                       " n_tied_ci_state\n" + std::to_string(kPhones) + " n_tied_tmat\n";
    for (std::uint32_t id = 0; id < kPhones; ++id) {
      text += (id + 1 == kPhones ? last_name : name(id)) + " - - - n/a " + std::to_string(id) + " " + std::to_string(3 * id) + " " +
              std::to_string(3 * id + 1) + " " + std::to_string(3 * id + 2) + " N\n";
    }
    return text;
  };
  const Mdef mdef = Mdef::Parse(mdef_text(name(kPhones - 1)), "mdef");
  ASSERT_EQ(mdef.n_ci_phones(), kPhones);
  for (std::uint32_t id = 0; id < kPhones; ++id) {
    const std::string n = name(id);
    ASSERT_EQ(mdef.CiPhone(n), std::optional<std::uint32_t>(id)) << n;
    EXPECT_EQ(mdef.Name(id), n);
    EXPECT_FALSE(mdef.CiPhone(n + "x").has_value()) << n;
    EXPECT_FALSE(mdef.CiPhone(n + std::string(1, '\0')).has_value()) << n;  // (a name's key pads with zeros)
    EXPECT_FALSE(mdef.CiPhone(n.substr(0, n.size() - 1)).has_value()) << n;
    std::string changed = n;
    changed[0] = 'Q';
    EXPECT_FALSE(mdef.CiPhone(changed).has_value()) << n;
  }
  EXPECT_FALSE(mdef.CiPhone("").has_value());

  // Names that differ only past their eighth byte, or only by a trailing NUL, are different phones.
  std::string text = "0.3\n5 n_base\n0 n_tri\n20 n_state_map\n15 n_tied_state\n15 n_tied_ci_state\n5 n_tied_tmat\n";
  const std::vector<std::string> close = {"LONGNAME_1", "LONGNAME_2", "LONGNAME_12", "a", std::string("a") + '\0'};
  for (std::uint32_t id = 0; id < close.size(); ++id) {
    text += close[id] + " - - - n/a " + std::to_string(id) + " " + std::to_string(3 * id) + " " + std::to_string(3 * id + 1) +
            " " + std::to_string(3 * id + 2) + " N\n";
  }
  const Mdef near = Mdef::Parse(text, "mdef");
  for (std::uint32_t id = 0; id < close.size(); ++id) EXPECT_EQ(near.CiPhone(close[id]), std::optional<std::uint32_t>(id));
  EXPECT_FALSE(near.CiPhone("LONGNAME_3").has_value());
  EXPECT_FALSE(near.CiPhone("LONGNAME_21").has_value());
  const std::string twice = InputErrorMessage([&] { Mdef::Parse(mdef_text(name(97)), "mdef"); });
  EXPECT_THAT(twice, HasSubstr("CI phone \"" + name(97) + "\" is defined twice"));
  EXPECT_THAT(twice, HasSubstr("mdef:" + std::to_string(7 + kPhones) + ":"));
}

// The row separators `in >> token` skips (tab, vertical tab, form feed, runs of blanks) separate
// tokens, and the file is still written in mk_mdef_gen's layout.
TEST(S3FormatsMdefTest, AnyWhitespaceSeparatesTokens) {
  const std::string original = AsText(ShippedBytes("mdef"));
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  ASSERT_NE(original.find(last_ci_row), std::string::npos);
  const Mdef mdef = Mdef::Parse(ReplaceFirst(original, last_ci_row, "Z\t-\v-  -\fn/a 33\t\t99 100 101 N\n"), "mdef");
  EXPECT_EQ(mdef.Name(mdef.phones().back().base), "Z");
  const std::span<const std::uint32_t> senones = mdef.Senones(mdef.phones().back());
  EXPECT_EQ(std::vector<std::uint32_t>(senones.begin(), senones.end()), (std::vector<std::uint32_t>{99, 100, 101}));
  EXPECT_EQ(mdef.Serialize(), original);
}

// Names and attribute lists wider than their columns are written whole (printf's %5s), however
// long the row: the serializer once formatted a row into a 64-byte buffer and cut it there.
TEST(S3FormatsMdefTest, LongNamesAndAttributesAreWrittenWhole) {
  const std::string original = AsText(ShippedBytes("mdef"));
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  const std::string long_name(70, 'Z');
  const std::string attributes = "filler,a_very_long_attribute_list,that,does,not,fit,six,columns";
  const std::string row = long_name + "   -   - - " + attributes + "   33   99  100  101    N\n";
  const std::string text = ReplaceFirst(original, last_ci_row, row);
  const Mdef mdef = Mdef::Parse(text, "mdef");
  EXPECT_EQ(mdef.Name(mdef.phones().back().base), long_name);
  EXPECT_EQ(mdef.Attributes(mdef.phones().back()), attributes);
  EXPECT_TRUE(mdef.phones().back().is_filler);
  EXPECT_EQ(mdef.Serialize(), text);
  EXPECT_EQ(Mdef::Parse(mdef.Serialize(), "mdef").Serialize(), text);
}

// "filler" counts only as a whole comma-separated attribute.
TEST(S3FormatsMdefTest, FillerIsAWholeAttribute) {
  const std::string original = AsText(ShippedBytes("mdef"));
  const std::string last_ci_row = "    Z   -   - -    n/a   33   99  100  101    N\n";
  for (const auto& [attributes, filler] : std::vector<std::pair<std::string, bool>>{
           {"filler", true}, {"n/a,filler", true}, {"filler,x", true}, {",filler", true}, {"fillers", false},
           {"nofiller", false}, {"fil,ler", false}, {"n/a", false}}) {
    SCOPED_TRACE(attributes);
    const Mdef mdef = Mdef::Parse(ReplaceFirst(original, last_ci_row, "Z - - - " + attributes + " 33 99 100 101 N\n"), "mdef");
    EXPECT_EQ(mdef.phones().back().is_filler, filler);
  }
}

// SphinxTrain's writers: a non-zero magnitude below MIN_POS_FLOAT32 becomes MIN_POS_FLOAT32 with
// the value's sign; zeros of either sign, larger values, infinities and NaN pass unchanged.
TEST(S3FormatsClampTest, TinyMagnitudesAreRaisedWithTheirSign) {
  const float tiny = kMinPosFloat32 / 4.0f, denormal = std::numeric_limits<float>::denorm_min();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Case {
    float in, want;
  };
  for (const Case c : {Case{tiny, kMinPosFloat32}, Case{-tiny, -kMinPosFloat32}, Case{denormal, kMinPosFloat32},
                       Case{-denormal, -kMinPosFloat32}, Case{0.0f, 0.0f}, Case{-0.0f, -0.0f}, Case{kMinPosFloat32, kMinPosFloat32},
                       Case{-kMinPosFloat32, -kMinPosFloat32}, Case{1.5f, 1.5f}, Case{-2e-30f, -2e-30f}, Case{inf, inf}, Case{-inf, -inf}}) {
    const float got = ClampTinyMagnitude(c.in);
    EXPECT_EQ(std::memcmp(&got, &c.want, sizeof got), 0) << c.in << " gave " << got << ", want " << c.want;
  }
  EXPECT_TRUE(std::isnan(ClampTinyMagnitude(nan)));
}

}  // namespace
}  // namespace pstrain
