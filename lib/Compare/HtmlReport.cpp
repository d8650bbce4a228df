//===- HtmlReport.cpp - Self-contained HTML reports -----------------------===//

#include "hyperoffload/Compare/HtmlReport.h"

#include "HtmlPage.h"
#include "ReportParts.h"
#include "Svg.h"

#include "hyperoffload/Compare/ComparisonTable.h"
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

/// The run the table highlights: the fastest that fits and is safe.
static std::optional<size_t> findBestFit(const PolicyComparison &comparison) {
  std::optional<size_t> best;
  for (auto [index, run] : llvm::enumerate(comparison.runs))
    if (comparison.isSafe(run) &&
        (!best || run.result.stepTime < comparison.runs[*best].result.stepTime))
      best = index;
  return best;
}

/// The run the summary describes: hyperoffload's, else the best fit.
static const PolicyRun *chooseSummarizedRun(const PolicyComparison &comparison,
                                            std::optional<size_t> best) {
  for (const PolicyRun &run : comparison.runs)
    if (run.policy == ComparedPolicy::HyperOffload)
      return &run;
  return best ? &comparison.runs[*best] : nullptr;
}

void ho::writeComparisonHtml(raw_ostream &os,
                             const PolicyComparison &comparison,
                             llvm::StringRef command) {
  ComparisonTable table = tabulateComparison(comparison);
  html::writeHeader(os, "HyperOffload: " + table.title);
  // The switch comes first, so that CSS can restyle every plot after it.
  os << "<input type=\"checkbox\" id=\"" << report::kSharedTimeId
     << "\" class=\"switch\">\n<div class=\"report\">\n";
  os << "<h1>Offload policies: " << svg::escape(table.title) << "</h1>\n"
     << "<p class=\"note\"><code>" << svg::escape(command) << "</code><br>"
     << svg::escape(table.bounds) << "</p>\n";

  std::optional<size_t> best = findBestFit(comparison);
  os << "<h2 id=\"policies\">Every policy</h2>\n";
  html::writeTable(os, table, best);
  for (const std::string &note : table.notes)
    os << "<p class=\"note\">" << svg::escape(note) << "</p>\n";

  if (const PolicyRun *run = chooseSummarizedRun(comparison, best)) {
    os << "<h2 id=\"plan\">What the plan did</h2>\n";
    report::writePlanSummary(os, comparison, *run);
  }

  auto sharedTimeSwitch = [&] {
    os << "<p><label for=\"" << report::kSharedTimeId
       << "\" class=\"switch\">same time axis for every run</label></p>\n";
  };
  os << "<h2 id=\"memory\">Device memory over time</h2>\n<p class=\"note\">The "
        "live "
        "bytes stacked by what they hold, the allocator's footprint (live "
        "bytes and the holes between them) as a line in the policy's "
        "colour, and the budget in black, on one byte axis. Hover a column "
        "for the largest tensors at that moment, and the dot for those at "
        "the peak.</p>\n";
  sharedTimeSwitch();
  report::writeMemorySection(os, comparison);

  os << "<h2 id=\"waits\">Where compute waited</h2>\n<p class=\"note\">Stall "
        "and "
        "allocator time in each slice of the step, the runs lined up by the "
        "compute ops they had issued, so that a column is the same part of "
        "the graph in every row. Hover a cell for its figures.</p>\n";
  report::writeStallHeatMap(os, comparison);

  os << "<h2 id=\"timelines\">Timelines</h2>\n<p class=\"note\">Compute, "
        "stalls, allocator "
        "stalls and the transfers on each link direction. Stretches less "
        "than a pixel apart are drawn as one; hover one for the ops in "
        "it.</p>\n";
  sharedTimeSwitch();
  report::writeTimelines(os, comparison);
  os << "</div>\n";
  html::writeFooter(os);
}
