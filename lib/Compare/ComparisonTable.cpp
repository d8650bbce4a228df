//===- ComparisonTable.cpp - A policy comparison as rows of text ----------===//

#include "hyperoffload/Compare/ComparisonTable.h"

#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// A link direction, as a column.
struct Link {
  MemoryTier tier;
  Direction direction;
};
} // namespace

/// The link directions of the target, or those that some run moved bytes
/// over, in a fixed order.
static std::vector<Link> getLinks(const PolicyComparison &comparison,
                                  LinkColumns which) {
  std::vector<Link> links;
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    for (Direction direction : {Direction::ToDevice, Direction::FromDevice}) {
      bool shown =
          which == LinkColumns::All
              ? comparison.target.getLink(tier) != nullptr
              : llvm::any_of(comparison.runs, [&](const PolicyRun &run) {
                  return run.result.getTraffic(tier, direction).transfers > 0;
                });
      if (shown)
        links.push_back({tier, direction});
    }
  }
  return links;
}

static std::string getLinkHeader(const Link &link) {
  std::string tier = stringifyMemoryTier(link.tier).upper();
  return link.direction == Direction::ToDevice ? tier + "->DEV"
                                               : "DEV->" + tier;
}

std::string ho::formatPercent(std::optional<double> fraction) {
  if (!fraction)
    return "n/a";
  double percent = std::abs(*fraction) < 5e-4 ? 0 : 100 * *fraction;
  return llvm::formatv("{0}{1:f1}%", percent < 0 ? "" : "+", percent).str();
}

ComparisonTable ho::tabulateComparison(const PolicyComparison &comparison,
                                       LinkColumns linkColumns) {
  ComparisonTable table;
  const LowerBounds &bounds = comparison.bounds;
  table.title =
      llvm::formatv("@{0} on {1}, budget {2}", comparison.function,
                    comparison.target.name,
                    formatBytes(comparison.budget, comparison.getByteUnits()))
          .str();
  table.bounds =
      llvm::formatv("lower bounds: memory {0}{1}, time {2} (compute {3}), "
                    "deadlines {4}",
                    formatBytes(bounds.memoryBytes, comparison.getByteUnits()),
                    bounds.fitsBudget() ? ""
                                        : " (over the budget: nothing fits)",
                    formatSeconds(bounds.getTimeSeconds()),
                    formatSeconds(bounds.computeSeconds),
                    formatSeconds(bounds.deadlineSeconds))
          .str();
  // The runtimes, which do not place arguments once, are measured against
  // the bound that leaves them free.
  if (bounds.copiedArgumentsDeadlineSeconds < bounds.deadlineSeconds)
    table.bounds +=
        llvm::formatv(" ({0} for the runtimes)",
                      formatSeconds(bounds.copiedArgumentsDeadlineSeconds))
            .str();

  // The widest cells as a rule: "hyperoffload-schedule", "999.99 GiB",
  // "+100.0%", "999.999 ms", "999.99x", "123456",
  // "expandable: 99 (999.999 ms)", "+1234.5%", "no (overlap)".
  table.columns = {{"POLICY", false, 21}, {"PEAK", true, 10},
                   {"VS NONE", true, 7},  {"STEP TIME", true, 10},
                   {"SLOWDOWN", true, 7}, {"STALL TIME", true, 10},
                   {"STALLS", true, 6},   {"ALLOCATOR STALLS", true, 27}};
  std::vector<Link> links = getLinks(comparison, linkColumns);
  for (const Link &link : links)
    table.columns.push_back({getLinkHeader(link), true, 9});
  table.columns.push_back({"GAP TO BOUND", true, 8});
  table.columns.push_back({"FITS", false, 12});

  for (const PolicyRun &run : comparison.runs) {
    const SimulationResult &result = run.result;
    std::optional<double> reduction = comparison.getPeakReduction(run);
    std::optional<double> slowdown = comparison.getSlowdown(run);
    std::vector<std::string> row = {
        stringifyComparedPolicy(run.policy).str(),
        formatBytes(result.peakFootprintBytes, comparison.getByteUnits()),
        formatPercent(reduction ? std::optional<double>(-*reduction)
                                : std::nullopt),
        formatSeconds(result.stepTime),
        slowdown ? llvm::formatv("{0:f2}x", *slowdown).str() : "n/a",
        formatSeconds(result.stallTime),
        std::to_string(result.stallCount),
        llvm::formatv(
            "{0}: {1} ({2})", stringifyAllocatorKind(run.simulation.allocator),
            result.allocatorStalls, formatSeconds(result.allocatorStallTime))
            .str()};
    for (const Link &link : links)
      row.push_back(
          formatBytes(result.getTraffic(link.tier, link.direction).bytes,
                      comparison.getByteUnits()));
    row.push_back(formatPercent(comparison.getGap(run)));
    row.push_back(!comparison.fits(run)     ? "no"
                  : run.result.overlaps > 0 ? "no (overlap)"
                                            : "yes");
    table.rows.push_back(std::move(row));
  }
  // A plan that refined the op order is measured against the bounds of
  // the order it runs, which the header's do not show.
  for (const PolicyRun &run : comparison.runs)
    if (run.bounds &&
        run.bounds->deadlineSeconds != comparison.bounds.deadlineSeconds)
      table.notes.push_back(
          llvm::formatv("{0}: GAP TO BOUND against the deadlines of the op "
                        "order it runs, {1}",
                        stringifyComparedPolicy(run.policy),
                        formatSeconds(run.bounds->deadlineSeconds))
              .str());
  for (const SkippedPolicy &skipped : comparison.skipped)
    table.notes.push_back(llvm::formatv("{0}: not run: {1}",
                                        stringifyComparedPolicy(skipped.policy),
                                        skipped.reason)
                              .str());
  return table;
}

std::optional<ComparisonTable>
ho::tabulateRoutedSteps(const PolicyComparison &comparison) {
  const std::optional<StepStatistics> &baseline = comparison.baselineSteps;
  if (!baseline)
    return std::nullopt;
  ComparisonTable table;
  const RoutingOptions &routing = comparison.routing;
  table.title =
      llvm::formatv("routed experts and picked blocks: {0} routing (seed "
                    "{1}), predictor accuracy {2:f0}%, {3} steps on {4} "
                    "devices",
                    describeRouting(routing), routing.seed,
                    100 * routing.predictorAccuracy, baseline->steps,
                    baseline->devices)
          .str();
  table.bounds = "a step ends when its slowest device's does; DEVICE 0 is "
                 "the device the graph describes; HIT RATE and ON-DEMAND "
                 "count experts, BLOCK HITS and BLOCKS ON-DEMAND KV blocks";
  table.columns = {{"POLICY"},
                   {"MEAN STEP", true},
                   {"P50", true},
                   {"P99", true},
                   {"SLOWDOWN", true},
                   {"DEVICE 0", true},
                   {"HIT RATE", true},
                   {"ON-DEMAND", true},
                   {"BLOCK HITS", true},
                   {"BLOCKS ON-DEMAND", true},
                   {"FITS"}};
  for (const PolicyRun &run : comparison.runs) {
    if (!run.steps)
      continue;
    const StepStatistics &steps = *run.steps;
    table.rows.push_back(
        {stringifyComparedPolicy(run.policy).str(), formatSeconds(steps.mean),
         formatSeconds(steps.p50), formatSeconds(steps.p99),
         baseline->mean > 0
             ? llvm::formatv("{0:f2}x", steps.mean / baseline->mean).str()
             : "n/a",
         formatSeconds(steps.deviceMean),
         llvm::formatv("{0:f1}%", 100 * steps.hitRate).str(),
         std::to_string(steps.expertsFetchedOnDemand),
         llvm::formatv("{0:f1}%", 100 * steps.blockHitRate).str(),
         std::to_string(steps.blocksFetchedOnDemand),
         steps.outOfMemory    ? "no"
         : steps.overlaps > 0 ? "no (overlap)"
                              : "yes"});
  }
  return table;
}

std::optional<ComparisonTable>
ho::tabulateAdmission(const PolicyComparison &comparison) {
  const std::optional<Admission> &admission = comparison.admission;
  if (!admission)
    return std::nullopt;
  ComparisonTable table;
  table.title =
      llvm::formatv("vLLM admission: {0} of {1} sequences fit with every KV "
                    "block on the device",
                    admission->admitted, admission->requested)
          .str();
  table.bounds = "tokens per second of a decode step: paged (admitted) runs "
                 "the sequences that fit and preempts the others; the "
                 "policies run them all";
  table.columns = {
      {"POLICY"},         {"SEQUENCES", true},   {"STEP TIME", true},
      {"TOKENS/S", true}, {"VS ADMITTED", true}, {"FITS"}};
  auto row = [&](std::string name, int64_t sequences, double step, bool fits) {
    double tokens = step > 0 ? sequences / step : 0;
    std::string versus = "n/a";
    if (admission->tokensPerSecond > 0)
      versus =
          llvm::formatv("{0:f2}x", tokens / admission->tokensPerSecond).str();
    table.rows.push_back({std::move(name), std::to_string(sequences),
                          step > 0 ? formatSeconds(step) : "n/a",
                          llvm::formatv("{0:f1}", tokens).str(), versus,
                          fits ? "yes" : "no"});
  };
  if (admission->admitted > 0)
    row("paged (admitted)", admission->admitted, admission->stepTime, true);
  else
    table.rows.push_back(
        {"paged (admitted)", "0", "n/a", "0.0", "n/a", "no (would not start)"});
  for (const PolicyRun &run : comparison.runs)
    row(stringifyComparedPolicy(run.policy).str(), admission->requested,
        run.steps ? run.steps->mean : run.result.stepTime,
        comparison.fits(run) && !(run.steps && run.steps->outOfMemory));
  return table;
}
