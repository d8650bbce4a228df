//===- CompareTable.cpp - A policy comparison as a text table -------------===//

#include "CompareTable.h"
#include "Table.h"

#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
/// A link direction, as a column.
struct Link {
  MemoryTier tier;
  Direction direction;
};
} // namespace

/// The link directions that some run moved bytes over, in a fixed order.
static std::vector<Link> getUsedLinks(const PolicyComparison &comparison) {
  std::vector<Link> links;
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    for (Direction direction : {Direction::ToDevice, Direction::FromDevice}) {
      for (const PolicyRun &run : comparison.runs) {
        if (run.result.getTraffic(tier, direction).transfers > 0) {
          links.push_back({tier, direction});
          break;
        }
      }
    }
  }
  return links;
}

static std::string getLinkHeader(const Link &link) {
  std::string tier = stringifyMemoryTier(link.tier).upper();
  return link.direction == Direction::ToDevice ? tier + "->DEV"
                                               : "DEV->" + tier;
}

/// "+12.3%", with rounding noise shown as 0.
static std::string formatPercent(std::optional<double> fraction) {
  if (!fraction)
    return "n/a";
  double percent = std::abs(*fraction) < 5e-4 ? 0 : 100 * *fraction;
  return fmt::format("{:+.1f}%", percent);
}

void cli::printComparison(std::FILE *out, const PolicyComparison &comparison) {
  const LowerBounds &bounds = comparison.bounds;
  fmt::print(out, "@{} on {}, budget {}\n", comparison.function,
             comparison.target.name, formatBytes(comparison.budget));
  fmt::print(out, "lower bounds: memory {}{}, time {} (compute {})\n\n",
             formatBytes(bounds.memoryBytes),
             bounds.fitsBudget() ? "" : " (over the budget: nothing fits)",
             formatSeconds(bounds.getTimeSeconds()),
             formatSeconds(bounds.computeSeconds));

  using Align = Table::Align;
  std::vector<Table::Column> columns = {{"POLICY"},
                                        {"PEAK", Align::Right},
                                        {"VS NONE", Align::Right},
                                        {"STEP TIME", Align::Right},
                                        {"SLOWDOWN", Align::Right},
                                        {"STALL TIME", Align::Right},
                                        {"STALLS", Align::Right},
                                        {"COMPACTIONS", Align::Right}};
  std::vector<Link> links = getUsedLinks(comparison);
  for (const Link &link : links)
    columns.push_back({getLinkHeader(link), Align::Right});
  columns.push_back({"GAP TO BOUND", Align::Right});
  columns.push_back({"FITS"});

  Table table(std::move(columns));
  for (const PolicyRun &run : comparison.runs) {
    const SimulationResult &result = run.result;
    std::optional<double> reduction = comparison.getPeakReduction(run);
    std::optional<double> slowdown = comparison.getSlowdown(run);
    std::vector<std::string> row = {
        stringifyComparedPolicy(run.policy).str(),
        formatBytes(result.peakFootprintBytes),
        formatPercent(reduction ? std::optional<double>(-*reduction)
                                : std::nullopt),
        formatSeconds(result.stepTime),
        slowdown ? fmt::format("{:.2f}x", *slowdown) : "n/a",
        formatSeconds(result.stallTime),
        std::to_string(result.stallCount),
        fmt::format("{} ({})", result.compactions,
                    formatSeconds(result.compactionTime))};
    for (const Link &link : links)
      row.push_back(
          formatBytes(result.getTraffic(link.tier, link.direction).bytes));
    row.push_back(formatPercent(comparison.getGap(run)));
    row.push_back(comparison.fits(run) ? "yes" : "no");
    table.addRow(std::move(row));
  }
  table.print(out);
}
