// Tests for the canonical corpus manifest (trainer/manifest/manifest.h).
#include "manifest/manifest.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/dictionary.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {
namespace fs = std::filesystem;

// Contents of the fake feature files and their SHA-256, computed once with
// `printf 'fake features 001' | sha256sum`.
constexpr char kFeatures001[] = "fake features 001";
constexpr char kFeatures002[] = "fake features 002";
constexpr char kSha001[] = "1c08f12d66eb90527b286b2bb40d7f48c387f6c548b1b6e2b402a2593c7e3863";
constexpr char kSha002[] = "edd4c13fa0c3072eaa40b9e5427d04be20b8755905c1d79c838ab2fa3788a135";

// A fixed manifest and its SHA-256, computed once with
//   printf 'pstrain-manifest 1 utterances=2\n001\tfeat/001.mfc\t%s\t<s> TEN OF CLUBS </s>\n'`
//          `'002\tfeat/002.mfc\t%s\t<s> FIVE OF(2) SPADES </s>\n' $SHA001 $SHA002 | sha256sum
const std::string kKnownBytes = std::string("pstrain-manifest 1 utterances=2\n") +
                                "001\tfeat/001.mfc\t" + kSha001 + "\t<s> TEN OF CLUBS </s>\n" +
                                "002\tfeat/002.mfc\t" + kSha002 + "\t<s> FIVE OF(2) SPADES </s>\n";
constexpr char kKnownFingerprint[] = "a018721da1766920c23f8fb8038f305a5ccba52f006432210e3306d7837ccb5a";

std::vector<ManifestEntry> KnownEntries() {
  return {
      {"001", "feat/001.mfc", {"<s>", "TEN", "OF", "CLUBS", "</s>"}, kSha001},
      {"002", "feat/002.mfc", {"<s>", "FIVE", "OF(2)", "SPADES", "</s>"}, kSha002},
  };
}

using test::InputErrorMessage;

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// A fresh directory per test holding a small corpus: corpus/feat/00{1,2}.mfc, train.fileids and
// train.transcription matching kKnownBytes.
class ManifestFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("pstrain_manifest_" + std::string(info->name()) + "_" +
                                             std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    corpus_ = dir_ / "corpus";
    fileids_ = dir_ / "train.fileids";
    transcription_ = dir_ / "train.transcription";
    WriteText(corpus_ / "feat" / "001.mfc", kFeatures001);
    WriteText(corpus_ / "feat" / "002.mfc", kFeatures002);
    WriteText(fileids_, "feat/001\nfeat/002\n");
    WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n<s> FIVE OF(2) SPADES </s> (002)\n");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  Manifest Import() const { return ImportSphinx(fileids_, transcription_, corpus_, "mfc"); }

  fs::path dir_;
  fs::path corpus_;
  fs::path fileids_;
  fs::path transcription_;
};

TEST(ManifestTest, SerializeGivesTheKnownBytesAndFingerprint) {
  const Manifest manifest(KnownEntries(), "test");
  EXPECT_EQ(manifest.Serialize(), kKnownBytes);
  EXPECT_EQ(manifest.Fingerprint(), kKnownFingerprint);
  EXPECT_EQ(Sha256Hex(kKnownBytes), kKnownFingerprint);
  EXPECT_EQ(manifest.size(), 2u);
}

TEST(ManifestTest, ParseThenSerializeIsTheIdentity) {
  const Manifest manifest = Manifest::Parse(kKnownBytes, "known.manifest");
  EXPECT_EQ(manifest.entries(), KnownEntries());
  EXPECT_EQ(manifest.Serialize(), kKnownBytes);
  EXPECT_EQ(manifest.Fingerprint(), kKnownFingerprint);
  EXPECT_EQ(manifest.source(), "known.manifest");

  // Also for a single utterance with non-ASCII UTF-8 words and a deep path.
  const std::string other = std::string("pstrain-manifest 1 utterances=1\n") + "spk/é-1\ta/b/c/d.mfc\t" + kSha001 +
                            "\t<s> CAFÉ 東京 </s>\n";
  EXPECT_EQ(Manifest::Parse(other, "other").Serialize(), other);
}

TEST(ManifestTest, FingerprintChangesWhenAnyFieldChanges) {
  using Mutation = void (*)(std::vector<ManifestEntry>&);
  const Mutation mutations[] = {
      [](std::vector<ManifestEntry>& e) { e[0].utt_id = "001a"; },
      [](std::vector<ManifestEntry>& e) { e[1].utt_id = "003"; },
      [](std::vector<ManifestEntry>& e) { e[0].feature_path = "feat/001.mfcc"; },
      [](std::vector<ManifestEntry>& e) { e[1].feature_path = "x/feat/002.mfc"; },
      [](std::vector<ManifestEntry>& e) { e[0].feature_sha256[63] = '4'; },
      [](std::vector<ManifestEntry>& e) { e[1].feature_sha256 = kSha001; },
      [](std::vector<ManifestEntry>& e) { e[0].words[1] = "TEN(2)"; },
      [](std::vector<ManifestEntry>& e) { e[0].words.pop_back(); },
      [](std::vector<ManifestEntry>& e) { e[0].words.push_back("X"); },
      [](std::vector<ManifestEntry>& e) { std::swap(e[0].words[1], e[0].words[2]); },
      [](std::vector<ManifestEntry>& e) { std::swap(e[0], e[1]); },  // training order matters
      [](std::vector<ManifestEntry>& e) { e.pop_back(); },
      [](std::vector<ManifestEntry>& e) { e.push_back({"003", "feat/003.mfc", {"A"}, kSha002}); },
      [](std::vector<ManifestEntry>& e) { e[0].words = {"<s>", "TENOF", "CLUBS", "</s>"}; },  // word boundaries
  };
  std::set<std::string> fingerprints = {kKnownFingerprint};
  for (std::size_t mutation_idx = 0; mutation_idx < std::size(mutations); ++mutation_idx) {
    SCOPED_TRACE(mutation_idx);
    std::vector<ManifestEntry> entries = KnownEntries();
    mutations[mutation_idx](entries);
    const Manifest manifest(entries, "test");
    EXPECT_TRUE(fingerprints.insert(manifest.Fingerprint()).second);
    // Every variant round-trips too.
    EXPECT_EQ(Manifest::Parse(manifest.Serialize(), "m").Fingerprint(), manifest.Fingerprint());
  }
}

TEST(ManifestTest, ParseRejectsNonCanonicalBytes) {
  const std::string header = "pstrain-manifest 1 utterances=2\n";
  const std::string line1 = std::string("001\tfeat/001.mfc\t") + kSha001 + "\t<s> TEN </s>\n";
  const std::string line2 = std::string("002\tfeat/002.mfc\t") + kSha002 + "\t<s> FIVE </s>\n";
  auto with_line2 = [&](const std::string& replacement) { return header + line1 + replacement; };
  auto entry2 = [&](const std::string& id, const std::string& path, const std::string& sha, const std::string& words) {
    return header + line1 + id + "\t" + path + "\t" + sha + "\t" + words + "\n";
  };
  struct Case {
    std::string name;
    std::string bytes;
    std::string expected;  // substring of the message, starting with "m.manifest:LINE: "
  };
  const std::vector<Case> cases = {
      {"empty file", "", "m.manifest: empty file"},
      {"byte order mark", "\xEF\xBB\xBF" + header + line1 + line2, "m.manifest:1: starts with a UTF-8 byte order mark"},
      {"crlf", header + "001\tfeat/001.mfc\t" + kSha001 + "\t<s> TEN </s>\r\n" + line2,
       "m.manifest:2: carriage return"},
      {"no final newline", header + line1 + line2.substr(0, line2.size() - 1),
       "m.manifest:3: the last line does not end with a newline"},
      {"blank line", header + line1 + "\n" + line2, "m.manifest:3: blank line"},
      {"trailing blank line", header + line1 + line2 + "\n", "m.manifest:4: blank line"},
      {"invalid utf-8", with_line2("002\tfeat/002.mfc\t" + std::string(kSha002) + "\tCAF\xC3\n"),
       "m.manifest:3: invalid UTF-8"},
      {"overlong utf-8", with_line2("002\tfeat/002.mfc\t" + std::string(kSha002) + "\tA\xC0\xAF\n"),
       "m.manifest:3: invalid UTF-8"},
      {"wrong magic", "pstrain-manifesto 1 utterances=2\n" + line1 + line2, "m.manifest:1: not a pstrain manifest"},
      {"other version", "pstrain-manifest 2 utterances=2\n" + line1 + line2,
       "m.manifest:1: unsupported manifest format version 2 (this pstrain reads version 1)"},
      {"tab in header", "pstrain-manifest 1\tutterances=2\n" + line1 + line2, "m.manifest:1: malformed header line"},
      {"no count", "pstrain-manifest 1\n" + line1 + line2, "m.manifest:1: malformed header line"},
      {"leading zero count", "pstrain-manifest 1 utterances=02\n" + line1 + line2, "m.manifest:1: malformed header"},
      {"trailing space in header", "pstrain-manifest 1 utterances=2 \n" + line1 + line2, "m.manifest:1: malformed"},
      {"zero utterances", "pstrain-manifest 1 utterances=0\n", "m.manifest:1: the manifest lists no utterances"},
      {"header only", "pstrain-manifest 1 utterances=1\n", "m.manifest:1: the header says utterances=1 but the file lists 0"},
      {"count too large", "pstrain-manifest 1 utterances=3\n" + line1 + line2,
       "m.manifest:1: the header says utterances=3 but the file lists 2"},
      {"count too small", "pstrain-manifest 1 utterances=1\n" + line1 + line2, "the file lists 2"},
      {"three fields", with_line2("002\tfeat/002.mfc\t" + std::string(kSha002) + "\n"),
       "m.manifest:3: expected 4 TAB-separated fields"},
      {"tab inside words", entry2("002", "feat/002.mfc", kSha002, "<s>\tFIVE"), "m.manifest:3: expected 4 TAB"},
      {"trailing space", entry2("002", "feat/002.mfc", kSha002, "<s> FIVE "), "m.manifest:3: empty word"},
      {"leading space", entry2("002", "feat/002.mfc", kSha002, " <s> FIVE"), "m.manifest:3: empty word"},
      {"double space", entry2("002", "feat/002.mfc", kSha002, "<s>  FIVE"), "m.manifest:3: empty word"},
      {"no words", entry2("002", "feat/002.mfc", kSha002, ""), "m.manifest:3: empty word"},
      {"empty id", entry2("", "feat/002.mfc", kSha002, "A"), "m.manifest:3: utterance id \"\" is empty"},
      {"space in id", entry2("0 2", "feat/002.mfc", kSha002, "A"), "m.manifest:3: utterance id \"0 2\" contains a space"},
      {"control char in word", entry2("002", "feat/002.mfc", kSha002, "A\x01"),
       "m.manifest:3: word \"A\\x01\" contains control character 0x01"},
      {"delete char in word", entry2("002", "feat/002.mfc", kSha002, "<s> A\x7f </s>"),
       "m.manifest:3: word \"A\\x7f\" contains control character 0x7f"},
      {"delete char in id", entry2("0\x7f", "feat/002.mfc", kSha002, "A"), "utterance id \"0\\x7f\" contains control character 0x7f"},
      {"backquote in digest", entry2("002", "feat/002.mfc", std::string(63, 'a') + "`", "A"), "is not 64 lower-case hex"},
      {"colon in digest", entry2("002", "feat/002.mfc", ":" + std::string(63, '0'), "A"), "is not 64 lower-case hex"},
      {"uppercase digest", entry2("002", "feat/002.mfc", "EDD4C13FA0C3072EAA40B9E5427D04BE20B8755905C1D79C838AB2FA3788A135", "A"),
       "m.manifest:3: feature SHA-256 \"EDD4"},
      {"short digest", entry2("002", "feat/002.mfc", "edd4c13f", "A"), "has 8 characters"},
      {"non-hex digest", entry2("002", "feat/002.mfc", std::string(63, 'a') + "g", "A"), "is not 64 lower-case hex"},
      {"absolute path", entry2("002", "/data/feat/002.mfc", kSha002, "A"), "m.manifest:3: feature path \"/data/feat/002.mfc\" is absolute"},
      {"dot-dot path", entry2("002", "feat/../../002.mfc", kSha002, "A"), "has a \"..\" component"},
      {"leading dot-dot", entry2("002", "../002.mfc", kSha002, "A"), "has a \"..\" component"},
      {"dot path", entry2("002", "./feat/002.mfc", kSha002, "A"), "has a \".\" component"},
      {"doubled slash", entry2("002", "feat//002.mfc", kSha002, "A"), "has an empty component"},
      {"trailing slash", entry2("002", "feat/", kSha002, "A"), "has an empty component"},
      {"empty path", entry2("002", "", kSha002, "A"), "feature path \"\" is empty"},
      {"space in path", entry2("002", "my feat/002.mfc", kSha002, "A"), "contains a space"},
      {"duplicate id", entry2("001", "feat/002.mfc", kSha002, "A"),
       "m.manifest:3: duplicate utterance id \"001\" (first at line 2)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string message = InputErrorMessage([&] { Manifest::Parse(c.bytes, "m.manifest"); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

// The UTF-8 check skips ASCII eight bytes at a time: the byte it reports must still be the first
// bad one wherever it falls against those blocks, and a valid character across a block boundary
// must pass (and the manifest stays canonical: Parse then Serialize is the identity).
TEST(ManifestTest, Utf8CheckNamesTheFirstBadByteAtEveryPlace) {
  const std::string header = "pstrain-manifest 1 utterances=1\n";
  const std::string prefix = std::string("001\tfeat/001.mfc\t") + kSha001 + "\t";
  for (std::size_t ascii = 0; ascii < 20; ++ascii) {
    SCOPED_TRACE(ascii);
    const std::string words = std::string(ascii + 1, 'A');
    // A lone continuation byte, a truncated 2-byte lead, a surrogate (ED A0 80).
    for (const std::string& bad : {std::string("\x80"), std::string("\xC3"), std::string("\xED\xA0\x80")}) {
      const std::string message =
          InputErrorMessage([&] { Manifest::Parse(header + prefix + words + bad + " B\n", "m.manifest"); });
      const std::string expected = "m.manifest:2: invalid UTF-8 at byte " + std::to_string(prefix.size() + words.size() + 1);
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    const std::string good = header + prefix + words + "\xC3\x89T\xE2\x82\xAC\xF0\x9F\x8E\xB5 B\n";  // É, €, U+1F3B5
    EXPECT_EQ(Manifest::Parse(good, "m.manifest").Serialize(), good);
  }
  // The constructor's token check (no line check before it) on a non-ASCII word.
  std::vector<ManifestEntry> entries = KnownEntries();
  entries[0].words[0] = "CAF\xC3";
  EXPECT_NE(InputErrorMessage([&] { Manifest(entries, "src"); }).find("is not valid UTF-8"), std::string::npos);
  entries[0].words[0] = "CAF\xC3\xA9";
  EXPECT_NO_THROW(Manifest(entries, "src"));
}

TEST(ManifestTest, ConstructorValidatesEntries) {
  EXPECT_NE(InputErrorMessage([] { Manifest({}, "src"); }).find("src: the manifest lists no utterances"),
            std::string::npos);
  std::vector<ManifestEntry> entries = KnownEntries();
  entries[1].utt_id = "001";
  EXPECT_NE(InputErrorMessage([&] { Manifest(entries, "src"); })
                .find("src: manifest entry 2: duplicate utterance id \"001\" (first at entry 1)"),
            std::string::npos);
  entries = KnownEntries();
  entries[0].words.clear();
  EXPECT_NE(InputErrorMessage([&] { Manifest(entries, "src"); }).find("manifest entry 1: transcript has no words"),
            std::string::npos);
  entries = KnownEntries();
  entries[0].words[0] = "a\tb";
  EXPECT_NE(InputErrorMessage([&] { Manifest(entries, "src"); }).find("contains control character 0x09"),
            std::string::npos);
  entries = KnownEntries();
  entries[0].feature_path = "a/../../b";
  EXPECT_NE(InputErrorMessage([&] { Manifest(entries, "src"); }).find("\"..\" component"), std::string::npos);
}

TEST_F(ManifestFilesTest, SaveAndLoad) {
  const Manifest manifest(KnownEntries(), "test");
  const fs::path path = dir_ / "train.manifest";
  manifest.Save(path);
  EXPECT_EQ(ReadFileText(path), kKnownBytes);
  EXPECT_EQ(Sha256OfFile(path), kKnownFingerprint);
  const Manifest loaded = Manifest::Load(path);
  EXPECT_EQ(loaded.entries(), manifest.entries());
  EXPECT_EQ(loaded.source(), path.string());
  EXPECT_NE(InputErrorMessage([&] { Manifest::Load(dir_ / "missing.manifest"); }).find("missing.manifest"),
            std::string::npos);
}

// Six entries 00i, saved to dir/six.manifest (entry lines 2..7).
Manifest SixEntries() {
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 6; ++i) {
    const std::string id = "00" + std::to_string(i);
    entries.push_back({id, "feat/" + id + ".mfc", {"<s>", "WORD" + std::to_string(i), "</s>"}, i % 2 ? kSha002 : kSha001});
  }
  return Manifest(std::move(entries), "six");
}

TEST_F(ManifestFilesTest, LoadRangeParsesItsEntriesAndHashesTheWholeFile) {
  const Manifest whole = SixEntries();
  const fs::path path = dir_ / "six.manifest";
  whole.Save(path);
  std::size_t seen_total = 0;
  const ManifestRange range = Manifest::LoadRange(path, [&](std::size_t total) {
    seen_total = total;
    return std::pair<std::size_t, std::size_t>{2, 5};
  });
  EXPECT_EQ(seen_total, 6u);
  EXPECT_EQ(range.file_entries, 6u);
  EXPECT_EQ(range.first, 2u);
  EXPECT_EQ(range.file_fingerprint, whole.Fingerprint());
  EXPECT_EQ(range.part.source(), path.string());
  ASSERT_EQ(range.part.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(range.part.entries()[i], whole.entries()[2 + i]);
  // The part is a manifest of its own: canonical, with its own fingerprint.
  EXPECT_EQ(Manifest::Parse(range.part.Serialize(), "part").entries(), range.part.entries());
  // The last entries, and all of them.
  EXPECT_EQ(Manifest::LoadRange(path, [](std::size_t) { return std::pair<std::size_t, std::size_t>{5, 6}; }).part.entries()[0].utt_id, "005");
  EXPECT_EQ(Manifest::LoadRange(path, [](std::size_t n) { return std::pair<std::size_t, std::size_t>{0, n}; }).part.entries(),
            whole.entries());
}

TEST_F(ManifestFilesTest, LoadRangeLeavesOtherLinesToTheFingerprint) {
  const fs::path path = dir_ / "six.manifest";
  SixEntries().Save(path);
  std::string bytes = ReadFileText(path);
  // Entry 0 (line 2) given an id with a space: Load refuses the file; a range without it loads,
  // and its fingerprint is the changed file's, which no longer matches the manifest checked whole.
  bytes.replace(bytes.find("000\t"), 4, "0 0\t");
  WriteText(path, bytes);
  EXPECT_NE(InputErrorMessage([&] { Manifest::Load(path); }).find(":2: "), std::string::npos);
  const ManifestRange range = Manifest::LoadRange(path, [](std::size_t) { return std::pair<std::size_t, std::size_t>{3, 6}; });
  EXPECT_EQ(range.file_fingerprint, Sha256OfFile(path));
  EXPECT_NE(range.file_fingerprint, SixEntries().Fingerprint());
  EXPECT_NE(InputErrorMessage([&] { Manifest::LoadRange(path, [](std::size_t) { return std::pair<std::size_t, std::size_t>{0, 3}; }); })
                .find(":2: "),
            std::string::npos);
}

TEST_F(ManifestFilesTest, LoadRangeReportsWhatParseReportsWithTheFileLineNumbers) {
  const fs::path path = dir_ / "six.manifest";
  const std::string good = SixEntries().Serialize();
  const auto all = [](std::size_t n) { return std::pair<std::size_t, std::size_t>{0, n}; };
  const auto last_three = [](std::size_t) { return std::pair<std::size_t, std::size_t>{3, 6}; };
  const auto message = [&](const std::string& bytes, const Manifest::RangeSelector& select) {
    WriteText(path, bytes);
    return InputErrorMessage([&] { Manifest::LoadRange(path, select); });
  };
  const auto load_message = [&](const std::string& bytes) {
    WriteText(path, bytes);
    return InputErrorMessage([&] { Manifest::Load(path); });
  };
  // Each broken file: LoadRange of a range holding the broken line says what Load says.
  std::string dup = good;
  dup.replace(dup.find("004\t"), 3, "003");  // entry 4 (line 6) repeats entry 3's id (line 5)
  std::string bad_sha = good;
  bad_sha.replace(bad_sha.find(kSha002, bad_sha.find("005\t")), 1, "X");  // line 7
  std::string crlf = good;
  crlf.insert(crlf.find("\n", crlf.find("004\t")), "\r");  // line 6
  std::string fewer = good.substr(0, good.find("005\t"));  // header says 6, 5 lines
  std::string unterminated = good.substr(0, good.size() - 1);
  std::string bad_header = good;
  bad_header.replace(0, bad_header.find('\n'), "pstrain-manifest 1 utterances=06");
  // Two defects: Parse's first (a line's bytes before the header, an entry before the count) wins.
  std::string trailing_blank = good + "\n";
  std::string bad_header_and_crlf = bad_header;
  bad_header_and_crlf.insert(bad_header_and_crlf.find("\n", bad_header_and_crlf.find("003\t")), "\r");  // line 5
  std::string fewer_and_bad_sha = fewer;
  fewer_and_bad_sha.replace(fewer_and_bad_sha.find(kSha002, fewer_and_bad_sha.find("001\t")), 1, "X");  // line 3
  EXPECT_NE(load_message(trailing_blank).find(":8: blank line"), std::string::npos) << load_message(trailing_blank);
  EXPECT_NE(load_message(bad_header_and_crlf).find(":5: carriage return"), std::string::npos) << load_message(bad_header_and_crlf);
  EXPECT_NE(load_message(fewer_and_bad_sha).find(":3: "), std::string::npos) << load_message(fewer_and_bad_sha);
  for (const std::string* bytes : {&dup, &bad_sha, &crlf, &fewer, &unterminated, &bad_header, &trailing_blank, &bad_header_and_crlf,
                                   &fewer_and_bad_sha}) {
    const std::string expected = load_message(*bytes);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(message(*bytes, last_three), expected);
    EXPECT_EQ(message(*bytes, all), expected);
  }
  EXPECT_NE(load_message(dup).find(":6: duplicate utterance id \"003\" (first at line 5)"), std::string::npos) << load_message(dup);
  EXPECT_EQ(message("", all), load_message(""));
  EXPECT_EQ(message("\xEF\xBB\xBF" + good, all), load_message("\xEF\xBB\xBF" + good));
  // The selector's own error, and a range it should not have returned.
  WriteText(path, good);
  EXPECT_EQ(InputErrorMessage([&] { Manifest::LoadRange(path, [](std::size_t) -> std::pair<std::size_t, std::size_t> { throw InputError("no shard"); }); }),
            "no shard");
  for (const auto& [first, last] : std::vector<std::pair<std::size_t, std::size_t>>{{2, 2}, {4, 7}, {5, 3}}) {
    EXPECT_THROW(Manifest::LoadRange(path, [&](std::size_t) { return std::pair{first, last}; }), TrainingError) << first << " " << last;
  }
}

TEST_F(ManifestFilesTest, ImportFromSphinxFiles) {
  const Manifest manifest = Import();
  EXPECT_EQ(manifest.Serialize(), kKnownBytes);
  EXPECT_EQ(manifest.Fingerprint(), kKnownFingerprint);
  EXPECT_EQ(ResolveFeaturePath(manifest.entries()[1], corpus_), corpus_ / "feat" / "002.mfc");
  // pocketsphinx spells the extension ".mfc"; both mean the same files.
  EXPECT_EQ(ImportSphinx(fileids_, transcription_, corpus_, ".mfc").Fingerprint(), kKnownFingerprint);
  // The corpus root is not part of the manifest: a copy elsewhere gives the same fingerprint.
  fs::copy(corpus_, dir_ / "copy", fs::copy_options::recursive);
  EXPECT_EQ(ImportSphinx(fileids_, transcription_, dir_ / "copy", "mfc").Fingerprint(), kKnownFingerprint);
  EXPECT_NO_THROW(CheckManifest(manifest, dir_ / "copy"));
}

// One bw part's import (cmd_bw.cpp): only the entries on the kept control lines, and only their
// feature files read; every line is still paired and checked, and every feature file must exist.
TEST_F(ManifestFilesTest, ImportKeepsAndHashesOnlyTheGivenControlLines) {
  WriteText(fileids_, "# comment\nfeat/001\nfeat/002\nfeat/003\n");
  WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n<s> FIVE OF(2) SPADES </s> (002)\n<s> TEN </s> (003)\n");
  // 003's feature file exists and is regular, but reading it fails (/proc/self/mem at offset 0
  // gives EIO): an import that hashed it would throw.
  fs::create_symlink("/proc/self/mem", corpus_ / "feat" / "003.mfc");
  EXPECT_NE(InputErrorMessage([&] { Import(); }).find("003.mfc"), std::string::npos);

  const Manifest part = ImportSphinx(fileids_, transcription_, corpus_, "mfc", ImportLines{2, 3});  // lines 2-3: 001, 002
  EXPECT_EQ(part.Serialize(), kKnownBytes);
  const Manifest second = ImportSphinx(fileids_, transcription_, corpus_, "mfc", ImportLines{3, 3});
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second.entries()[0], KnownEntries()[1]);

  // The lines outside the part are still checked: a missing feature file is named by its line.
  fs::remove(corpus_ / "feat" / "003.mfc");
  EXPECT_NE(InputErrorMessage([&] { ImportSphinx(fileids_, transcription_, corpus_, "mfc", ImportLines{2, 2}); })
                .find(fileids_.string() + ":4: utterance \"003\": feature file"),
            std::string::npos);
  WriteText(corpus_ / "feat" / "003.mfc", kFeatures001);
  WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n<s> FIVE OF(2) SPADES </s> (002)\n<s> TEN </s> (004)\n");
  EXPECT_NE(InputErrorMessage([&] { ImportSphinx(fileids_, transcription_, corpus_, "mfc", ImportLines{2, 2}); })
                .find("does not match the transcript's id"),
            std::string::npos);
  // Lines without an utterance (the comment line) keep nothing: an error, not an empty manifest.
  WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n<s> FIVE OF(2) SPADES </s> (002)\n<s> TEN </s> (003)\n");
  EXPECT_NE(InputErrorMessage([&] { ImportSphinx(fileids_, transcription_, corpus_, "mfc", ImportLines{1, 1}); })
                .find("no utterance on control lines 1..1"),
            std::string::npos);
}

TEST_F(ManifestFilesTest, ImportHandlesCommentsCrlfMissingIdsAndCaseOfIds) {
  WriteText(fileids_, "# training set\r\nfeat/001\r\nfeat/002 \r\n\r\n");
  WriteText(transcription_, "# comment\n<s> TEN OF CLUBS </s>\n<s> FIVE OF(2) SPADES </s> (002)\n");
  EXPECT_EQ(Import().Serialize(), kKnownBytes);
  // Ids compare ignoring ASCII case, as in SphinxTrain; the control file's id is the one kept.
  WriteText(corpus_ / "feat" / "Utt.mfc", "x");
  WriteText(fileids_, "feat/Utt\n");
  WriteText(transcription_, "A (uTT)\n");
  const Manifest manifest = Import();
  EXPECT_EQ(manifest.entries()[0].utt_id, "Utt");
  EXPECT_EQ(manifest.entries()[0].words, std::vector<std::string>{"A"});
}

TEST_F(ManifestFilesTest, ImportRejectsMismatchedTranscriptIdsNamingBothFiles) {
  WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n# c\n<s> FIVE </s> (003)\n");
  const std::string message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(message.find(fileids_.string() + ":2: utterance id \"002\" does not match the transcript's id \"003\" at " +
                         transcription_.string() + ":3"),
            std::string::npos)
      << message;
}

TEST_F(ManifestFilesTest, ImportRejectsDifferentNumbersOfLines) {
  WriteText(transcription_, "<s> TEN OF CLUBS </s> (001)\n");
  std::string message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(message.find(fileids_.string() + ":2: utterance \"002\" has no transcript"), std::string::npos) << message;
  WriteText(transcription_, "A (001)\nB (002)\nC (003)\n");
  message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(message.find(transcription_.string() + ":3: transcript has no utterance in " + fileids_.string()),
            std::string::npos)
      << message;
}

TEST_F(ManifestFilesTest, ImportRejectsDuplicateIdsNamingBothLines) {
  WriteText(fileids_, "feat/001\nother/001\n");
  WriteText(transcription_, "A (001)\nB (001)\n");
  const std::string message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(message.find(fileids_.string() + ":2: duplicate utterance id \"001\" (first at line 1)"), std::string::npos)
      << message;
}

TEST_F(ManifestFilesTest, ImportRejectsMissingFeatureFile) {
  fs::remove(corpus_ / "feat" / "002.mfc");
  const std::string message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(message.find(fileids_.string() + ":2: utterance \"002\": feature file " +
                         (corpus_ / "feat" / "002.mfc").string() + " does not exist"),
            std::string::npos)
      << message;
}

TEST_F(ManifestFilesTest, ImportRejectsPathsOutsideTheRootAndFrameRanges) {
  struct Case {
    std::string fileids;
    std::string expected;
  };
  const Case cases[] = {
      {"feat/001\n../corpus/feat/002\n", ":2: feature path \"../corpus/feat/002.mfc\" has a \"..\" component"},
      {"feat/001\n" + (corpus_ / "feat" / "002").string() + "\n", ":2: feature path \"/"},
      {"feat/001 0 10 001\nfeat/002\n", ":1: frame ranges"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fileids);
    WriteText(fileids_, c.fileids);
    const std::string message = InputErrorMessage([&] { Import(); });
    EXPECT_NE(message.find(fileids_.string() + c.expected), std::string::npos) << message;
  }
}

TEST_F(ManifestFilesTest, ImportRejectsEmptyCorpusAndBadRoot) {
  WriteText(fileids_, "# nothing\n");
  WriteText(transcription_, "");
  EXPECT_NE(InputErrorMessage([&] { Import(); }).find(fileids_.string() + ": the control file lists no utterances"),
            std::string::npos);
  EXPECT_NE(InputErrorMessage([&] { ImportSphinx(fileids_, transcription_, dir_ / "nope", "mfc"); })
                .find("corpus root (cepdir) is not a directory"),
            std::string::npos);
}

// Feature files in several directories (the root itself, nested ones, one reached through a
// symbolic link to a directory) are each found in their own directory's listing.
TEST_F(ManifestFilesTest, FeatureFilesInSeveralDirectoriesArePresentEachInItsOwn) {
  const std::vector<std::string> ids = {"a", "d1/b", "d1/d2/c", "d3/e", "d1/f"};
  std::string fileids, transcription;
  fs::create_directories(corpus_ / "real3");
  fs::create_directory_symlink("real3", corpus_ / "d3");
  for (const std::string& id : ids) {
    WriteText(corpus_ / (id + ".mfc"), "features of " + id);
    fileids += id + "\n";
    transcription += "<s> TEN </s> (" + fs::path(id).filename().string() + ")\n";
  }
  WriteText(fileids_, fileids);
  WriteText(transcription_, transcription);
  const Manifest manifest = Import();
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));
  for (const std::string& id : ids) {
    SCOPED_TRACE(id);
    fs::rename(corpus_ / (id + ".mfc"), corpus_ / (id + ".moved"));
    EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_));
    EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_, 1));
    fs::rename(corpus_ / (id + ".moved"), corpus_ / (id + ".mfc"));
  }
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_, 1));
}

// Import and check hash the feature files on several threads; what they report is still what one
// thread going through the manifest in order would: every digest in its entry, and the first bad
// entry named (with the count, for check).
TEST_F(ManifestFilesTest, ManyUtterancesAreHashedIntoTheirOwnEntriesAndTheFirstProblemIsNamed) {
  constexpr int kUtterances = 300;
  const auto id_of = [](int u) {
    char id[16];
    std::snprintf(id, sizeof(id), "u%03d", u);
    return std::string(id);
  };
  std::string fileids, transcription;
  for (int u = 0; u < kUtterances; ++u) {
    const std::string id = id_of(u);
    WriteText(corpus_ / "feat" / (id + ".mfc"), "features of " + id);
    fileids += "feat/" + id + "\n";
    transcription += "<s> TEN </s> (" + id + ")\n";
  }
  WriteText(fileids_, fileids);
  WriteText(transcription_, transcription);
  const Manifest manifest = Import();
  ASSERT_EQ(manifest.size(), std::size_t{kUtterances});
  for (int u = 0; u < kUtterances; ++u) {
    const std::string id = id_of(u);
    EXPECT_EQ(manifest.entries()[u].utt_id, id);
    EXPECT_EQ(manifest.entries()[u].feature_sha256, Sha256Hex("features of " + id)) << id;
  }
  EXPECT_NO_THROW(CheckManifest(manifest, corpus_));
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));

  // FeatureFilesPresent looks at the files, not inside them: a changed file is present, the last
  // one missing or a directory in its place is not.
  WriteText(corpus_ / "feat" / "u250.mfc", "edited");
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));
  fs::rename(corpus_ / "feat" / "u299.mfc", corpus_ / "feat" / "u299.moved");
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_));
  fs::create_directory(corpus_ / "feat" / "u299.mfc");
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_));
  fs::remove(corpus_ / "feat" / "u299.mfc");
  fs::rename(corpus_ / "feat" / "u299.moved", corpus_ / "feat" / "u299.mfc");
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));
  EXPECT_FALSE(FeatureFilesPresent(manifest, dir_ / "nope"));
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_ / "feat" / "u000.mfc"));  // a root that is a file
  // Symbolic links are followed, as CheckManifest follows them: one to a regular file is present, a
  // dangling one is not.
  fs::rename(corpus_ / "feat" / "u299.mfc", corpus_ / "feat" / "u299.target");
  fs::create_symlink("u299.target", corpus_ / "feat" / "u299.mfc");
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));
  fs::remove(corpus_ / "feat" / "u299.target");
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_));
  fs::remove(corpus_ / "feat" / "u299.mfc");
  WriteText(corpus_ / "feat" / "u299.mfc", "features of u299");
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_));

  // A FIFO in a file's place is not a regular file: not present (and nothing blocks on it).
  fs::rename(corpus_ / "feat" / "u123.mfc", corpus_ / "feat" / "u123.moved");
  ASSERT_EQ(::mkfifo((corpus_ / "feat" / "u123.mfc").c_str(), 0600), 0);
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_));
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_, 10));  // the directory not listed: fstatat
  fs::remove(corpus_ / "feat" / "u123.mfc");
  fs::rename(corpus_ / "feat" / "u123.moved", corpus_ / "feat" / "u123.mfc");
  // A directory too large to list (a limit of 10 names here) has its files looked at one by one,
  // with the same answers.
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus_, 10));
  fs::rename(corpus_ / "feat" / "u299.mfc", corpus_ / "feat" / "u299.moved");
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus_, 10));
  fs::rename(corpus_ / "feat" / "u299.moved", corpus_ / "feat" / "u299.mfc");

  fs::remove(corpus_ / "feat" / "u040.mfc");
  WriteText(corpus_ / "feat" / "u120.mfc", "edited");
  const std::string message = InputErrorMessage([&] { CheckManifest(manifest, corpus_); });
  EXPECT_EQ(message.find((corpus_ / "feat" / "u040.mfc").string() + ": utterance \"u040\" of "), 0u) << message;
  EXPECT_NE(message.find("feature file does not exist (3 of 300 utterances have missing or changed feature files)"),
            std::string::npos)
      << message;

  fs::remove(corpus_ / "feat" / "u201.mfc");
  const std::string import_message = InputErrorMessage([&] { Import(); });
  EXPECT_NE(import_message.find(fileids_.string() + ":41: utterance \"u040\": feature file " +
                                (corpus_ / "feat" / "u040.mfc").string() + " does not exist"),
            std::string::npos)
      << import_message;
}

// FeatureFilesPresent looks a file up relative to the corpus root, which works for any length; the
// readers open the joined path, which the kernel refuses from PATH_MAX bytes on. Such a file must
// not count as present (the full check then names it), though it is there.
TEST_F(ManifestFilesTest, FeatureFilesPresentRefusesWhatTheReadersCannotOpen) {
  fs::path root = dir_ / "long";
  while (root.native().size() < PATH_MAX - 150) root /= std::string(100, 'd');
  fs::create_directories(root);
  const std::string feature_path = "feat/" + std::string(200, 'f') + ".mfc";
  ASSERT_GE(root.native().size() + 1 + feature_path.size(), std::size_t(PATH_MAX));
  const int root_fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(root_fd, 0);
  ASSERT_EQ(::mkdirat(root_fd, "feat", 0755), 0);
  const int file_fd = ::openat(root_fd, feature_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(file_fd, 0);
  ::close(file_fd);
  struct stat status;
  EXPECT_EQ(::fstatat(root_fd, feature_path.c_str(), &status, 0), 0);  // there, relative to the root
  ::close(root_fd);
  ManifestEntry entry;
  entry.utt_id = "u";
  entry.feature_path = feature_path;
  entry.feature_sha256 = std::string(64, 'a');
  entry.words = {"A"};
  const Manifest manifest({entry}, "long.manifest");
  EXPECT_FALSE(FeatureFilesPresent(manifest, root));
  const std::string message = InputErrorMessage([&] { CheckManifest(manifest, root); });
  EXPECT_NE(message.find("cannot be examined"), std::string::npos) << message;
  fs::remove_all(dir_ / "long");
}

TEST_F(ManifestFilesTest, CheckDetectsChangedAndMissingFeatureFiles) {
  const Manifest manifest = Manifest::Parse(kKnownBytes, "train.manifest");
  EXPECT_NO_THROW(CheckManifest(manifest, corpus_));

  WriteText(corpus_ / "feat" / "002.mfc", "fake features 002 (edited)");
  std::string message = InputErrorMessage([&] { CheckManifest(manifest, corpus_); });
  EXPECT_NE(message.find((corpus_ / "feat" / "002.mfc").string() + ": utterance \"002\" of train.manifest: feature "
                         "file changed: its SHA-256 is " + Sha256Hex("fake features 002 (edited)") +
                         ", the manifest records " + kSha002),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(1 of 2 utterances have missing or changed feature files)"), std::string::npos) << message;

  fs::remove(corpus_ / "feat" / "001.mfc");
  message = InputErrorMessage([&] { CheckManifest(manifest, corpus_); });
  EXPECT_NE(message.find((corpus_ / "feat" / "001.mfc").string() + ": utterance \"001\" of train.manifest: feature "
                         "file does not exist"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(2 of 2 utterances"), std::string::npos) << message;

  fs::create_directory(corpus_ / "feat" / "001.mfc");
  message = InputErrorMessage([&] { CheckManifest(manifest, corpus_); });
  EXPECT_NE(message.find("feature file is not a regular file"), std::string::npos) << message;

  message = InputErrorMessage([&] { CheckManifest(manifest, dir_ / "nope"); });
  EXPECT_NE(message.find("corpus root (cepdir) is not a directory"), std::string::npos) << message;
}

TEST(ManifestTest, CheckWordsReportsUnknownWords) {
  Dictionary merged = Dictionary::Parse("TEN T EH N\nOF AH V\nOF(2) AH\nCLUBS K L AH B Z\n", "main.dic", false);
  merged.Merge(Dictionary::Parse("<s> SIL\n</s> SIL\n", "noisedict", true));
  std::vector<ManifestEntry> entries = KnownEntries();
  entries.push_back({"003", "feat/003.mfc", {"<s>", "TEN", "</s>"}, kSha001});
  entries.push_back({"004", "feat/004.mfc", {"<s>", "ten", "</s>"}, kSha001});
  const Manifest manifest(entries, "train.manifest");
  const std::string message = InputErrorMessage([&] { CheckWords(manifest, merged); });
  EXPECT_NE(message.find("train.manifest: utterance \"002\": words not in the dictionary: FIVE, SPADES "
                         "(2 of 4 utterances have unknown words)"),
            std::string::npos)
      << message;

  Dictionary complete = merged;
  complete.Merge(Dictionary::Parse("FIVE F AY V\nSPADES S P EY D Z\nten T EH N\n", "extra.dic", false));
  EXPECT_NO_THROW(CheckWords(manifest, complete));
}

}  // namespace
}  // namespace pstrain
