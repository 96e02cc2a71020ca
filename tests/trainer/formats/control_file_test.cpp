// Tests for SphinxTrain control files and transcripts (trainer/formats/control_file.h).
#include "formats/control_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

using test::InputErrorMessage;

using Words = std::vector<std::string>;

TEST(ControlFileTest, UttIdIsTheLastPathComponent) {
  const auto entries = ParseControlFile("001\nspeaker1/session2/002\n/abs/path/003\n", "train.fileids");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, "001");
  EXPECT_EQ(entries[0].utt_id, "001");
  EXPECT_EQ(entries[1].path, "speaker1/session2/002");
  EXPECT_EQ(entries[1].utt_id, "002");
  EXPECT_EQ(entries[2].utt_id, "003");
  EXPECT_EQ(entries[1].start_frame, -1);
  EXPECT_EQ(entries[1].end_frame, -1);
  EXPECT_EQ(entries[2].line_number, 3u);
}

TEST(ControlFileTest, FrameRangeAndExplicitUttId) {
  const auto entries = ParseControlFile("long/rec 0 99 utt_a\nlong/rec 100 250\nx\t5  5\tid", "c.fileids");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, "long/rec");
  EXPECT_EQ(entries[0].start_frame, 0);
  EXPECT_EQ(entries[0].end_frame, 99);
  EXPECT_EQ(entries[0].utt_id, "utt_a");
  EXPECT_EQ(entries[1].start_frame, 100);
  EXPECT_EQ(entries[1].end_frame, 250);
  EXPECT_EQ(entries[1].utt_id, "rec");
  EXPECT_EQ(entries[2].utt_id, "id");
  EXPECT_EQ(entries[2].start_frame, 5);
}

TEST(ControlFileTest, CommentsAreSkippedButCountForLineNumbers) {
  const auto entries = ParseControlFile("# header\n001\n  # indented\n002\n", "c.fileids");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].line_number, 2u);
  EXPECT_EQ(entries[1].utt_id, "002");
  EXPECT_EQ(entries[1].line_number, 4u);
}

TEST(ControlFileTest, TrailingBlankLinesAreAccepted) {
  const auto entries = ParseControlFile("001\n002\n\n  \n\n# trailing comment\n", "c.fileids");
  EXPECT_EQ(entries.size(), 2u);
  EXPECT_TRUE(ParseControlFile("", "c.fileids").empty());
}

TEST(ControlFileTest, BlankLineBeforeMoreEntriesIsAnErrorNamingTheBlankLine) {
  const std::string message = InputErrorMessage([] { ParseControlFile("001\n002\n \n003\n", "train.fileids"); });
  EXPECT_NE(message.find("train.fileids:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("blank line"), std::string::npos) << message;
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
}

TEST(ControlFileTest, TrailingWhitespaceAndCrlfAreTrimmed) {
  const auto lf = ParseControlFile("a/001\nb/002 0 10 x\n", "c");
  const auto crlf = ParseControlFile("a/001 \t\r\n  b/002 0 10 x\r\n", "c");
  ASSERT_EQ(crlf.size(), 2u);
  for (std::size_t entry_idx = 0; entry_idx < lf.size(); ++entry_idx) {
    EXPECT_EQ(crlf[entry_idx].path, lf[entry_idx].path);
    EXPECT_EQ(crlf[entry_idx].utt_id, lf[entry_idx].utt_id);
    EXPECT_EQ(crlf[entry_idx].end_frame, lf[entry_idx].end_frame);
  }
  EXPECT_EQ(crlf[1].utt_id, "x");
}

TEST(ControlFileTest, MalformedLinesAreErrorsNamingFileAndLine) {
  struct Case {
    std::string text;
    std::string expected;  // substring of the message
  };
  const Case cases[] = {
      {"001\nbad 12\n", "c.fileids:2: expected `path` or `path start_frame end_frame [uttid]`, found 2 fields"},
      {"a 1 2 id extra\n", "c.fileids:1: expected `path`"},
      {"a x 2\n", "c.fileids:1: start frame \"x\" is not a non-negative integer"},
      {"a 1 -2\n", "c.fileids:1: end frame \"-2\""},
      {"a 1 2.5\n", "c.fileids:1: end frame \"2.5\""},
      {"a 9 3\n", "c.fileids:1: start frame 9 is after end frame 3"},
      {"dir/\n", "c.fileids:1: path \"dir/\" ends with '/'"},
      {"0\r01\n", "c.fileids:1: control character 0x0d in line \"0\\r01\" (a CR is only accepted at the end of a line)"},
      {"001\n0\x01\n", "c.fileids:2: control character 0x01"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string message = InputErrorMessage([&] { ParseControlFile(c.text, "c.fileids"); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

TEST(ControlFileTest, LoadReportsMissingFile) {
  const std::string message = InputErrorMessage([] { LoadControlFile("/nonexistent/pstrain/x.fileids"); });
  EXPECT_NE(message.find("/nonexistent/pstrain/x.fileids"), std::string::npos) << message;
}

TEST(ControlFileTest, TranscriptLineIdParsing) {
  struct Case {
    std::string line;
    Words words;
    std::string utt_id;
  };
  const Case cases[] = {
      {"<s> TEN OF CLUBS </s> (001)", {"<s>", "TEN", "OF", "CLUBS", "</s>"}, "001"},
      {"<s> ten of clubs  </s> (001)", {"<s>", "ten", "of", "clubs", "</s>"}, "001"},  // as in cards.transcription
      {"TEN OF(2) CLUBS (001)", {"TEN", "OF(2)", "CLUBS"}, "001"},
      {"TEN OF(2) CLUBS", {"TEN", "OF(2)", "CLUBS"}, ""},  // ')' not at the end: no id
      {"TEN OF CLUBS", {"TEN", "OF", "CLUBS"}, ""},
      {"TEN OF CLUBS (001)  \t", {"TEN", "OF", "CLUBS"}, "001"},
      {"TEN OF CLUBS (001)\r", {"TEN", "OF", "CLUBS"}, "001"},
      {"TEN OF CLUBS (001)\r\n", {"TEN", "OF", "CLUBS"}, "001"},
      {"\tTEN\tCLUBS\t(spk-1_utt.2)", {"TEN", "CLUBS"}, "spk-1_utt.2"},
      {"</s>(001)", {"</s>"}, "001"},  // as SphinxTrain: the final "(...)" is the id even when glued
      {"TEN OF(2)", {"TEN", "OF"}, "2"},  // ... so a final alternate without an id reads as one
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const TranscriptEntry entry = ParseTranscriptLine(c.line, 7);
    EXPECT_EQ(entry.words, c.words);
    EXPECT_EQ(entry.utt_id, c.utt_id);
    EXPECT_EQ(entry.line_number, 7u);
  }
}

TEST(ControlFileTest, TranscriptLineErrors) {
  struct Case {
    std::string line;
    std::string expected;
  };
  const Case cases[] = {
      {"TEN CLUBS )", "line ends with ')' but has no '('"},
      {"TEN CLUBS ()", "empty utterance id"},
      {"TEN CLUBS (utt 1)", "utterance id \"utt 1\" contains whitespace"},
      {"(001)", "no words before the utterance id (001)"},
      {"   ", "empty transcript"},
      {"TEN\rCLUBS (001)", "control character 0x0d"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const std::string message = InputErrorMessage([&] { ParseTranscriptLine(c.line, 3); });
    EXPECT_NE(message.find("line 3: " + c.expected), std::string::npos) << message;
  }
}

TEST(ControlFileTest, TranscriptFile) {
  const auto entries =
      ParseTranscriptFile("# comment\n<s> TEN </s> (001)\r\n<s> FIVE FIVE </s> (002)\n\n", "cards.transcription");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].words, (Words{"<s>", "TEN", "</s>"}));
  EXPECT_EQ(entries[0].line_number, 2u);
  EXPECT_EQ(entries[1].utt_id, "002");
  EXPECT_EQ(entries[1].line_number, 3u);
}

TEST(ControlFileTest, TranscriptFileErrorsNameFileAndLine) {
  std::string message = InputErrorMessage([] { ParseTranscriptFile("A (1)\nB (2) )\n", "t.transcription"); });
  EXPECT_NE(message.find("t.transcription:2: "), std::string::npos) << message;
  message = InputErrorMessage([] { ParseTranscriptFile("A (1)\n\nB (2)\n", "t.transcription"); });
  EXPECT_NE(message.find("t.transcription:2: blank line"), std::string::npos) << message;
}

}  // namespace
}  // namespace pstrain
