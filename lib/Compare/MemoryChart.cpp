//===- MemoryChart.cpp - Device memory over time, stacked by role ---------===//

#include "ReportParts.h"

#include "hyperoffload/Compare/HtmlReport.h"
#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Simulation/Report.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ho;
using llvm::formatv;
using llvm::raw_ostream;

namespace {
/// Slices of the step a memory chart draws, and the tensors a column's
/// hover names.
constexpr unsigned kBuckets = 160;
constexpr unsigned kLargestPerBucket = 3;
constexpr unsigned kLargestAtPeak = 5;
constexpr double kWidth = 570, kHeight = 250;
constexpr double kLeft = 62, kRight = 14, kTop = 26, kBottom = 34;

/// The roles bottom to top: what stays longest at the bottom.
constexpr TensorRole kStackOrder[] = {
    TensorRole::Weight,   TensorRole::OptimizerState, TensorRole::KVCache,
    TensorRole::Gradient, TensorRole::Activation,     TensorRole::Other};

/// The byte axis every memory chart shares.
struct ByteAxis {
  double lo = 0, hi = 1;
  svg::Unit unit;
};

struct RunMemory {
  const PolicyRun *run;
  std::vector<MemoryBucket> curve;
  MemoryPeak peak;
};
} // namespace

llvm::StringRef report::getRoleColor(TensorRole role) {
  switch (role) {
  case TensorRole::Weight:
    return "#9fa8da";
  case TensorRole::KVCache:
    return "#80cbc4";
  case TensorRole::Activation:
    return "#ffcc80";
  case TensorRole::Gradient:
    return "#ef9a9a";
  case TensorRole::OptimizerState:
    return "#ce93d8";
  case TensorRole::Other:
    return "#cfd8dc";
  }
  llvm_unreachable("unknown tensor role");
}

/// One byte axis for every chart, up to the budget, the highest live peak
/// and the footprint of the runs that fit; the footprint of a run that does
/// not fit may leave the top (its title gives the peak). Where every run
/// keeps much of its memory throughout (weights), the axis starts at a
/// round value under the lowest point instead of 0, so that what changes
/// fills the plot.
static ByteAxis chooseByteAxis(const PolicyComparison &comparison,
                               llvm::ArrayRef<RunMemory> runs) {
  double highest = static_cast<double>(comparison.budget), lowest = highest;
  for (const RunMemory &memory : runs) {
    const SimulationResult &result = memory.run->result;
    highest = std::max<double>(highest, result.peakLiveBytes);
    if (comparison.fits(*memory.run))
      highest = std::max<double>(highest, result.peakFootprintBytes);
    // Leave out the ends of the step, where arguments arrive and leave.
    size_t skip = memory.curve.size() / 50;
    for (size_t i = skip; i + skip < memory.curve.size(); ++i)
      lowest = std::min<double>(lowest, memory.curve[i].liveBytes);
  }
  ByteAxis axis;
  axis.unit = svg::chooseByteUnit(highest, comparison.getByteUnits() ==
                                               ByteUnits::Binary);
  std::vector<double> ticks =
      svg::getNiceTicks(0, highest / axis.unit.divisor, 5);
  axis.hi = ticks.back() * axis.unit.divisor;
  if (lowest > 0.4 * highest) {
    double step = ticks.size() > 1 ? ticks[1] - ticks[0] : ticks.back();
    axis.lo = std::floor(0.9 * lowest / axis.unit.divisor / step) * step *
              axis.unit.divisor;
  }
  return axis;
}

static std::string describeTensors(llvm::ArrayRef<LiveTensor> tensors,
                                   ByteUnits units) {
  std::string text;
  for (const LiveTensor &tensor : tensors)
    text += formatv("\n  {0} ({1}) {2}", tensor.name,
                    stringifyTensorRole(tensor.role),
                    formatBytes(tensor.bytes, units))
                .str();
  return text;
}

static std::string
describeRoles(const std::array<int64_t, kTensorRoleCount> &bytes,
              ByteUnits units) {
  std::string text;
  for (TensorRole role : kStackOrder)
    if (int64_t roleBytes = bytes[static_cast<unsigned>(role)])
      text += formatv("{0}{1} {2}", text.empty() ? "" : ", ",
                      stringifyTensorRole(role), formatBytes(roleBytes, units))
                  .str();
  return text;
}

/// Step-shaped points along the tops of `values`, one per bucket.
static void appendSteps(std::string &points, llvm::ArrayRef<double> starts,
                        double end, llvm::ArrayRef<double> values,
                        const svg::Scale &x, const svg::Scale &y,
                        bool reverse) {
  llvm::raw_string_ostream os(points);
  size_t count = values.size();
  for (size_t k = 0; k < count; ++k) {
    size_t i = reverse ? count - 1 - k : k;
    double from = starts[i], to = i + 1 < count ? starts[i + 1] : end;
    if (reverse)
      std::swap(from, to);
    os << formatv("{0:f1},{1:f1} {2:f1},{1:f1} ", x(from), y(values[i]), x(to));
  }
}

static void writeMemoryChart(raw_ostream &os,
                             const PolicyComparison &comparison,
                             const RunMemory &memory, const ByteAxis &axis,
                             double sharedEnd) {
  const PolicyRun &run = *memory.run;
  const SimulationResult &result = run.result;
  ByteUnits units = comparison.getByteUnits();
  llvm::StringRef name = stringifyComparedPolicy(run.policy);
  bool fits = comparison.fits(run);
  double end = std::max(result.stepTime, 1e-12);
  double plotWidth = kWidth - kLeft - kRight, plotBottom = kHeight - kBottom;
  svg::Scale x = {0, end, 0, plotWidth};
  svg::Scale y = {axis.lo, axis.hi, plotBottom, kTop};
  std::string plotName = ("memory-" + name).str();

  os << "<figure class=\"memory\">\n";
  svg::openPlot(os, plotName, kWidth, kHeight,
                formatv("Device memory of {0} over time", name).str());
  os << formatv("<clipPath id=\"clip-{0}\"><rect x=\"0\" y=\"{1}\" "
                "width=\"{2}\" height=\"{3}\"/></clipPath>\n",
                plotName, kTop, plotWidth, plotBottom - kTop);
  os << formatv("<text class=\"title\" x=\"{0}\" y=\"16\">{1}: peak {2}, "
                "step {3}{4}</text>\n",
                kLeft, name, formatBytes(result.peakFootprintBytes, units),
                formatSeconds(result.stepTime),
                fits ? "" : " \xe2\x80\x94 does not fit");
  // The byte axis and its grid.
  for (double tick : svg::getNiceTicks(axis.lo / axis.unit.divisor,
                                       axis.hi / axis.unit.divisor, 5)) {
    double value = tick * axis.unit.divisor;
    if (value < axis.lo - 1e-9 * axis.hi || value > axis.hi * (1 + 1e-9))
      continue;
    os << formatv("<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:f1}\" "
                  "y2=\"{2:f1}\"/><text class=\"tick\" x=\"{3}\" y=\"{4:f1}\" "
                  "text-anchor=\"end\">{5} {6}</text>\n",
                  kLeft, kLeft + plotWidth, y(value), kLeft - 5, y(value) + 4,
                  svg::formatNumber(tick), axis.unit.suffix);
  }

  report::openTimedGroup(os, kLeft, end, sharedEnd);
  os << formatv("<g clip-path=\"url(#clip-{0})\">\n", plotName);
  const std::vector<MemoryBucket> &curve = memory.curve;
  std::vector<double> starts, below(curve.size(), 0.0);
  for (const MemoryBucket &bucket : curve)
    starts.push_back(bucket.start);
  // The live bytes, one band per role, stacked.
  for (TensorRole role : kStackOrder) {
    unsigned index = static_cast<unsigned>(role);
    int64_t most = 0;
    std::vector<double> above = below;
    for (auto [i, bucket] : llvm::enumerate(curve)) {
      above[i] += bucket.roleBytes[index];
      most = std::max(most, bucket.roleBytes[index]);
    }
    if (most > 0) {
      std::string points;
      appendSteps(points, starts, end, above, x, y, false);
      appendSteps(points, starts, end, below, x, y, true);
      os << formatv("<polygon class=\"mark band\" data-role=\"{0}\" "
                    "fill=\"{1}\" points=\"{2}\"><title>{0}: up to {3}"
                    "</title></polygon>\n",
                    stringifyTensorRole(role), report::getRoleColor(role),
                    points, formatBytes(most, units));
    }
    below = std::move(above);
  }
  // The allocator's footprint: live bytes and the holes between them.
  std::vector<double> footprint;
  for (const MemoryBucket &bucket : curve)
    footprint.push_back(static_cast<double>(bucket.footprintBytes));
  if (!curve.empty()) {
    std::string points;
    appendSteps(points, starts, end, footprint, x, y, false);
    os << formatv("<polyline class=\"mark footprint\" fill=\"none\" "
                  "stroke=\"{0}\" stroke-width=\"2\" "
                  "vector-effect=\"non-scaling-stroke\" points=\"{1}\">"
                  "<title>allocator footprint of {2}</title></polyline>\n",
                  getPolicyColor(run.policy), points, name);
  }
  os << "</g>\n";
  // A column per bucket to hover: what was on the device then.
  for (auto [i, bucket] : llvm::enumerate(curve)) {
    double to = i + 1 < curve.size() ? curve[i + 1].start : end;
    os << formatv("<rect class=\"hover\" x=\"{0:f2}\" y=\"{1}\" "
                  "width=\"{2:f2}\" height=\"{3}\"><title>{4}: {5} live, "
                  "footprint {6}\n{7}{8}</title></rect>",
                  x(bucket.start), kTop, x(to) - x(bucket.start),
                  plotBottom - kTop, formatSeconds(bucket.start),
                  formatBytes(bucket.liveBytes, units),
                  formatBytes(bucket.footprintBytes, units),
                  describeRoles(bucket.roleBytes, units),
                  bucket.largest.empty()
                      ? std::string()
                      : "\nlargest:" + describeTensors(bucket.largest, units));
  }
  // The peak, with the tensors that make it.
  if (memory.peak.liveBytes > 0)
    // A dot that stays round when the shared time axis scales the group:
    // a round-capped stroke that does not scale, over a black one.
    os << formatv("<g class=\"mark peak\"><line x1=\"{0:f2}\" "
                  "x2=\"{6:f2}\" y1=\"{1:f1}\" y2=\"{1:f1}\" "
                  "stroke=\"#000\" stroke-width=\"10\"/><line x1=\"{0:f2}\" "
                  "x2=\"{6:f2}\" y1=\"{1:f1}\" y2=\"{1:f1}\" stroke=\"#fff\" "
                  "stroke-width=\"6\"/><title>peak {2} live at {3}\n{4}\n"
                  "largest:{5}</title></g>",
                  x(memory.peak.time), y(memory.peak.liveBytes),
                  formatBytes(memory.peak.liveBytes, units),
                  formatSeconds(memory.peak.time),
                  describeRoles(memory.peak.roleBytes, units),
                  describeTensors(memory.peak.largest, units),
                  x(memory.peak.time) + 0.01);
  report::closeTimedGroup(os);

  // The budget, above everything and in no policy's colour.
  double budgetY = y(static_cast<double>(comparison.budget));
  std::string budgetLabel = "budget " + formatBytes(comparison.budget, units);
  double labelWidth = 7 * budgetLabel.size() + 8;
  os << formatv("<line class=\"budget\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:f1}\" "
                "y2=\"{2:f1}\"/><rect class=\"budget-label\" x=\"{3:f1}\" "
                "y=\"{4:f1}\" width=\"{5:f1}\" height=\"15\"/>"
                "<text class=\"budget\" x=\"{6:f1}\" y=\"{7:f1}\" "
                "text-anchor=\"end\">{8}</text>\n",
                kLeft, kLeft + plotWidth, budgetY,
                kLeft + plotWidth - labelWidth, budgetY - 17, labelWidth,
                kLeft + plotWidth - 4, budgetY - 5, svg::escape(budgetLabel));
  os << formatv("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" "
                "y2=\"{2}\"/>\n",
                kLeft, kLeft + plotWidth, plotBottom);
  report::writeTimeTicks(os, kLeft, kLeft + plotWidth, plotBottom, end,
                         sharedEnd);
  svg::closePlot(os);

  os << "<figcaption>";
  if (memory.peak.liveBytes > 0) {
    os << "Largest at the peak (" << formatBytes(memory.peak.liveBytes, units)
       << " live at " << formatSeconds(memory.peak.time) << "): ";
    for (auto [i, tensor] :
         llvm::enumerate(llvm::ArrayRef(memory.peak.largest).take_front(3)))
      os << (i ? "; " : "") << svg::escape(tensor.name) << " ("
         << stringifyTensorRole(tensor.role) << ", "
         << formatBytes(tensor.bytes, units) << ")";
  }
  os << "</figcaption>\n</figure>\n";
}

void report::writeMemorySection(raw_ostream &os,
                                const PolicyComparison &comparison) {
  std::vector<RunMemory> runs;
  std::array<bool, kTensorRoleCount> present = {};
  for (const PolicyRun &run : comparison.runs) {
    runs.push_back({&run, bucketMemory(run.result, kBuckets, kLargestPerBucket),
                    findMemoryPeak(run.result, kLargestAtPeak)});
    for (const MemoryBucket &bucket : runs.back().curve)
      for (unsigned role = 0; role < kTensorRoleCount; ++role)
        present[role] |= bucket.roleBytes[role] > 0;
  }
  ByteAxis axis = chooseByteAxis(comparison, runs);
  ByteUnits units = comparison.getByteUnits();

  os << "<div class=\"legend\">";
  for (TensorRole role : kStackOrder)
    if (present[static_cast<unsigned>(role)])
      os << formatv("<span><i style=\"background:{0}\"></i>{1}</span>",
                    getRoleColor(role), stringifyTensorRole(role));
  os << "<span><i class=\"line\"></i>allocator footprint (the policy's "
        "colour)</span><span><i class=\"budget\"></i>budget</span>";
  if (axis.lo > 0)
    os << "<span>byte axis from "
       << formatBytes(static_cast<int64_t>(axis.lo), units) << "</span>";
  os << "</div>\n<div class=\"plots\">\n";
  double sharedEnd = getLongestStep(comparison);
  for (const RunMemory &memory : runs)
    writeMemoryChart(os, comparison, memory, axis, sharedEnd);
  os << "</div>\n";
}
