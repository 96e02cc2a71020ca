// Tests for the auditor's shared report helpers (auditor/report_text.h).
#include "report_text.h"

#include <gtest/gtest.h>

#include <string>

namespace pstrain::audit {
namespace {

TEST(ReportTextTest, HtmlEscapeKeepsPagesWellFormedXml) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(HtmlEscape("tab\tand\nnewline"), "tab\tand\nnewline");
  EXPECT_EQ(HtmlEscape(std::string("nul\0bel\a", 8)), "nul\\x00bel\\x07");
  EXPECT_EQ(HtmlEscape("caf\xc3\xa9"), "caf\xc3\xa9");           // valid UTF-8 is kept
  EXPECT_EQ(HtmlEscape("bad \xc3 byte"), "bad \\xc3 byte");      // a lone lead byte is not
  EXPECT_EQ(HtmlEscape("\xff\x7f"), "\\xff\\x7f");
}

TEST(ReportTextTest, PluralAndJsonStrings) {
  EXPECT_EQ(Plural(1, "file", "files"), "1 file");
  EXPECT_EQ(Plural(0, "file", "files"), "0 files");
  EXPECT_EQ(boost::json::serialize(JsonStrings({"a", "b\""})), "[\"a\",\"b\\\"\"]");
}

TEST(ReportTextTest, LastLines) {
  EXPECT_EQ(LastLines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(LastLines("a\nb\nc", 2), "b\nc");
  EXPECT_EQ(LastLines("a\nb\n", 5), "a\nb\n");
  EXPECT_EQ(LastLines("", 3), "");
}

}  // namespace
}  // namespace pstrain::audit
