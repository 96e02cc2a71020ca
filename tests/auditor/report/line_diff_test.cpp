// Tests for the auditor's one line diff (auditor/report/line_diff.h), as GNU `diff -u` writes it.
#include "report/line_diff.h"

#include <gtest/gtest.h>

#include <string>

namespace pstrain::audit {
namespace {

TEST(LineDiffTest, AFinalNewlineIsADifference) {
  const LineDiff d = DiffLines("a\nb\n", "a\nb");
  EXPECT_FALSE(d.Identical());
  EXPECT_EQ(d.removed, 1u);
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(RenderUnifiedDiff(d, "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
}

TEST(LineDiffTest, MissingNewlineOnBothSidesIsNotADifference) {
  EXPECT_TRUE(DiffLines("a\nb", "a\nb").Identical());
  EXPECT_EQ(RenderUnifiedDiff(DiffLines("a\nb", "a\nc"), "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
}

TEST(LineDiffTest, ContextLineWithoutNewlineIsMarked) {
  EXPECT_EQ(RenderUnifiedDiff(DiffLines("a\nz", "b\nz"), "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n-a\n+b\n z\n\\ No newline at end of file\n");
}

TEST(LineDiffTest, HeadersFollowGnuDiff) {
  EXPECT_EQ(DiffLines("", "a\n").hunks.at(0).Header(), "@@ -0,0 +1 @@");
  EXPECT_EQ(DiffLines("a\n", "").hunks.at(0).Header(), "@@ -1 +0,0 @@");
  EXPECT_EQ(DiffLines("1\n2\n3\n", "1\n2\n").hunks.at(0).Header(), "@@ -1,3 +1,2 @@");
  // Line numbers of A can start elsewhere (a section of a larger document).
  EXPECT_EQ(DiffLines("old\n", "new\n", 3, 6).hunks.at(0).Header(), "@@ -6 +1 @@");
}

TEST(LineDiffTest, IdenticalTextsRenderNothing) {
  EXPECT_EQ(RenderUnifiedDiff(DiffLines("a\n", "a\n"), "x", "y"), "");
  EXPECT_EQ(RenderUnifiedDiff(DiffLines("", ""), "x", "y"), "");
}

TEST(LineDiffTest, HunksFollowDiffU) {
  const LineDiff same = DiffLines("a\nb\n", "a\nb\n");
  EXPECT_TRUE(same.Identical());
  EXPECT_TRUE(same.hunks.empty());

  // The same hunks as GNU `diff -u` (checked by hand): a changed line and an appended one.
  std::string a, b;
  for (int i = 1; i <= 20; ++i) a += std::to_string(i) + "\n";
  for (int i = 1; i <= 21; ++i) b += (i == 5 ? std::string("five") : std::to_string(i)) + "\n";
  const LineDiff d = DiffLines(a, b);
  EXPECT_EQ(d.removed, 1u);
  EXPECT_EQ(d.added, 2u);
  ASSERT_EQ(d.hunks.size(), 2u);
  EXPECT_EQ(d.hunks[0].Header(), "@@ -2,7 +2,7 @@");
  EXPECT_EQ(d.hunks[1].Header(), "@@ -18,3 +18,4 @@");
  EXPECT_EQ(d.hunks[1].lines.back().op, '+');
  EXPECT_EQ(d.hunks[1].lines.back().text, "21");
  // Changes closer than 2 x 3 context lines share a hunk.
  EXPECT_EQ(DiffLines("1\n2\n3\n4\n5\n6\n7\n8\n", "1\nX\n3\n4\n5\n6\n7\nY\n").hunks.size(), 1u);

  const LineDiff added = DiffLines("", "x\n");
  ASSERT_EQ(added.hunks.size(), 1u);
  EXPECT_EQ(added.hunks[0].Header(), "@@ -0,0 +1 @@");
  EXPECT_EQ(DiffLines("1\n2\n3\n", "1\n2\n").hunks.at(0).Header(), "@@ -1,3 +1,2 @@");
}

}  // namespace
}  // namespace pstrain::audit
