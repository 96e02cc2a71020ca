// Tests for the auditor's shared report builders (auditor/report/): the HTML page and table, the
// JUnit writer and the SVG charts (line chart, heat map) stay well-formed XML whatever text and
// values they are given.
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

// The heat map's exact form (audit compare's per-state map draws through it): one row label per
// 40 cells, a 13-pixel square per cell coloured by its value, a tooltip with 6 digits.
TEST(ReportBuildersTest, HeatMapDrawsOneColouredSquarePerCell) {
  HeatMap map;
  map.aria_label = "per-state heat map of means";
  map.value_name = "max |A-B|";
  map.cells = {{0, 0.5, "state 0", ", 2 differing, 1 outside tolerance"}, {1, 0.0, "state 1", ", 0 differing, 0 outside tolerance"}};
  EXPECT_EQ(RenderHeatMap(map),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"616\" height=\"30\" viewBox=\"0 0 616 30\" role=\"img\" "
            "aria-label=\"per-state heat map of means\">\n"
            "<text x=\"44\" y=\"19\" font-size=\"10\" text-anchor=\"end\" font-family=\"sans-serif\">0</text>\n"
            "<rect x=\"48\" y=\"8\" width=\"13\" height=\"13\" fill=\"#a50000\"><title>state 0: max |A-B| 0.5, 2 differing, 1 "
            "outside tolerance</title></rect>\n"
            "<rect x=\"62\" y=\"8\" width=\"13\" height=\"13\" fill=\"#eeeeee\"><title>state 1: max |A-B| 0, 0 differing, 0 "
            "outside tolerance</title></rect>\n"
            "</svg>\n");
  // Rows follow the largest index: cell 45 is on the second row, inside the picture.
  map.cells = {{45, 1e-2, "state 45", ""}, {3, 1.0, "state 3", ""}};
  const std::string two_rows = RenderHeatMap(map);
  EXPECT_NE(two_rows.find("height=\"44\""), std::string::npos) << two_rows;
  EXPECT_NE(two_rows.find(">40</text>"), std::string::npos) << two_rows;
  // Two decades below the largest: two thirds along the six-decade scale.
  EXPECT_NE(two_rows.find("<rect x=\"118\" y=\"22\" width=\"13\" height=\"13\" fill=\"#c34e49\"><title>state 45: max |A-B| 0.01</title>"),
            std::string::npos)
      << two_rows;
  map.cells.clear();
  EXPECT_EQ(RenderHeatMap(map), "<p>per-state heat map of means: no values are recorded.</p>\n");
}

// A non-finite value has no colour on the log scale: it is drawn as such (an outlined white cell, a
// tooltip and a note), never as a "nan" or "inf" attribute, and does not wash out the finite cells.
TEST(ReportBuildersTest, HeatMapDrawsNonFiniteCellsAsSuchAndStaysWellFormed) {
  const double inf = std::numeric_limits<double>::infinity();
  HeatMap map;
  map.aria_label = "heat map of " + kHostile + "\nline two";
  map.value_name = "max |A-B|";
  map.cells = {{0, 2.0, "state 0 " + kHostile, ", 1 differing"},
               {1, inf, "state 1", ", 3 differing"},
               {2, std::nan(""), "state 2", ""},
               {3, -inf, "state 3", ""},
               {4, 2e-2, "state 4", ""}};
  const std::string svg = RenderHeatMap(map);
  for (const char* bad : {"nan\"", "inf\"", "=\"-nan", "=\"inf", "=\"nan"}) EXPECT_EQ(svg.find(bad), std::string::npos) << bad << "\n" << svg;
  EXPECT_NE(svg.find("<rect class=\"nonfinite\" x=\"62\" y=\"8\" width=\"13\" height=\"13\" fill=\"#ffffff\" stroke=\"#a50000\">"
                     "<title>state 1: max |A-B| +inf (not a finite number), 3 differing</title></rect>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>state 2: max |A-B| NaN (not a finite number)</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>state 3: max |A-B| -inf (not a finite number)</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("not finite numbers"), std::string::npos) << svg;
  EXPECT_NE(svg.find("height=\"44\""), std::string::npos) << svg;  // room for the note
  // The finite cells are scaled by the largest finite value (2.0), not by +inf.
  EXPECT_NE(svg.find("fill=\"#a50000\"><title>state 0 "), std::string::npos) << svg;
  EXPECT_NE(svg.find("fill=\"#c34e49\"><title>state 4:"), std::string::npos) << svg;
  EXPECT_NE(svg.find("aria-label=\"heat map of "), std::string::npos) << svg;
  EXPECT_NE(svg.find("&#10;line two\""), std::string::npos) << svg;  // an attribute keeps its newline
  EXPECT_EQ(svg.find('\0'), std::string::npos);
  EXPECT_TRUE(WellFormed(svg, "heat-map.svg")) << svg;
}

}  // namespace
}  // namespace pstrain::audit
