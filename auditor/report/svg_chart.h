// The auditor's SVG charts: a line chart of values per pass (audit compare's log-likelihood per
// frame, audit characterize's differences by pass), on a linear or a log10 axis, and a heat map of
// one value per cell (audit compare's largest difference per state). Both stay well-formed and
// finite for any values, zeros, infinities and NaN included, and escape all text with xml_text.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pstrain::audit {

struct ChartSeries {
  std::string name;
  std::string colour;  // an SVG colour, e.g. "#1f5fbf"
  bool dashed = false;
  std::vector<std::optional<double>> values;  // values[i] is pass i + 1; nullopt: not recorded
};

struct LineChart {
  std::string title;       // drawn above the plot when not empty; also the aria-label
  std::string aria_label;  // overrides the title as the label
  std::string y_label;
  bool log_scale = false;  // log10; zeros (and negatives) sit on the bottom edge as hollow markers
  std::vector<ChartSeries> series;
};

// The <svg> element. Finite values are placed on an axis rounded out to a 1-2-5 step (decades on a
// log axis), computed in halves so that a span of -1e308 .. 1e308 does not overflow. A non-finite
// value gets a hollow triangle on the top (+inf) or bottom (-inf, NaN) edge with a label. Every
// point has a <title> tooltip. A chart with no recorded value is a sentence instead.
std::string RenderLineChart(const LineChart& chart);

// Converts a plain series of values, one per pass.
std::vector<std::optional<double>> ChartValues(const std::vector<double>& values);

struct HeatCell {
  std::size_t index = 0;  // its place: row index / columns, column index % columns
  double value = 0.0;     // the colour (see RenderHeatMap)
  std::string label;      // the tooltip: "LABEL: VALUE_NAME VALUE" + detail
  std::string detail;
};

struct HeatMap {
  std::string aria_label;
  std::string value_name;  // e.g. "max |A-B|"
  std::size_t columns = 40;
  std::vector<HeatCell> cells;
};

// The <svg> element: one 13-pixel square per cell, `columns` to a row, each row labelled with the
// index of its first cell. A finite value above zero is coloured from light to dark red on a log
// scale over the six decades below the largest finite value; zero (or less) is grey. A non-finite
// value has no place on that scale: its cell is white with a dark red outline, its tooltip says
// "+inf (not a finite number)" (-inf, NaN), and a note below the grid explains the outline. Every
// cell has a <title> tooltip; the value is printed with 6 significant digits. A map with no cell is
// a sentence instead.
std::string RenderHeatMap(const HeatMap& map);

}  // namespace pstrain::audit
