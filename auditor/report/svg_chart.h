// The auditor's one SVG chart: a line chart of values per pass (audit compare's log-likelihood per
// frame, audit characterize's differences by pass), on a linear or a log10 axis, that stays
// well-formed and finite for any values, zeros, infinities and NaN included.
#pragma once

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

}  // namespace pstrain::audit
