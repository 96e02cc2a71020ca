// Tests for the auditor's shared report helpers (auditor/report/report_text.h).
#include "report/report_text.h"
#include "report/xml_text.h"

#include <gtest/gtest.h>

#include <string>

namespace pstrain::audit {
namespace {

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
