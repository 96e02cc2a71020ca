// The auditor's SVG charts: the line chart (axis scaling, ticks, series, markers for zeros and
// non-finite values) and the heat map (cell colours on a log scale, outlines for non-finite values).
#include "report/svg_chart.h"

#include "report/xml_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace pstrain::audit {
namespace {

constexpr double kWidth = 640, kHeight = 320, kLeft = 90, kRight = 200, kTop = 30, kBottom = 50;

std::string Num(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, v);
  return buffer;
}

struct Axis {
  double lo = -1, hi = 1, step = 0.5;
  int ticks = 4;
  bool has_zero = false;  // log scale: some value is <= 0
};

// The value as placed on the axis (log10 on a log axis), or nullopt when it has no place.
std::optional<double> AxisValue(double v, bool log_scale) {
  if (!std::isfinite(v)) return std::nullopt;
  if (!log_scale) return v;
  return v > 0 ? std::optional<double>(std::log10(v)) : std::nullopt;
}

Axis MakeAxis(const LineChart& chart) {
  Axis axis;
  double lo = INFINITY, hi = -INFINITY;
  for (const ChartSeries& s : chart.series) {
    for (const std::optional<double>& v : s.values) {
      if (!v) continue;
      if (chart.log_scale && std::isfinite(*v) && *v <= 0) axis.has_zero = true;
      if (const std::optional<double> a = AxisValue(*v, chart.log_scale)) lo = std::min(lo, *a), hi = std::max(hi, *a);
    }
  }
  if (chart.log_scale) {
    if (!(lo <= hi)) lo = -8, hi = -7;  // nothing positive to scale by
    axis.lo = std::floor(lo) - (axis.has_zero ? 1 : 0);
    axis.hi = std::max(std::ceil(hi), axis.lo + 1);
    axis.ticks = static_cast<int>(axis.hi - axis.lo);
    axis.step = 1;
    return axis;
  }
  if (!(lo <= hi)) lo = -1.0, hi = 1.0;  // only non-finite values: an arbitrary axis
  // Halves, so that a span of -1e308 .. 1e308 does not overflow to infinity (NaN coordinates).
  if (hi / 2 - lo / 2 < 0.5e-9 * std::max(1.0, std::fabs(hi))) lo -= 0.5, hi += 0.5;
  // Round the axis out to a 1-2-5 step so that the tick labels are short (not when that overflows).
  const double raw = (hi / 2 - lo / 2) / 2.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  double step = (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * magnitude;
  const double rounded_lo = std::floor(lo / step) * step, rounded_hi = std::ceil(hi / step) * step;
  int ticks = 4;
  if (std::isfinite(step) && std::isfinite(rounded_lo) && std::isfinite(rounded_hi) &&
      std::isfinite(rounded_hi / 2 - rounded_lo / 2)) {
    lo = rounded_lo;
    hi = rounded_hi;
    ticks = static_cast<int>(std::lround((hi / 2 - lo / 2) / step * 2));
  } else {
    step = (hi / 2 - lo / 2) / 2.0;  // ticks * step / 2 = half the span
  }
  axis.lo = lo, axis.hi = hi, axis.step = step, axis.ticks = std::max(ticks, 1);
  return axis;
}

// A heat-map cell's colour for a finite `value`: grey for zero (or less), else light to dark red on
// a log scale over the six decades below `max_value` (the largest finite value of the map).
std::string HeatColour(double value, double max_value) {
  if (value <= 0.0) return "#eeeeee";
  double t = 1.0;
  if (std::isfinite(max_value) && max_value > 0.0) t = (std::log10(value) - std::log10(max_value) + 6.0) / 6.0;
  t = std::clamp(t, 0.08, 1.0);
  const int r = static_cast<int>(std::lround(255 - t * (255 - 165)));
  const int g = static_cast<int>(std::lround(235 - t * 235));
  const int b = static_cast<int>(std::lround(220 - t * 220));
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "#%02x%02x%02x", r, g, b);
  return buffer;
}

}  // namespace

std::vector<std::optional<double>> ChartValues(const std::vector<double>& values) {
  return {values.begin(), values.end()};
}

std::string RenderLineChart(const LineChart& chart) {
  std::size_t passes = 0;
  bool any = false;
  for (const ChartSeries& s : chart.series) {
    passes = std::max(passes, s.values.size());
    for (const std::optional<double>& v : s.values) any = any || v.has_value();
  }
  const std::string label = chart.aria_label.empty() ? chart.title : chart.aria_label;
  if (!any) return "<p>" + XmlEscape(label) + ": no values are recorded.</p>\n";
  const Axis axis = MakeAxis(chart);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double n = static_cast<double>(passes);
  const auto x = [&](std::size_t i) { return kLeft + (static_cast<double>(i) + 0.5) / n * plot_w; };
  const auto y = [&](double v) { return kTop + (axis.hi / 2 - v / 2) / (axis.hi / 2 - axis.lo / 2) * plot_h; };
  const auto c = [](double v) { return Num(v, 7); };

  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 "
      << kWidth << " " << kHeight << "\" role=\"img\" aria-label=\"" << XmlAttributeEscape(label)
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  if (!chart.title.empty()) {
    out << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">" << XmlEscape(chart.title) << "</text>\n";
  }
  out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"#fafafa\" stroke=\"#888\"/>\n";
  for (int t = 0; t <= axis.ticks; ++t) {
    const double v = t == axis.ticks ? axis.hi : axis.lo + axis.step * t;
    std::string text = chart.log_scale ? "1e" + Num(v, 4) : Num(v, 6);
    if (chart.log_scale && axis.has_zero && t == 0) text = "0";
    out << "<line x1=\"" << kLeft - 4 << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << c(y(v)) << "\" y2=\"" << c(y(v))
        << "\" stroke=\"#ddd\"/><text x=\"" << kLeft - 6 << "\" y=\"" << c(y(v) + 4) << "\" text-anchor=\"end\">"
        << XmlEscape(text) << "</text>\n";
  }
  const std::size_t stride = std::max<std::size_t>(1, passes / 12);
  for (std::size_t i = 0; i < passes; i += stride) {
    out << "<text x=\"" << c(x(i)) << "\" y=\"" << kHeight - kBottom + 16 << "\" text-anchor=\"middle\">" << i + 1 << "</text>\n";
  }
  out << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 12 << "\" text-anchor=\"middle\">pass</text>\n";
  out << "<text x=\"14\" y=\"" << kTop + plot_h / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << kTop + plot_h / 2
      << ")\">" << XmlEscape(chart.y_label) << "</text>\n";

  std::size_t row = 0;
  for (const ChartSeries& s : chart.series) {
    const std::string dash = s.dashed ? " stroke-dasharray=\"6 4\"" : "";
    const std::string name = XmlEscape(s.name);
    std::string points;
    std::ostringstream marks;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!s.values[i]) continue;
      const double v = *s.values[i];
      const std::string pass = ", pass " + std::to_string(i + 1) + ": ";
      if (!std::isfinite(v)) {
        // No place on the axis: a hollow triangle on the top edge (+inf) or the bottom edge (-inf, NaN).
        const bool top = v > 0;
        const char* text = std::isnan(v) ? "NaN" : top ? "+inf" : "-inf";
        const double cx = x(i), cy = top ? kTop : kTop + plot_h, tip = top ? -6 : 6;
        marks << "<path class=\"nonfinite\" d=\"M " << c(cx) << " " << c(cy + tip) << " L " << c(cx + 5) << " " << c(cy - tip / 2)
              << " L " << c(cx - 5) << " " << c(cy - tip / 2) << " Z\" fill=\"#fff\" stroke=\"" << s.colour
              << "\" stroke-width=\"1.5\"><title>" << name << pass << text << " (not a finite number)</title></path><text x=\""
              << c(cx + 7) << "\" y=\"" << c(top ? cy + 12 : cy - 6) << "\" fill=\"" << s.colour << "\">" << name << " " << text
              << "</text>\n";
        continue;
      }
      const std::optional<double> a = AxisValue(v, chart.log_scale);
      const bool zero = !a;  // log scale, v <= 0: on the bottom edge
      const std::string px = c(x(i)), py = c(y(a ? *a : axis.lo));
      points += (points.empty() ? "" : " ") + px + "," + py;
      marks << "<circle cx=\"" << px << "\" cy=\"" << py << "\" r=\"3.5\" fill=\"" << (zero ? "white" : s.colour) << "\" stroke=\""
            << s.colour << "\"><title>" << name << pass << Num(v, 10) << "</title></circle>\n";
    }
    if (!points.empty()) {
      out << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\"" << dash << "/>\n";
    }
    out << marks.str();
    const double ly = kTop + 12 + 18 * static_cast<double>(row++);
    out << "<line x1=\"" << kLeft + plot_w + 12 << "\" y1=\"" << ly << "\" x2=\"" << kLeft + plot_w + 36 << "\" y2=\"" << ly
        << "\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\"" << dash << "/><text x=\"" << kLeft + plot_w + 42 << "\" y=\""
        << ly + 4 << "\">" << name << "</text>\n";
  }
  if (chart.log_scale && axis.has_zero) {
    out << "<text x=\"" << kLeft << "\" y=\"" << kHeight - 2
        << "\" font-size=\"10\">Hollow markers on the bottom edge are exactly zero (not drawable on a log scale).</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

std::string RenderHeatMap(const HeatMap& map) {
  if (map.cells.empty()) return "<p>" + XmlEscape(map.aria_label) + ": no values are recorded.</p>\n";
  constexpr std::size_t kCell = 14, kLeft = 48, kTop = 8, kNoteHeight = 14;
  const std::size_t columns = std::max<std::size_t>(map.columns, 1);
  std::size_t places = map.cells.size();
  double max_value = 0.0;
  bool any_nonfinite = false;
  for (const HeatCell& cell : map.cells) {
    places = std::max(places, cell.index + 1);
    if (std::isfinite(cell.value)) max_value = std::max(max_value, cell.value);
    else any_nonfinite = true;
  }
  const std::size_t rows = (places + columns - 1) / columns;
  const std::size_t width = kLeft + columns * kCell + 8;
  const std::size_t grid_bottom = kTop + rows * kCell;
  const std::size_t height = grid_bottom + 8 + (any_nonfinite ? kNoteHeight : 0);
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << " " << height << "\" role=\"img\" aria-label=\"" << XmlAttributeEscape(map.aria_label) << "\">\n";
  for (std::size_t row = 0; row < rows; ++row) {
    out << "<text x=\"" << kLeft - 4 << "\" y=\"" << kTop + row * kCell + kCell - 3
        << "\" font-size=\"10\" text-anchor=\"end\" font-family=\"sans-serif\">" << row * columns << "</text>\n";
  }
  const std::string value_name = XmlEscape(map.value_name);
  for (const HeatCell& cell : map.cells) {
    const std::size_t x = kLeft + cell.index % columns * kCell, y = kTop + cell.index / columns * kCell;
    const std::string title = XmlEscape(cell.label) + ": " + value_name + " ";
    if (!std::isfinite(cell.value)) {
      // No place on the colour scale: white, outlined in the scale's darkest red.
      const char* text = std::isnan(cell.value) ? "NaN" : cell.value > 0 ? "+inf" : "-inf";
      out << "<rect class=\"nonfinite\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell - 1 << "\" height=\"" << kCell - 1
          << "\" fill=\"#ffffff\" stroke=\"#a50000\"><title>" << title << text << " (not a finite number)" << XmlEscape(cell.detail)
          << "</title></rect>\n";
      continue;
    }
    out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell - 1 << "\" height=\"" << kCell - 1 << "\" fill=\""
        << HeatColour(cell.value, max_value) << "\"><title>" << title << Num(cell.value, 6) << XmlEscape(cell.detail)
        << "</title></rect>\n";
  }
  if (any_nonfinite) {
    out << "<text x=\"" << kLeft << "\" y=\"" << grid_bottom + kNoteHeight
        << "\" font-size=\"10\" font-family=\"sans-serif\">White outlined cells are not finite numbers (+inf, -inf or NaN).</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace pstrain::audit
