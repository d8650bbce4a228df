//===- HtmlReport.cpp - Self-contained HTML reports -----------------------===//

#include "hyperoffload/Compare/HtmlReport.h"

#include "HtmlPage.h"
#include "Svg.h"

#include "hyperoffload/Compare/ComparisonTable.h"
#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ho;
using llvm::formatv;
using llvm::raw_ostream;

llvm::StringRef ho::getPolicyColor(ComparedPolicy policy) {
  switch (policy) {
  case ComparedPolicy::None:
    return "#616161";
  case ComparedPolicy::Reactive:
    return "#d32f2f";
  case ComparedPolicy::Paged:
    return "#8e24aa";
  case ComparedPolicy::Naive:
    return "#ef6c00";
  case ComparedPolicy::Window:
    return "#6d4c41";
  case ComparedPolicy::Distance:
    return "#00897b";
  case ComparedPolicy::PT2:
    return "#c0a000";
  case ComparedPolicy::PT2Default:
    return "#827717";
  case ComparedPolicy::HyperOffloadScheduleOnly:
    return "#64b5f6";
  case ComparedPolicy::HyperOffload:
    return "#1565c0";
  }
  llvm_unreachable("unknown policy");
}

/// The width of the plots that span the page, in pixels.
static constexpr double kWideWidth = 980;

//===----------------------------------------------------------------------===//
// Memory over time
//===----------------------------------------------------------------------===//

static void writeMemoryChart(raw_ostream &os,
                             const PolicyComparison &comparison,
                             const PolicyRun &run) {
  const SimulationResult &result = run.result;
  llvm::StringRef name = stringifyComparedPolicy(run.policy);
  svg::LineChart chart;
  chart.name = ("memory-" + name).str();
  chart.title = formatv("{0}: peak {1}, step {2}{3}", name,
                        formatBytes(result.peakFootprintBytes),
                        formatSeconds(result.stepTime),
                        comparison.fits(run) ? "" : ", does not fit")
                    .str();
  chart.xLabel = "time";
  chart.yLabel = "device memory";
  chart.xUnit = svg::chooseTimeUnit(result.stepTime);
  chart.yUnit = svg::chooseByteUnit(static_cast<double>(
      std::max(comparison.budget, result.peakFootprintBytes)));
  chart.xRange = {0.0, std::max(result.stepTime, 1e-12)};
  chart.reference = {"budget " + formatBytes(comparison.budget),
                     static_cast<double>(comparison.budget)};

  svg::Series footprint{"allocator footprint",
                        getPolicyColor(run.policy).str()};
  svg::Series live{"live buffers", "#9e9e9e"};
  footprint.steps = live.steps = true;
  live.dashed = true;
  for (const MemoryBucket &bucket : bucketMemory(result, 240)) {
    footprint.points.push_back(
        {bucket.start, static_cast<double>(bucket.footprintBytes)});
    live.points.push_back(
        {bucket.start, static_cast<double>(bucket.liveBytes)});
  }
  // Hold the last value to the end of the step.
  for (svg::Series *series : {&footprint, &live})
    if (!series->points.empty())
      series->points.push_back({result.stepTime, series->points.back().second});
  chart.series = {std::move(footprint), std::move(live)};
  svg::writeLineChart(os, chart);
}

//===----------------------------------------------------------------------===//
// Stall heat map
//===----------------------------------------------------------------------===//

/// White through orange to dark red as `intensity` goes from 0 to 1.
static std::string getHeatColor(double intensity) {
  struct Stop {
    double at;
    int r, g, b;
  };
  static const Stop stops[] = {{0, 255, 247, 236},
                               {0.35, 253, 187, 132},
                               {0.7, 227, 74, 51},
                               {1, 127, 0, 0}};
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
  return "#7f0000";
}

static void writeStallHeatMap(raw_ostream &os,
                              const PolicyComparison &comparison) {
  constexpr unsigned kBins = 48;
  const double labelWidth = 96, totalWidth = 150, rowHeight = 22, top = 26;
  double cellWidth = (kWideWidth - labelWidth - totalWidth) / kBins;
  double height = top + rowHeight * comparison.runs.size() + 44;

  std::vector<std::vector<StallBin>> rows;
  double hottest = 0;
  for (const PolicyRun &run : comparison.runs) {
    rows.push_back(binStallsByProgress(run.result, kBins));
    for (const StallBin &bin : rows.back())
      hottest = std::max(hottest, bin.getTotal());
  }

  svg::openPlot(os, "stall-heatmap", kWideWidth, height,
                "Stall and allocator time per slice of the step");
  os << formatv("<text class=\"title\" x=\"{0}\" y=\"16\">Compute waiting, "
                "per 1/{1} of the step's ops (darkest: {2})</text>\n",
                labelWidth, kBins, formatSeconds(hottest));
  for (auto [row, run] : llvm::enumerate(comparison.runs)) {
    double y = top + row * rowHeight;
    os << formatv("<text class=\"row\" x=\"{0}\" y=\"{1:f1}\" "
                  "text-anchor=\"end\">{2}</text>\n",
                  labelWidth - 8, y + rowHeight / 2 + 4,
                  stringifyComparedPolicy(run.policy));
    for (auto [column, bin] : llvm::enumerate(rows[row])) {
      double total = bin.getTotal();
      // Square root: a few long allocator stalls should not wash out the rest.
      double intensity = hottest > 0 ? std::sqrt(total / hottest) : 0;
      os << formatv(
          "<rect class=\"mark{0}\" x=\"{1:f1}\" y=\"{2:f1}\" "
          "width=\"{3:f2}\" height=\"{4}\" fill=\"{5}\">"
          "<title>{6}, ops {7}-{8}%: waits {9}, allocator {10}"
          "</title></rect>\n",
          total > 0 ? " hot" : "", labelWidth + column * cellWidth, y + 1,
          cellWidth - 0.5, rowHeight - 2, getHeatColor(intensity),
          stringifyComparedPolicy(run.policy), 100 * column / kBins,
          100 * (column + 1) / kBins, formatSeconds(bin.transferSeconds),
          formatSeconds(bin.allocatorSeconds));
    }
    const SimulationResult &result = run.result;
    os << formatv("<text class=\"row\" x=\"{0:f1}\" y=\"{1:f1}\">{2} + {3} "
                  "allocator</text>\n",
                  kWideWidth - totalWidth + 8, y + rowHeight / 2 + 4,
                  formatSeconds(result.stallTime),
                  formatSeconds(result.allocatorStallTime));
  }
  double axisY = top + rowHeight * comparison.runs.size() + 14;
  for (unsigned percent = 0; percent <= 100; percent += 25)
    os << formatv("<text class=\"tick\" x=\"{0:f1}\" y=\"{1:f1}\" "
                  "text-anchor=\"middle\">{2}%</text>\n",
                  labelWidth + percent * kBins * cellWidth / 100, axisY,
                  percent);
  os << formatv("<text class=\"label\" x=\"{0:f1}\" y=\"{1:f1}\" "
                "text-anchor=\"middle\">progress through the step (compute "
                "ops issued)</text>\n",
                labelWidth + kBins * cellWidth / 2, axisY + 18);
  svg::closePlot(os);
}

//===----------------------------------------------------------------------===//
// Timelines
//===----------------------------------------------------------------------===//

static llvm::StringRef getTrackColor(const TrackDigest &track) {
  switch (track.kind) {
  case TrackDigest::Kind::Compute:
    return "#78909c";
  case TrackDigest::Kind::Stall:
    return "#e53935";
  case TrackDigest::Kind::AllocatorStall:
    return "#8e24aa";
  case TrackDigest::Kind::Link:
    return llvm::StringRef(track.name).ends_with("device") ? "#43a047"
                                                           : "#fb8c00";
  }
  llvm_unreachable("unknown track kind");
}

static std::string describeTrack(const TrackDigest &track) {
  if (track.kind == TrackDigest::Kind::Link)
    return formatv("{0}: {1} in {2}", track.name, formatBytes(track.bytes),
                   track.events)
        .str();
  return formatv("{0}: {1}", track.name, formatSeconds(track.busySeconds))
      .str();
}

static void writeTimeline(raw_ostream &os, const PolicyRun &run) {
  const double labelWidth = 230, right = 14, top = 26, rowHeight = 20;
  double end = std::max(run.result.stepTime, 1e-12);
  svg::Scale x = {0, end, labelWidth, kWideWidth - right};
  // Merge what would fall within a pixel; keeps SVGs small for a runtime
  // that moves a million blocks.
  std::vector<TrackDigest> tracks =
      digestTracks(run.result, end / (kWideWidth - labelWidth - right));
  double plotBottom = top + rowHeight * tracks.size();
  double height = plotBottom + 40;
  llvm::StringRef name = stringifyComparedPolicy(run.policy);

  svg::openPlot(os, ("timeline-" + name).str(), kWideWidth, height,
                ("Timeline of " + name).str());
  os << formatv("<text class=\"title\" x=\"{0}\" y=\"16\">{1}: {2}</text>\n",
                labelWidth, name, formatSeconds(run.result.stepTime));
  for (auto [row, track] : llvm::enumerate(tracks)) {
    double y = top + row * rowHeight;
    os << formatv("<text class=\"row\" x=\"{0}\" y=\"{1:f1}\" "
                  "text-anchor=\"end\">{2}</text>\n",
                  labelWidth - 8, y + rowHeight / 2 + 4,
                  svg::escape(describeTrack(track)));
    os << formatv("<g fill=\"{0}\">", getTrackColor(track));
    for (auto [start, stop] : track.stretches)
      os << formatv("<rect class=\"mark\" x=\"{0:f2}\" y=\"{1:f1}\" "
                    "width=\"{2:f2}\" height=\"{3}\"/>",
                    x(start), y + 2, std::max(0.6, x(stop) - x(start)),
                    rowHeight - 4);
    os << "</g>\n";
  }
  svg::Unit unit = svg::chooseTimeUnit(end);
  for (double tick : svg::getNiceTicks(0, end / unit.divisor, 8)) {
    if (tick * unit.divisor > end * (1 + 1e-9))
      continue;
    double px = x(tick * unit.divisor);
    os << formatv("<line class=\"axis\" x1=\"{0:f1}\" x2=\"{0:f1}\" y1=\"{1}\" "
                  "y2=\"{2}\"/><text class=\"tick\" x=\"{0:f1}\" y=\"{3}\" "
                  "text-anchor=\"middle\">{4} {5}</text>\n",
                  px, plotBottom, plotBottom + 4, plotBottom + 16,
                  svg::formatNumber(tick), unit.suffix);
  }
  svg::closePlot(os);
}

//===----------------------------------------------------------------------===//
// The page
//===----------------------------------------------------------------------===//

void ho::writeComparisonHtml(raw_ostream &os,
                             const PolicyComparison &comparison,
                             llvm::StringRef command) {
  ComparisonTable table = tabulateComparison(comparison);
  html::writeHeader(os, "HyperOffload: " + table.title);
  os << "<h1>Offload policies: " << svg::escape(table.title) << "</h1>\n"
     << "<p class=\"note\"><code>" << svg::escape(command) << "</code><br>"
     << svg::escape(table.bounds) << "</p>\n";

  os << "<h2>Every policy</h2>\n";
  html::writeTable(os, table);

  os << "<h2>Device memory over time</h2>\n<p class=\"note\">The allocator's "
        "footprint (live buffers and the holes between them) and the live "
        "bytes, each run on its own time axis; the dashed red line is the "
        "budget.</p>\n<div class=\"plots\">\n";
  for (const PolicyRun &run : comparison.runs)
    writeMemoryChart(os, comparison, run);
  os << "</div>\n";

  os << "<h2>Where compute waited</h2>\n<p class=\"note\">Stall and allocator "
        "time in each slice of the step, the runs lined up by the compute ops "
        "they had issued, so that a column is the same part of the graph in "
        "every row. Hover a cell for its figures.</p>\n";
  writeStallHeatMap(os, comparison);

  os << "<h2>Timelines</h2>\n<p class=\"note\">Compute, stalls, allocator "
        "stalls "
        "and the transfers on each link direction, each run on its own time "
        "axis. Stretches less than a pixel apart are drawn as one.</p>\n";
  for (const PolicyRun &run : comparison.runs)
    writeTimeline(os, run);
  html::writeFooter(os);
}
