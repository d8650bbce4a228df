//===- TimelinePlot.cpp - Timelines and the shared time axis --------------===//

#include "ReportParts.h"

#include "hyperoffload/Compare/HtmlReport.h"
#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Simulation/Report.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;
using llvm::formatv;
using llvm::raw_ostream;

double report::getLongestStep(const PolicyComparison &comparison) {
  double longest = 1e-12;
  for (const PolicyRun &run : comparison.runs)
    longest = std::max(longest, run.result.stepTime);
  return longest;
}

void report::openTimedGroup(raw_ostream &os, double left, double end,
                            double sharedEnd) {
  os << formatv("<g transform=\"translate({0},0)\"><g class=\"timed\" "
                "style=\"--share: {1:f6}\">",
                left, sharedEnd > 0 ? std::max(end, 1e-12) / sharedEnd : 1);
}

void report::closeTimedGroup(raw_ostream &os) { os << "</g></g>\n"; }

/// Ticks of the axis [0, end] drawn over [left, right], in `className`.
static void writeTickSet(raw_ostream &os, llvm::StringRef className,
                         double left, double right, double y, double end) {
  svg::Scale x = {0, end, left, right};
  svg::Unit unit = svg::chooseTimeUnit(end);
  os << "<g class=\"" << className << "\">";
  for (double tick : svg::getNiceTicks(0, end / unit.divisor, 8)) {
    if (tick * unit.divisor > end * (1 + 1e-9))
      continue;
    double px = x(tick * unit.divisor);
    os << formatv("<line class=\"axis\" x1=\"{0:f1}\" x2=\"{0:f1}\" y1=\"{1}\" "
                  "y2=\"{2}\"/><text class=\"tick\" x=\"{0:f1}\" y=\"{3}\" "
                  "text-anchor=\"middle\">{4} {5}</text>",
                  px, y, y + 4, y + 16, svg::formatNumber(tick), unit.suffix);
  }
  os << "</g>\n";
}

void report::writeTimeTicks(raw_ostream &os, double left, double right,
                            double y, double end, double sharedEnd) {
  writeTickSet(os, "ticks-own", left, right, y, std::max(end, 1e-12));
  writeTickSet(os, "ticks-shared", left, right, y, sharedEnd);
}

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

static std::string describeTrack(const TrackDigest &track, ByteUnits units) {
  if (track.kind == TrackDigest::Kind::Link)
    return formatv("{0}: {1} in {2}", track.name,
                   formatBytes(track.bytes, units), track.events)
        .str();
  return formatv("{0}: {1}", track.name, formatSeconds(track.busySeconds))
      .str();
}

static void writeTimeline(raw_ostream &os, const PolicyRun &run,
                          double sharedEnd, ByteUnits units) {
  const double labelWidth = 230, right = 14, top = 26, rowHeight = 20;
  double end = std::max(run.result.stepTime, 1e-12);
  double plotWidth = report::kWideWidth - labelWidth - right;
  svg::Scale x = {0, end, 0, plotWidth};
  // Merge what would fall within a pixel; keeps SVGs small for a runtime
  // that moves a million blocks.
  std::vector<TrackDigest> tracks = digestTracks(run.result, end / plotWidth);
  double plotBottom = top + rowHeight * tracks.size();
  double height = plotBottom + 24;
  llvm::StringRef name = stringifyComparedPolicy(run.policy);

  svg::openPlot(os, ("timeline-" + name).str(), report::kWideWidth, height,
                ("Timeline of " + name).str());
  os << formatv("<text class=\"title\" x=\"{0}\" y=\"16\">{1}: {2}</text>\n",
                labelWidth, name, formatSeconds(run.result.stepTime));
  for (auto [row, track] : llvm::enumerate(tracks)) {
    double y = top + row * rowHeight;
    os << formatv("<text class=\"row\" x=\"{0}\" y=\"{1:f1}\" "
                  "text-anchor=\"end\">{2}</text>\n",
                  labelWidth - 8, y + rowHeight / 2 + 4,
                  svg::escape(describeTrack(track, units)));
  }
  report::openTimedGroup(os, labelWidth, end, sharedEnd);
  for (auto [row, track] : llvm::enumerate(tracks)) {
    double y = top + row * rowHeight;
    os << formatv("<g fill=\"{0}\">", getTrackColor(track));
    for (auto [stretch, label] : llvm::zip(track.stretches, track.labels)) {
      auto [start, stop] = stretch;
      os << formatv("<rect class=\"mark\" x=\"{0:f2}\" y=\"{1:f1}\" "
                    "width=\"{2:f2}\" height=\"{3}\"><title>{4}: {5} at {6} "
                    "({7})</title></rect>",
                    x(start), y + 2, std::max(0.6, x(stop) - x(start)),
                    rowHeight - 4, svg::escape(track.name), svg::escape(label),
                    formatSeconds(start), formatSeconds(stop - start));
    }
    os << "</g>\n";
  }
  report::closeTimedGroup(os);
  report::writeTimeTicks(os, labelWidth, labelWidth + plotWidth, plotBottom,
                         end, sharedEnd);
  svg::closePlot(os);
}

void report::writeTimelines(raw_ostream &os,
                            const PolicyComparison &comparison) {
  double sharedEnd = getLongestStep(comparison);
  for (const PolicyRun &run : comparison.runs)
    writeTimeline(os, run, sharedEnd, comparison.getByteUnits());
}
