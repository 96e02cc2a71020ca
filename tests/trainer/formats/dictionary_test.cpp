// Tests for the Sphinx dictionary reader (trainer/formats/dictionary.h).
#include "formats/dictionary.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

std::vector<std::string> Words(const std::vector<const Pronunciation*>& prons) {
  std::vector<std::string> words;
  for (const Pronunciation* pron : prons) words.push_back(pron->word);
  return words;
}

using test::InputErrorMessage;

TEST(DictionaryTest, LookupIsCaseSensitiveAndLiteral) {
  const Dictionary dict = Dictionary::Parse("TEN T EH N\nclubs K L AH B Z\n", "main.dic", false);
  ASSERT_NE(dict.Find("TEN"), nullptr);
  EXPECT_EQ(dict.Find("TEN")->phones, (std::vector<std::string>{"T", "EH", "N"}));
  EXPECT_EQ(dict.Find("ten"), nullptr);
  EXPECT_EQ(dict.Find("CLUBS"), nullptr);
  EXPECT_NE(dict.Find("clubs"), nullptr);
  EXPECT_EQ(dict.size(), 2u);
}

TEST(DictionaryTest, AlternatesAreSeparateEntriesInNumericVariantOrder) {
  // Written out of order; WORD(10) must come after WORD(9) although it sorts before WORD(2) as text.
  const std::string text =
      "WORD(10) W 10\nWORD(2) W 2\nWORD W 1\nWORD(9) W 9\nWORD(3) W 3\nWORD(4) W 4\n"
      "WORD(5) W 5\nWORD(6) W 6\nWORD(7) W 7\nWORD(8) W 8\n"
      "WORDS W Z\nWORD(1) W X\nWORD(02) W Y\nOF AH V\nOF(2) AH\n";
  const Dictionary dict = Dictionary::Parse(text, "main.dic", false);
  EXPECT_EQ(Words(dict.Variants("WORD")),
            (std::vector<std::string>{"WORD", "WORD(2)", "WORD(3)", "WORD(4)", "WORD(5)", "WORD(6)", "WORD(7)",
                                      "WORD(8)", "WORD(9)", "WORD(10)"}));
  EXPECT_EQ(Words(dict.Variants("OF")), (std::vector<std::string>{"OF", "OF(2)"}));
  // An explicit alternate is found literally; it is not itself a base word.
  ASSERT_NE(dict.Find("OF(2)"), nullptr);
  EXPECT_EQ(dict.Find("OF(2)")->phones, (std::vector<std::string>{"AH"}));
  EXPECT_TRUE(dict.Variants("OF(2)").empty());
  // Non-variant spellings are headwords of their own.
  EXPECT_EQ(Words(dict.Variants("WORD(1)")), (std::vector<std::string>{"WORD(1)"}));
  EXPECT_TRUE(dict.Variants("MISSING").empty());
}

TEST(DictionaryTest, VariantsWithoutBaseFormKeepNumericOrder) {
  const Dictionary dict = Dictionary::Parse("A(3) X\nA(2) Y\n", "d", false);
  EXPECT_EQ(Words(dict.Variants("A")), (std::vector<std::string>{"A(2)", "A(3)"}));
}

TEST(DictionaryTest, SplitVariant) {
  struct Case {
    std::string headword;
    std::string base;
    int number;
  };
  const Case cases[] = {
      {"WORD", "WORD", 1},       {"WORD(2)", "WORD", 2},     {"WORD(10)", "WORD", 10},
      {"WORD(1)", "WORD(1)", 1}, {"WORD(02)", "WORD(02)", 1}, {"WORD(x)", "WORD(x)", 1},
      {"(2)", "(2)", 1},         {"WORD()", "WORD()", 1},     {"A(B)(3)", "A(B)", 3},
      {"W(1234567890)", "W(1234567890)", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.headword);
    EXPECT_EQ(SplitVariant(c.headword), std::make_pair(c.base, c.number));
  }
}

TEST(DictionaryTest, FirstDefinitionWinsAndDuplicatesAreRecorded) {
  const Dictionary dict = Dictionary::Parse("OF AH V\nTEN T EH N\nOF AO F\nOF AX\n", "main.dic", false);
  ASSERT_NE(dict.Find("OF"), nullptr);
  EXPECT_EQ(dict.Find("OF")->phones, (std::vector<std::string>{"AH", "V"}));
  EXPECT_EQ(dict.duplicates(), (std::vector<std::string>{"OF", "OF"}));
  EXPECT_EQ(dict.size(), 2u);
}

TEST(DictionaryTest, FillerFlagComesFromTheCaller) {
  const Dictionary filler = Dictionary::Parse("<s> SIL\n</s> SIL\n++NOISE++ +NOISE+\n", "noisedict", true);
  ASSERT_NE(filler.Find("<s>"), nullptr);
  EXPECT_TRUE(filler.Find("<s>")->is_filler);
  EXPECT_TRUE(filler.Find("++NOISE++")->is_filler);
  const Dictionary main = Dictionary::Parse("TEN T EH N\n", "main.dic", false);
  EXPECT_FALSE(main.Find("TEN")->is_filler);
}

TEST(DictionaryTest, TabsRunsOfSpacesAndCrlfSeparate) {
  const Dictionary dict = Dictionary::Parse("TEN\tT\tEH N\r\n  FOUR   F  AO\t R \t\r\nFIVE F AY V", "d", false);
  EXPECT_EQ(dict.Find("TEN")->phones, (std::vector<std::string>{"T", "EH", "N"}));
  EXPECT_EQ(dict.Find("FOUR")->phones, (std::vector<std::string>{"F", "AO", "R"}));
  EXPECT_EQ(dict.Find("FIVE")->phones, (std::vector<std::string>{"F", "AY", "V"}));  // no final newline
  EXPECT_EQ(dict.size(), 3u);
}

TEST(DictionaryTest, CommentAndBlankLinesAreSkipped) {
  const Dictionary dict = Dictionary::Parse("# a comment\n\n   \n\t# indented comment\nTEN T EH N\n\n", "d", false);
  EXPECT_EQ(dict.size(), 1u);
  EXPECT_NE(dict.Find("TEN"), nullptr);
}

TEST(DictionaryTest, HeadwordWithoutPhonesIsAnErrorNamingFileAndLine) {
  const std::string message =
      InputErrorMessage([] { Dictionary::Parse("TEN T EH N\n# comment\nFOUR   \nFIVE F AY V\n", "cards.dic", false); });
  EXPECT_NE(message.find("cards.dic:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("FOUR"), std::string::npos) << message;
  EXPECT_NE(message.find("no phones"), std::string::npos) << message;
}

TEST(DictionaryTest, ControlCharacterInsideALineIsAnError) {
  const std::string message = InputErrorMessage([] { Dictionary::Parse("TEN T\rEH N\n", "d.dic", false); });
  EXPECT_NE(message.find("d.dic:1:"), std::string::npos) << message;
  EXPECT_NE(message.find("control character 0x0d"), std::string::npos) << message;
}

TEST(DictionaryTest, MergeKeepsExistingHeadwordsAndRecordsConflicts) {
  Dictionary main = Dictionary::Parse("SIL_WORD S IH L\nTEN T EH N\nTEN T IH N\n", "main.dic", false);
  const Dictionary filler = Dictionary::Parse("<s> SIL\n<sil> SIL\n<sil> SP\nSIL_WORD SIL\n", "noisedict", true);
  main.Merge(filler);
  EXPECT_EQ(main.size(), 4u);
  ASSERT_NE(main.Find("SIL_WORD"), nullptr);
  EXPECT_FALSE(main.Find("SIL_WORD")->is_filler);  // the main dictionary's definition wins
  EXPECT_EQ(main.Find("SIL_WORD")->phones, (std::vector<std::string>{"S", "IH", "L"}));
  ASSERT_NE(main.Find("<s>"), nullptr);
  EXPECT_TRUE(main.Find("<s>")->is_filler);
  EXPECT_EQ(main.Find("<sil>")->phones, (std::vector<std::string>{"SIL"}));
  // Own duplicates, then the merged dictionary's own duplicates, then merge conflicts.
  EXPECT_EQ(main.duplicates(), (std::vector<std::string>{"TEN", "<sil>", "SIL_WORD"}));
  // The merged-in dictionary is unchanged.
  EXPECT_EQ(filler.size(), 3u);
}

// Find goes through an index into the entries: a copy finds its own entries (not the original's,
// which may be gone), a moved-to dictionary the moved ones, and a reassigned one only its new ones.
TEST(DictionaryTest, CopiesAndMovesFindTheirOwnEntries) {
  auto original = std::make_unique<Dictionary>(Dictionary::Parse("ONE W AH N\nTWO T UW\n", "main.dic", false));
  Dictionary copy = *original;
  Dictionary assigned = Dictionary::Parse("THREE TH R IY\n", "other.dic", false);
  assigned = *original;
  ASSERT_NE(copy.Find("ONE"), nullptr);
  EXPECT_NE(copy.Find("ONE"), original->Find("ONE"));
  EXPECT_NE(assigned.Find("TWO"), original->Find("TWO"));
  EXPECT_EQ(assigned.Find("THREE"), nullptr);
  original.reset();
  EXPECT_EQ(copy.Find("ONE")->phones, (std::vector<std::string>{"W", "AH", "N"}));
  EXPECT_EQ(assigned.Find("TWO")->phones, (std::vector<std::string>{"T", "UW"}));
  const Pronunciation* two = copy.Find("TWO");
  Dictionary moved = std::move(copy);
  EXPECT_EQ(moved.Find("TWO"), two);
  Dictionary move_assigned = Dictionary::Parse("THREE TH R IY\n", "other.dic", false);
  move_assigned = std::move(moved);
  EXPECT_EQ(move_assigned.Find("TWO"), two);
  EXPECT_EQ(move_assigned.Find("THREE"), nullptr);
  EXPECT_EQ(move_assigned.Find("TWO")->phones, (std::vector<std::string>{"T", "UW"}));
  // Moved-from dictionaries are empty and find nothing; assigning one to itself changes nothing.
  EXPECT_EQ(moved.size(), 0u);
  EXPECT_EQ(moved.Find("TWO"), nullptr);
  Dictionary& alias = move_assigned;
  move_assigned = std::move(alias);
  move_assigned = alias;
  EXPECT_EQ(move_assigned.Find("TWO"), two);
  EXPECT_EQ(move_assigned.size(), 2u);
}

// More headwords than the index's first size (64 slots, at most half full), merged and copied:
// each is found with its own phones, and words that differ from one by a byte or a suffix are not.
// (Strings built as std::string("...") + ...: "..." + a temporary string trips GCC 12's
// -Wrestrict false positive.)
TEST(DictionaryTest, ManyHeadwordsAreFoundAfterTheIndexGrows) {
  std::string main_text, filler_text;
  for (int i = 0; i < 700; ++i) main_text += std::string("WORD") + std::to_string(i) + std::string(" P") + std::to_string(i % 40) + " Q\n";
  for (int i = 0; i < 20; ++i) filler_text += std::string("+NOISE") + std::to_string(i) + "+ SIL\n";
  Dictionary merged = Dictionary::Parse(main_text, "main.dic", false);
  merged.Merge(Dictionary::Parse(filler_text, "filler.dic", true));
  const Dictionary copy = merged;
  ASSERT_EQ(copy.size(), 720u);
  for (int i = 0; i < 700; ++i) {
    const std::string word = std::string("WORD") + std::to_string(i);
    const Pronunciation* pron = copy.Find(word);
    ASSERT_NE(pron, nullptr) << word;
    EXPECT_EQ(pron->word, word);
    EXPECT_EQ(pron->phones, (std::vector<std::string>{std::string("P") + std::to_string(i % 40), "Q"})) << word;
    EXPECT_EQ(copy.Find(word + "X"), nullptr) << word;
    EXPECT_EQ(copy.Find(std::string("word") + std::to_string(i)), nullptr) << word;
  }
  for (int i = 0; i < 20; ++i) {
    const Pronunciation* pron = merged.Find(std::string("+NOISE") + std::to_string(i) + "+");
    ASSERT_NE(pron, nullptr);
    EXPECT_TRUE(pron->is_filler);
  }
  EXPECT_EQ(copy.Find(""), nullptr);
  EXPECT_EQ(copy.Find("WORD700"), nullptr);
  EXPECT_EQ(Dictionary().Find("WORD1"), nullptr);
}

TEST(DictionaryTest, LoadReportsMissingFile) {
  const std::string message =
      InputErrorMessage([] { Dictionary::Load("/nonexistent/pstrain/dictionary_test.dic", false); });
  EXPECT_NE(message.find("/nonexistent/pstrain/dictionary_test.dic"), std::string::npos) << message;
}

}  // namespace
}  // namespace pstrain
