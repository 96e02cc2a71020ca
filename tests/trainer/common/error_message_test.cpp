// Tests for the escaping of file content in error messages (trainer/common/error.h, issue 13): a
// NUL byte used to end the message (what() is a C string), cutting off the reason.
#include "common/error.h"

#include <gtest/gtest.h>

#include <string>

#include "formats/control_file.h"
#include "formats/dictionary.h"
#include "manifest/manifest.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

using std::string_literals::operator""s;

TEST(ErrorMessageTest, PrintableEscapesWhatWouldNotPrintAsItself) {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"plain ASCII </s> (x)", "plain ASCII </s> (x)"},
      {"a\0b"s, "a\\x00b"},
      {"\x01\x1f\x7f", "\\x01\\x1f\\x7f"},
      {"tab\tnl\ncr\r", "tab\\tnl\\ncr\\r"},
      {"back\\slash", "back\\\\slash"},
      {"quote\"", "quote\""},
      {"caf\xc3\xa9 \xe4\xb8\xad", "caf\xc3\xa9 \xe4\xb8\xad"},   // valid UTF-8 is kept
      {"\xff\xfe", "\\xff\\xfe"},                               // not UTF-8
      {"\xc3", "\\xc3"},                                        // truncated sequence
      {"\xc0\xaf", "\\xc0\\xaf"},                               // overlong
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},                      // surrogate
      {"\xc2\x85", "\\u0085"},                                  // C1 control
      {"evil\xe2\x80\xae" "txt", "evil\\u202etxt"},             // right-to-left override
      {"zero\xe2\x80\x8bwidth", "zero\\u200bwidth"},
      {"\xef\xbb\xbf" "bom", "\\ufeffbom"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.out);
    EXPECT_EQ(Printable(c.in), c.out);
  }
}

TEST(ErrorMessageTest, QuotedAddsQuotesEscapesThemAndCutsLongContent) {
  EXPECT_EQ(Quoted("</s>\0"s), "\"</s>\\x00\"");
  EXPECT_EQ(Quoted("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(Quoted(std::string(300, 'a')), "\"" + std::string(256, 'a') + "\" (+44 more bytes)");
  // The cut never splits a UTF-8 character: 255 'a' and a 2-byte character straddling byte 256.
  EXPECT_EQ(Quoted(std::string(255, 'a') + "\xc3\xa9" + "bc", 256), "\"" + std::string(255, 'a') + "\" (+4 more bytes)");
}

TEST(ErrorMessageTest, ErrorsSanitizeTheWholeMessageButKeepItsStructure) {
  const InputError error("f.txt:4: word \"</s>\0\" is bad\nsecond line\twith a tab and a \\ backslash"s);
  EXPECT_EQ(std::string(error.what()), "f.txt:4: word \"</s>\\x00\" is bad\nsecond line\twith a tab and a \\ backslash");
  const TrainingError training("log tail:\n\x1b[31mred\x1b[0m \xff"s);
  EXPECT_EQ(std::string(training.what()), "log tail:\n\\x1b[31mred\\x1b[0m \\xff");
  // Already escaped content is left alone.
  const std::string quoted = "x: " + Quoted("a\0\\b\"c"s);
  EXPECT_EQ(InputError(quoted).what(), quoted);
}

// File content with a NUL byte: the whole reason survives.
TEST(ErrorMessageTest, NulInAManifestDictionaryAndTranscriptKeepsTheReason) {
  const std::string manifest_text =
      "pstrain-manifest 1 utterances=1\n"
      "u1\tfeat/u1.mfc\t" + std::string(64, 'a') + "\t<s> A </s>\0\n"s;
  EXPECT_EQ(test::InputErrorMessage([&] { Manifest::Parse(manifest_text, "m.manifest"); }),
            "m.manifest:2: word \"</s>\\x00\" contains control character 0x00");

  EXPECT_EQ(test::InputErrorMessage([&] { Dictionary::Parse("A AH\nB\0AD B AE D\n"s, "d.dic", false); }),
            "d.dic:2: control character 0x00 in line \"B\\x00AD B AE D\"");
  EXPECT_EQ(test::InputErrorMessage([&] { Dictionary::Parse("\xff" "BAD\n", "d.dic", false); }),
            "d.dic:1: headword \"\\xffBAD\" has no phones");

  EXPECT_EQ(test::InputErrorMessage([&] { ParseTranscriptFile("<s> A </s>\0 (u1)\n"s, "t.transcription"); }),
            "t.transcription:1: control character 0x00 in line \"<s> A </s>\\x00 (u1)\"");
}

}  // namespace
}  // namespace pstrain
