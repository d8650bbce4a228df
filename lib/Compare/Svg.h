//===- Svg.h - Inline SVG charts for the HTML reports -----------*- C++ -*-===//
//
// Just enough of a plotting library for self-contained reports: scales,
// round tick values, axes, line charts and labelled rows of bars. Every
// element that shows data carries the class "mark", so that a browser test
// can count what was drawn.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_COMPARE_SVG_H
#define HYPEROFFLOAD_LIB_COMPARE_SVG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::ho::svg {

/// `text` with the characters that XML and HTML reserve escaped.
std::string escape(llvm::StringRef text);

/// A number as a tick label: at most three significant digits, no
/// trailing zeros.
std::string formatNumber(double value);

/// Maps data values in [lo, hi] onto pixels in [pixelLo, pixelHi],
/// linearly or, with `log`, on a logarithmic scale (lo > 0).
struct Scale {
  double lo, hi, pixelLo, pixelHi;
  bool log = false;
  double operator()(double value) const {
    double from = lo, to = hi;
    if (log) {
      value = std::log10(std::max(value, lo * 1e-3));
      from = std::log10(lo);
      to = std::log10(hi);
    }
    double span = to - from;
    double fraction = span > 0 ? (value - from) / span : 0;
    return pixelLo + fraction * (pixelHi - pixelLo);
  }
};

/// About `count` round values (1, 2 or 5 times a power of ten apart) that
/// cover [lo, hi]; the first is at most lo and the last at least hi.
std::vector<double> getNiceTicks(double lo, double hi, unsigned count);

/// Round values for a log axis over [lo, hi] (0 < lo < hi): the powers of
/// ten, with 2 and 5 times them where the range spans few decades; the
/// first is at most lo and the last at least hi.
std::vector<double> getLogTicks(double lo, double hi);

/// Whether positive values from `lo` to `hi` span enough decades that a
/// log axis shows them better than a linear one.
bool spansDecades(double lo, double hi);

/// A unit to show values in: value / divisor, followed by the suffix.
struct Unit {
  double divisor = 1;
  std::string suffix;
};
/// s, ms or us, whichever shows `maxSeconds` as at least 1.
Unit chooseTimeUnit(double maxSeconds);
/// B, KB, MB, GB or TB (or KiB ... TiB when `binary`), likewise.
Unit chooseByteUnit(double maxBytes, bool binary = false);

/// An open <svg> element of the given size, with class "plot" and the
/// name a test finds it by, closed by `close`.
void openPlot(llvm::raw_ostream &os, llvm::StringRef name, double width,
              double height, llvm::StringRef description);
void closePlot(llvm::raw_ostream &os);

struct Series {
  std::string name;
  std::string color;
  /// (x, y) in data units, sorted by x.
  std::vector<std::pair<double, double>> points;
  /// Mark each point with a dot; hollow where `hollow[i]` is set (a run
  /// that does not fit), and the line to or from such a point faint and
  /// dotted.
  bool dots = false;
  std::vector<bool> hollow;
};

struct LineChart {
  std::string name;
  std::string title;
  std::string xLabel;
  std::string yLabel;
  Unit xUnit;
  Unit yUnit;
  double width = 480;
  double height = 230;
  /// Log axes; the y axis then starts under the lowest point, not at 0.
  bool xLog = false;
  bool yLog = false;
  /// A horizontal line across the plot, such as a budget.
  std::optional<std::pair<std::string, double>> reference;
  std::vector<Series> series;
  bool legend = true;
};

/// Writes `chart` as one <svg>: axes with round ticks over the points' x
/// range and, on a linear y axis, from 0 (linear or log as the chart asks),
/// a light grid, the series, the reference line and a legend.
void writeLineChart(llvm::raw_ostream &os, const LineChart &chart);

} // namespace mlir::ho::svg

#endif // HYPEROFFLOAD_LIB_COMPARE_SVG_H
