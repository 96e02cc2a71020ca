// Tests for the auditor's shared report builders (auditor/report/): the HTML page and table, the
// JUnit writer and the SVG chart stay well-formed XML whatever text they are given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "report/html_page.h"
#include "report/junit_writer.h"
#include "report/svg_chart.h"
#include "report/xml_text.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;

// Bytes that are not well-formed UTF-8 or not XML characters: an overlong '<', a surrogate, a
// truncated sequence, a code point above U+10FFFF, U+FFFE, NUL and ESC.
const std::string kHostile = std::string("x\xc0\xbc y\xed\xa0\x80 z\xe2\x82 \xf4\x90\x80\x80 \xef\xbf\xbe ") +
                             std::string("\0\x1b", 2) + "<&>\"'";

// Whether xmllint (Debian's libxml2-utils, installed by scripts/bootstrap.sh) accepts `text`.
bool WellFormed(const std::string& text, const std::string& name) {
  const fs::path file = fs::temp_directory_path() / ("pstrain-report-builders-" + name);
  std::ofstream(file, std::ios::binary) << text;
  const std::string command = "xmllint --noout " + file.string() + " 2>&1";
  const bool ok = std::system(command.c_str()) == 0;
  fs::remove(file);
  return ok;
}

TEST(ReportBuildersTest, HtmlPageWithHostileTextIsWellFormed) {
  HtmlTable table({"name " + kHostile, "value"});
  table.Row({XmlEscape(kHostile), "<code>" + XmlEscape("a\xff") + "</code>"}, "diff");
  const std::string page = HtmlPageStart("title " + kHostile, "heading " + kHostile) + table.Render() + HtmlPageEnd();
  EXPECT_EQ(page.find('\0'), std::string::npos);
  EXPECT_NE(page.find("x\\xc0\\xbc y\\xed\\xa0\\x80"), std::string::npos) << page;
  EXPECT_TRUE(WellFormed(page, "page.html")) << page;
}

TEST(ReportBuildersTest, JunitWithHostileTextIsWellFormed) {
  JunitSuite suite{"Gate" + kHostile, {}};
  JunitCase failed;
  failed.name = "Case" + kHostile;
  failed.classname = suite.name;
  failed.properties = {{"run", "line one\nline two\t" + kHostile}};
  failed.outcome = JunitCase::Outcome::kFailure;
  failed.message = kHostile;
  JunitCase passed;
  passed.name = "Passed";
  suite.cases = {failed, passed};
  const std::string xml = RenderJunit("audit gates", {suite});
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\" errors=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("value=\"line one&#10;line two&#9;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"Passed\" classname=\"\" time=\"0\"/>"), std::string::npos) << xml;
  EXPECT_TRUE(WellFormed(xml, "junit.xml")) << xml;
}

TEST(ReportBuildersTest, ChartOfExtremeValuesHasOnlyFiniteCoordinates) {
  const double inf = std::numeric_limits<double>::infinity();
  // Initialized whole: member-by-member string assignments here trip GCC 12's false -Wrestrict.
  LineChart chart{.title = "t " + kHostile,
                  .aria_label = "",
                  .y_label = "y",
                  .log_scale = false,
                  .series = {{"A" + kHostile, "#000", false, {1e308, -1e308, inf, std::nullopt, std::nan("")}},
                             {"B", "#111", true, {0.0, 2.0, -inf}}}};
  const std::string svg = RenderLineChart(chart);
  for (const char* bad : {"nan\"", "inf\"", "=\"-nan", "e+308\" "}) EXPECT_EQ(svg.find(bad), std::string::npos) << bad << "\n" << svg;
  EXPECT_NE(svg.find("pass 3: +inf (not a finite number)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("pass 5: NaN (not a finite number)"), std::string::npos) << svg;
  EXPECT_TRUE(WellFormed(svg, "chart.svg")) << svg;

  chart.log_scale = true;  // a zero sits on the bottom edge, hollow
  const std::string log_svg = RenderLineChart(chart);
  EXPECT_NE(log_svg.find("fill=\"white\""), std::string::npos) << log_svg;
  EXPECT_NE(log_svg.find("exactly zero"), std::string::npos) << log_svg;
  EXPECT_TRUE(WellFormed(log_svg, "log-chart.svg")) << log_svg;
}

TEST(ReportBuildersTest, ChartWithoutValuesSaysSo) {
  LineChart chart;
  chart.aria_label = "nothing";
  chart.series = {{"A", "#000", false, {std::nullopt}}};
  EXPECT_EQ(RenderLineChart(chart), "<p>nothing: no values are recorded.</p>\n");
}

}  // namespace
}  // namespace pstrain::audit
