//===- StallHeatMap.cpp - Where in the step compute waited ----------------===//

#include "ReportParts.h"

#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Simulation/Report.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::ho;
using llvm::formatv;
using llvm::raw_ostream;

namespace {
constexpr unsigned kBins = 60;
/// The colour scale spans this many decades below the hottest cell; cells
/// with less (but some) waiting get the palest colour.
constexpr double kDecades = 4;

/// The colour scale: log10 of seconds from `lo` to `hi`.
struct LogColorScale {
  double lo, hi;
  double getIntensity(double seconds) const {
    if (hi <= lo)
      return 1;
    return std::clamp((std::log10(seconds) - lo) / (hi - lo), 0.0, 1.0);
  }
};
} // namespace

/// Pale yellow through orange to dark red as `intensity` goes from 0 to 1.
static std::string getHeatColor(double intensity) {
  struct Stop {
    double at;
    int r, g, b;
  };
  static const Stop stops[] = {{0, 255, 237, 160},
                               {0.35, 253, 141, 60},
                               {0.7, 227, 26, 28},
                               {1, 103, 0, 13}};
  intensity = std::clamp(intensity, 0.0, 1.0);
  for (size_t i = 1; i < std::size(stops); ++i) {
    if (intensity > stops[i].at)
      continue;
    const Stop &a = stops[i - 1], &b = stops[i];
    double t = (intensity - a.at) / (b.at - a.at);
    auto mix = [&](int from, int to) {
      return static_cast<int>(std::lround(from + t * (to - from)));
    };
    return formatv("#{0:x-2}{1:x-2}{2:x-2}", mix(a.r, b.r), mix(a.g, b.g),
                   mix(a.b, b.b))
        .str();
  }
  return "#67000d";
}

/// "0", or the seconds as formatSeconds writes them.
static std::string formatWait(double seconds) {
  return seconds > 0 ? formatSeconds(seconds) : "0";
}

/// The name of the graph part that holds compute op `op`.
static llvm::StringRef getPartAt(llvm::ArrayRef<GraphPart> parts, size_t op) {
  auto after =
      llvm::upper_bound(parts, op, [](size_t op, const GraphPart &part) {
        return op < part.firstOp;
      });
  if (after == parts.begin())
    return "";
  return std::prev(after)->name;
}

/// "10 us", "1 ms": a round time as a tick label.
static std::string formatCompactSeconds(double seconds) {
  svg::Unit unit = svg::chooseTimeUnit(seconds * (1 + 1e-9));
  return svg::formatNumber(seconds / unit.divisor) + " " + unit.suffix;
}

/// The colour bar: the scale's colours with a tick per decade.
static void writeColorBar(raw_ostream &os, const LogColorScale &scale,
                          double left, double top, double width) {
  os << "<defs><linearGradient id=\"heat-scale\">";
  for (int i = 0; i <= 10; ++i)
    os << formatv("<stop offset=\"{0}%\" stop-color=\"{1}\"/>", i * 10,
                  getHeatColor(i / 10.0));
  os << "</linearGradient></defs>\n";
  os << formatv("<rect class=\"mark colorbar\" x=\"{0}\" y=\"{1}\" "
                "width=\"{2}\" height=\"10\" fill=\"url(#heat-scale)\"/>"
                "<rect x=\"{3}\" y=\"{1}\" width=\"14\" height=\"10\" "
                "fill=\"#fff\" stroke=\"#bbb\"/><text class=\"tick\" "
                "x=\"{4}\" y=\"{5}\" text-anchor=\"end\">none</text>\n",
                left, top, width, left - 44, left - 48, top + 9);
  svg::Scale x = {scale.lo, scale.hi, left, left + width};
  for (double decade = std::ceil(scale.lo); decade <= scale.hi + 1e-9;
       decade += 1)
    os << formatv("<line class=\"axis\" x1=\"{0:f1}\" x2=\"{0:f1}\" y1=\"{1}\" "
                  "y2=\"{2}\"/><text class=\"tick\" x=\"{0:f1}\" y=\"{3}\" "
                  "text-anchor=\"middle\">{4}</text>\n",
                  x(decade), top + 10, top + 13, top + 22,
                  formatCompactSeconds(std::pow(10.0, decade)));
}

void report::writeStallHeatMap(raw_ostream &os,
                               const PolicyComparison &comparison) {
  const double labelWidth = 140, totalWidth = 170, rowHeight = 22, top = 30;
  double cellWidth = (kWideWidth - labelWidth - totalWidth) / kBins;
  double gridBottom = top + rowHeight * comparison.runs.size();
  double height = gridBottom + 92;

  std::vector<std::vector<StallBin>> rows;
  double hottest = 0;
  for (const PolicyRun &run : comparison.runs) {
    rows.push_back(binStallsByProgress(run.result, kBins));
    for (const StallBin &bin : rows.back())
      hottest = std::max(hottest, bin.getTotal());
  }
  LogColorScale scale = {0, 0};
  if (hottest > 0) {
    scale.hi = std::log10(hottest);
    scale.lo = scale.hi - kDecades;
  }
  // The axis names the parts of the graph (layers) where the names have
  // them, in the order of the first run; the columns are the same ops in
  // every run that keeps the input's ops.
  size_t opCount = 0;
  std::vector<GraphPart> parts;
  if (!comparison.runs.empty())
    parts = findGraphParts(comparison.runs.front().result, opCount);

  svg::openPlot(os, "stall-heatmap", kWideWidth, height,
                "Stall and allocator time per slice of the step");
  os << formatv("<text class=\"title\" x=\"{0}\" y=\"16\">Compute waiting "
                "per 1/{1} of the step's ops, log colour scale (darkest: "
                "{2}; white: none)</text>\n",
                labelWidth, kBins, formatSeconds(hottest));
  for (auto [row, run] : llvm::enumerate(comparison.runs)) {
    double y = top + row * rowHeight;
    llvm::StringRef policy = stringifyComparedPolicy(run.policy);
    os << formatv("<text class=\"row\" x=\"{0}\" y=\"{1:f1}\" "
                  "text-anchor=\"end\">{2}</text>\n",
                  labelWidth - 8, y + rowHeight / 2 + 4, policy);
    for (auto [column, bin] : llvm::enumerate(rows[row])) {
      double total = bin.getTotal();
      std::string where;
      if (!parts.empty()) {
        // The ops of the column: [begin, end), at least one.
        size_t begin = column * opCount / kBins;
        size_t end = std::max(begin + 1, (column + 1) * opCount / kBins);
        llvm::StringRef first = getPartAt(parts, begin);
        llvm::StringRef last = getPartAt(parts, end - 1);
        where = first == last ? first.str() : (first + " to " + last).str();
      } else {
        where = formatv("ops {0}-{1}%", 100 * column / kBins,
                        100 * (column + 1) / kBins);
      }
      os << formatv(
          "<rect class=\"mark{0}\" x=\"{1:f1}\" y=\"{2:f1}\" "
          "width=\"{3:f2}\" height=\"{4}\" fill=\"{5}\">"
          "<title>{6}, {7}: waits {8}, allocator {9}</title></rect>\n",
          total > 0 ? " hot" : "", labelWidth + column * cellWidth, y + 1,
          cellWidth - 0.5, rowHeight - 2,
          total > 0 ? getHeatColor(scale.getIntensity(total)) : "#ffffff",
          policy, svg::escape(where), formatWait(bin.transferSeconds),
          formatWait(bin.allocatorSeconds));
    }
    const SimulationResult &result = run.result;
    std::string total = "no waits";
    if (result.stallTime > 0 || result.allocatorStallTime > 0)
      total = formatv("{0} + {1} allocator", formatWait(result.stallTime),
                      formatWait(result.allocatorStallTime));
    os << formatv("<text class=\"row\" x=\"{0:f1}\" y=\"{1:f1}\">{2}</text>\n",
                  kWideWidth - totalWidth + 8, y + rowHeight / 2 + 4, total);
  }
  os << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2:f1}\" height=\"{3:f1}\" "
                "fill=\"none\" stroke=\"#ccc\"/>\n",
                labelWidth, top, kBins * cellWidth, gridBottom - top);

  // The progress axis: graph parts where there are some, else percent.
  double axisY = gridBottom + 14;
  svg::Scale x = {0, static_cast<double>(std::max<size_t>(opCount, 1)),
                  labelWidth, labelWidth + kBins * cellWidth};
  if (!parts.empty()) {
    // A tick at every part, and its name where the one before leaves room
    // (11 px text: about 6.5 px a character, with a gap).
    constexpr double kCharWidth = 6.5, kGap = 10;
    double free = -std::numeric_limits<double>::infinity();
    for (const GraphPart &part : parts) {
      double px = x(static_cast<double>(part.firstOp));
      bool named = px >= free;
      os << formatv("<line class=\"axis\" x1=\"{0:f1}\" x2=\"{0:f1}\" "
                    "y1=\"{1}\" y2=\"{2}\"/>",
                    px, gridBottom, gridBottom + (named ? 6 : 3));
      if (!named)
        continue;
      os << formatv("<text class=\"tick\" x=\"{0:f1}\" y=\"{1}\" "
                    "text-anchor=\"start\">{2}</text>",
                    px, axisY + 2, svg::escape(part.name));
      free = px + kCharWidth * part.name.size() + kGap;
    }
    os << "\n";
  } else {
    for (unsigned percent = 0; percent <= 100; percent += 25)
      os << formatv("<text class=\"tick\" x=\"{0:f1}\" y=\"{1:f1}\" "
                    "text-anchor=\"middle\">{2}%</text>\n",
                    labelWidth + percent * kBins * cellWidth / 100, axisY,
                    percent);
  }
  os << formatv("<text class=\"label\" x=\"{0:f1}\" y=\"{1:f1}\" "
                "text-anchor=\"middle\">{2}</text>\n",
                labelWidth + kBins * cellWidth / 2, axisY + 20,
                parts.empty() ? "progress through the step (compute ops issued)"
                              : "progress through the step (the graph's "
                                "parts, in the order they ran)");
  if (hottest > 0)
    writeColorBar(os, scale, labelWidth + 30, axisY + 34, 360);
  svg::closePlot(os);
}
