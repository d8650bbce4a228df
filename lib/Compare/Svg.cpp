//===- Svg.cpp - Inline SVG charts for the HTML reports -------------------===//

#include "Svg.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir::ho;
using llvm::raw_ostream;
using llvm::StringRef;

std::string svg::escape(StringRef text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped += c;
    }
  }
  return escaped;
}

std::string svg::formatNumber(double value) {
  if (std::abs(value) < 1e-12)
    return "0";
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", value);
  return text;
}

std::vector<double> svg::getNiceTicks(double lo, double hi, unsigned count) {
  if (!(hi > lo))
    hi = lo + 1;
  double rough = (hi - lo) / std::max(1u, count);
  double magnitude = std::pow(10, std::floor(std::log10(rough)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= rough)
      break;
  }
  std::vector<double> ticks;
  double first = std::floor(lo / step + 1e-9) * step;
  for (double tick = first; tick < hi + step * (1 - 1e-9); tick += step)
    ticks.push_back(std::abs(tick) < step * 1e-9 ? 0 : tick);
  return ticks;
}

std::vector<double> svg::getLogTicks(double lo, double hi) {
  double first = std::floor(std::log10(lo) + 1e-9);
  double last = std::max(first + 1, std::ceil(std::log10(hi) - 1e-9));
  // Within three decades, 2 and 5 times each power of ten too.
  std::vector<double> factors = {1};
  if (last - first <= 3)
    factors = {1, 2, 5};
  std::vector<double> ticks;
  for (double decade = first; decade <= last; ++decade)
    for (double factor : factors)
      ticks.push_back(factor * std::pow(10.0, decade));
  // From the last tick at or under lo to the first at or over hi.
  while (ticks.size() > 2 && ticks[1] <= lo * (1 + 1e-9))
    ticks.erase(ticks.begin());
  while (ticks.size() > 2 && ticks[ticks.size() - 2] >= hi * (1 - 1e-9))
    ticks.pop_back();
  return ticks;
}

bool svg::spansDecades(double lo, double hi) { return lo > 0 && hi / lo >= 20; }

svg::Unit svg::chooseTimeUnit(double maxSeconds) {
  if (maxSeconds >= 1)
    return {1, "s"};
  if (maxSeconds >= 1e-3)
    return {1e-3, "ms"};
  return {1e-6, "us"};
}

svg::Unit svg::chooseByteUnit(double maxBytes, bool binary) {
  static const char *const decimal[] = {"B", "KB", "MB", "GB", "TB"};
  static const char *const powersOfTwo[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double step = binary ? 1024 : 1000;
  double divisor = 1;
  unsigned unit = 0;
  while (maxBytes / divisor >= step && unit + 1 < std::size(decimal)) {
    divisor *= step;
    ++unit;
  }
  return {divisor, binary ? powersOfTwo[unit] : decimal[unit]};
}

void svg::openPlot(raw_ostream &os, StringRef name, double width, double height,
                   StringRef description) {
  os << llvm::formatv("<svg class=\"plot\" data-plot=\"{0}\" "
                      "xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
                      "height=\"{2}\" viewBox=\"0 0 {1} {2}\" role=\"img\">"
                      "<desc>{3}</desc>\n",
                      escape(name), width, height, escape(description));
}

void svg::closePlot(raw_ostream &os) { os << "</svg>\n"; }

/// "x1,y1 x2,y2 ..." for a polyline through `points`.
static std::string
getPolylinePoints(llvm::ArrayRef<std::pair<double, double>> points,
                  const svg::Scale &x, const svg::Scale &y) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [px, py] : points)
    os << llvm::formatv("{0:f1},{1:f1} ", x(px), y(py));
  return text;
}

void svg::writeLineChart(raw_ostream &os, const LineChart &chart) {
  const double left = 62, right = 14, top = 26, bottom = 40;
  double legendHeight = chart.legend ? 18 : 0;
  double plotBottom = chart.height - bottom - legendHeight;
  // The legend's entries, wrapped onto more rows (and a taller plot) where
  // they do not fit on one.
  std::vector<std::pair<double, double>> legendAt;
  double height = chart.height;
  if (chart.legend) {
    double lx = left, ly = chart.height - 8;
    for (const Series &series : chart.series) {
      double width = 28 + 6.5 * series.name.size();
      if (lx > left && lx + width > chart.width - right) {
        lx = left;
        ly += 16;
      }
      legendAt.push_back({lx, ly});
      lx += width;
    }
    height = std::max(height, ly + 8);
  }

  // Ranges in display units.
  double xLo = 0, xHi = 0, yLo = 0, yHi = 0;
  bool first = true;
  for (const Series &series : chart.series) {
    for (auto [px, py] : series.points) {
      xLo = first ? px : std::min(xLo, px);
      xHi = first ? px : std::max(xHi, px);
      yLo = first ? py : std::min(yLo, py);
      yHi = std::max(yHi, py);
      first = false;
    }
  }
  if (chart.reference)
    yHi = std::max(yHi, chart.reference->second);
  bool xLog = chart.xLog && xLo > 0 && xHi > xLo;
  bool yLog = chart.yLog && yLo > 0 && yHi > yLo;
  double xDivisor = chart.xUnit.divisor, yDivisor = chart.yUnit.divisor;
  std::vector<double> xTicks =
      xLog ? getLogTicks(xLo / xDivisor, xHi / xDivisor)
           : getNiceTicks(xLo / xDivisor, xHi / xDivisor, 6);
  std::vector<double> yTicks = yLog
                                   ? getLogTicks(yLo / yDivisor, yHi / yDivisor)
                                   : getNiceTicks(0, yHi / yDivisor, 4);
  // The x axis spans the data exactly; the y axis ends on round values.
  Scale x = {xLo, xHi > xLo ? xHi : xLo + 1, left, chart.width - right, xLog};
  Scale y = {yLog ? yTicks.front() * yDivisor : 0, yTicks.back() * yDivisor,
             plotBottom, top, yLog};

  openPlot(os, chart.name, chart.width, height, chart.title);
  os << llvm::formatv("<text class=\"title\" x=\"{0}\" y=\"16\">{1}</text>\n",
                      left, escape(chart.title));
  // Grid and y ticks.
  for (double tick : yTicks) {
    double py = y(tick * chart.yUnit.divisor);
    os << llvm::formatv("<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" "
                        "y1=\"{2:f1}\" y2=\"{2:f1}\"/>"
                        "<text class=\"tick\" x=\"{3}\" y=\"{4:f1}\" "
                        "text-anchor=\"end\">{5}</text>\n",
                        left, chart.width - right, py, left - 5, py + 4,
                        formatNumber(tick));
  }
  // X ticks inside the range.
  for (double tick : xTicks) {
    double value = tick * chart.xUnit.divisor;
    if (value < x.lo - 1e-12 * std::abs(x.hi) || value > x.hi * (1 + 1e-9))
      continue;
    double px = x(value);
    os << llvm::formatv("<line class=\"axis\" x1=\"{0:f1}\" x2=\"{0:f1}\" "
                        "y1=\"{1}\" y2=\"{2}\"/>"
                        "<text class=\"tick\" x=\"{0:f1}\" y=\"{3}\" "
                        "text-anchor=\"middle\">{4}</text>\n",
                        px, plotBottom, plotBottom + 4, plotBottom + 16,
                        formatNumber(tick));
  }
  os << llvm::formatv("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" "
                      "y2=\"{2}\"/>\n",
                      left, chart.width - right, plotBottom);
  // Axis labels, with the unit where there is one.
  auto label = [](const std::string &text, const Unit &unit, bool log) {
    std::string scale = log ? ", log scale" : "";
    return escape(unit.suffix.empty() && !log
                      ? text
                      : text + " (" + unit.suffix +
                            (unit.suffix.empty() ? scale.substr(2) : scale) +
                            ")");
  };
  os << llvm::formatv("<text class=\"label\" x=\"{0:f1}\" y=\"{1}\" "
                      "text-anchor=\"middle\">{2}</text>\n",
                      (left + chart.width - right) / 2, plotBottom + 32,
                      label(chart.xLabel, chart.xUnit, xLog));
  os << llvm::formatv("<text class=\"label\" transform=\"translate(14,{0:f1}) "
                      "rotate(-90)\" text-anchor=\"middle\">{1}</text>\n",
                      (top + plotBottom) / 2,
                      label(chart.yLabel, chart.yUnit, yLog));

  if (chart.reference) {
    double py = y(chart.reference->second);
    os << llvm::formatv(
        "<line class=\"reference\" x1=\"{0}\" x2=\"{1}\" "
        "y1=\"{2:f1}\" y2=\"{2:f1}\"/><text class=\"reference\" "
        "x=\"{1}\" y=\"{3:f1}\" text-anchor=\"end\">{4}</text>\n",
        left, chart.width - right, py, py - 4, escape(chart.reference->first));
  }
  for (const Series &series : chart.series) {
    if (series.points.empty())
      continue;
    // One polyline per run of segments that join fitting points, or that
    // touch a point that does not fit (faint and dotted).
    auto misses = [&](size_t i) {
      return i < series.hollow.size() && series.hollow[i];
    };
    auto segmentMisses = [&](size_t i) { return misses(i) || misses(i + 1); };
    size_t count = series.points.size();
    for (size_t begin = 0; begin == 0 || begin + 1 < count;) {
      bool missing = count > 1 && segmentMisses(begin);
      size_t end = std::min(begin + 1, count - 1);
      while (end + 1 < count && segmentMisses(end) == missing)
        ++end;
      os << llvm::formatv(
          "<polyline class=\"mark{3}\" data-series=\"{0}\" fill=\"none\" "
          "stroke=\"{1}\" stroke-width=\"1.6\" points=\"{2}\">"
          "<title>{0}{4}</title></polyline>\n",
          escape(series.name), series.color,
          getPolylinePoints(
              llvm::ArrayRef(series.points).slice(begin, end + 1 - begin), x,
              y),
          missing ? " misses" : "",
          missing ? " (a run that does not fit)" : "");
      if (end + 1 >= count)
        break;
      begin = end;
    }
    if (!series.dots)
      continue;
    for (auto [i, xy] : llvm::enumerate(series.points)) {
      bool hollow = i < series.hollow.size() && series.hollow[i];
      os << llvm::formatv(
          "<circle class=\"mark\" cx=\"{0:f1}\" cy=\"{1:f1}\" r=\"3.2\" "
          "stroke=\"{2}\" fill=\"{3}\"><title>{4}: {5} {6}, {7} {8}{9}"
          "</title></circle>\n",
          x(xy.first), y(xy.second), series.color,
          hollow ? "white" : series.color, escape(series.name),
          formatNumber(xy.first / chart.xUnit.divisor), chart.xUnit.suffix,
          formatNumber(xy.second / chart.yUnit.divisor), chart.yUnit.suffix,
          hollow ? " (does not fit)" : "");
    }
  }
  for (auto [series, at] : llvm::zip(chart.series, legendAt)) {
    auto [lx, ly] = at;
    os << llvm::formatv("<line x1=\"{0:f1}\" x2=\"{1:f1}\" y1=\"{2:f1}\" "
                        "y2=\"{2:f1}\" stroke=\"{3}\" stroke-width=\"2\"/>"
                        "<text class=\"tick\" x=\"{4:f1}\" y=\"{5:f1}\">{6}"
                        "</text>\n",
                        lx, lx + 16, ly - 4, series.color, lx + 20, ly,
                        escape(series.name));
  }
  closePlot(os);
}
