//===- Report.cpp - Summaries, metrics and traces of a simulation ---------===//

#include "hyperoffload/Simulation/Report.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ho;

std::string ho::formatSeconds(double seconds) {
  if (seconds >= 1)
    return llvm::formatv("{0:f3} s", seconds).str();
  if (seconds >= 1e-3)
    return llvm::formatv("{0:f3} ms", seconds * 1e3).str();
  return llvm::formatv("{0:f3} us", seconds * 1e6).str();
}

static const MemoryTier kTiers[] = {MemoryTier::pool, MemoryTier::host,
                                    MemoryTier::disk};
static const Direction kDirections[] = {Direction::ToDevice,
                                        Direction::FromDevice};

/// "file:line:col" for a file location, else the location as MLIR prints it.
static std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", file.getFilename(), file.getLine(),
                         file.getColumn())
        .str();
  std::string where;
  llvm::raw_string_ostream os(where);
  loc.print(os);
  return where;
}

static std::string describeOutOfMemory(const SimulationResult &result) {
  if (!result.outOfMemory)
    return "no";
  if (!result.firstOutOfMemoryOp)
    return "yes, at function entry";
  return "yes, first at " + formatLocation(result.firstOutOfMemoryOp->getLoc());
}

std::string ho::formatOpLocation(Operation *op) {
  if (!op)
    return "";
  Location loc = op->getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return formatLocation(loc);
}

static std::string describeLink(std::optional<MemoryTier> tier, bool toDevice) {
  std::string name = tier ? stringifyMemoryTier(*tier).str() : "any tier";
  return toDevice ? name + " -> device" : "device -> " + name;
}

ArgumentResidence ho::getArgumentResidence(ExecutionMode mode) {
  return mode == ExecutionMode::AsWritten ? ArgumentResidence::stayOrFetch
                                          : ArgumentResidence::copiedToTier;
}

static void printLowerBounds(llvm::raw_ostream &os,
                             const SimulationResult &result, ExecutionMode mode,
                             const LowerBounds &bounds, ByteUnits units) {
  os << "  memory bound    " << formatBytes(bounds.memoryBytes, units);
  // No op needs device memory when nothing is read on the device.
  if (bounds.memoryOp)
    os << " (at " << formatOpLocation(bounds.memoryOp) << ")";
  if (!bounds.fitsBudget())
    os << llvm::formatv(", above the {0} budget: no schedule fits",
                        formatBytes(bounds.budget, units));
  os << "\n";
  os << llvm::formatv("  time bound      {0} (compute {1}",
                      formatSeconds(bounds.getTimeSeconds()),
                      formatSeconds(bounds.computeSeconds));
  for (const TransferBound &transfer : bounds.transfers)
    os << llvm::formatv("; {0} {1}",
                        describeLink(transfer.tier, transfer.toDevice),
                        formatSeconds(transfer.seconds));
  os << ")\n";
  // The deadlines, like the transfer bounds, assume a budget that holds.
  ArgumentResidence residence = getArgumentResidence(mode);
  if (bounds.fitsBudget())
    os << "  deadline bound  "
       << formatSeconds(bounds.getDeadlineSeconds(residence)) << "\n";
  std::optional<double> gap = bounds.getGap(result.stepTime, residence);
  os << "  gap to bound    ";
  if (gap) {
    // Rounding noise on a schedule that meets the bound is not "-0.0%".
    double percent = std::abs(*gap) < 5e-4 ? 0 : 100 * *gap;
    os << llvm::formatv("{0}{1:f1}%", percent >= 0 ? "+" : "", percent);
  } else {
    os << "n/a (the bound is zero)";
  }
  // The bounds assume the budget holds; a run that broke it may beat them.
  if (result.outOfMemory)
    os << " (the run did not fit the budget)";
  os << "\n";
}

void ho::printSummary(llvm::raw_ostream &os, const SimulationResult &result,
                      const Target &target, const SimulationOptions &options,
                      const LowerBounds *bounds, ByteUnits units) {
  auto percentOfStep = [&](double seconds) {
    return result.stepTime > 0 ? 100 * seconds / result.stepTime : 0.0;
  };
  os << llvm::formatv("simulation on {0}: {1}, {2} allocator\n", target.name,
                      stringifyExecutionMode(options.mode),
                      stringifyAllocatorKind(options.allocator));
  os << llvm::formatv("  step time       {0}\n",
                      formatSeconds(result.stepTime));
  os << llvm::formatv("  compute         {0} ({1:f1}% of the step)\n",
                      formatSeconds(result.computeTime),
                      percentOfStep(result.computeTime));
  os << llvm::formatv("  stalls          {0} in {1} stalls ({2:f1}%), host "
                      "overhead {3}\n",
                      formatSeconds(result.stallTime), result.stallCount,
                      percentOfStep(result.stallTime),
                      formatSeconds(result.hostOverheadTime));
  os << llvm::formatv(
      "  allocator       {0} stalls ({1}): {2} of cache "
      "released, {3} pages remapped\n",
      result.allocatorStalls, formatSeconds(result.allocatorStallTime),
      formatBytes(result.releasedBytes, units), result.remappedPages);
  if (options.mode != ExecutionMode::AsWritten)
    os << llvm::formatv("  runtime         {0} fetches, {1} evictions\n",
                        result.fetches, result.evictions);
  if (result.notRunnable)
    os << "  runnable        no: the weights alone exceed the budget, so "
          "vLLM would not start\n";
  if (options.allocator == AllocatorKind::Paged)
    os << llvm::formatv(
        "  blocks          {0} each; live bytes count whole "
        "blocks\n",
        formatBytes(options.blockBytes, getChosenUnits(options.blockBytes)));
  os << llvm::formatv("  peak live       {0} of a {1} budget\n",
                      formatBytes(result.peakLiveBytes, units),
                      formatBytes(result.budget, units));
  os << llvm::formatv("  peak footprint  {0} (live bytes plus fragmentation)\n",
                      formatBytes(result.peakFootprintBytes, units));
  os << "  out of memory   " << describeOutOfMemory(result) << "\n";
  for (MemoryTier tier : kTiers) {
    for (Direction direction : kDirections) {
      const LinkTraffic &traffic = result.getTraffic(tier, direction);
      if (traffic.transfers == 0)
        continue;
      std::string link = direction == Direction::ToDevice
                             ? (stringifyMemoryTier(tier) + " -> device").str()
                             : ("device -> " + stringifyMemoryTier(tier)).str();
      os << llvm::formatv("  traffic         {0,-16} {1} in {2} transfers\n",
                          link, formatBytes(traffic.bytes, units),
                          traffic.transfers);
    }
  }
  if (bounds)
    printLowerBounds(os, result, options.mode, *bounds, units);
}

static llvm::json::Value lowerBoundsToJSON(const SimulationResult &result,
                                           ExecutionMode mode,
                                           const LowerBounds &bounds) {
  llvm::json::Array transfers;
  for (const TransferBound &transfer : bounds.transfers)
    transfers.push_back(llvm::json::Object{
        {"tier", transfer.tier ? stringifyMemoryTier(*transfer.tier) : "any"},
        {"direction",
         stringifyDirection(transfer.toDevice ? Direction::ToDevice
                                              : Direction::FromDevice)},
        {"bytes", transfer.bytes},
        {"time_s", transfer.seconds},
        {"trailing_compute_s", transfer.trailingComputeSeconds},
    });
  ArgumentResidence residence = getArgumentResidence(mode);
  std::optional<double> gap = bounds.getGap(result.stepTime, residence);
  return llvm::json::Object{
      {"memory_bytes", bounds.memoryBytes},
      {"memory_op", bounds.memoryOp
                        ? bounds.memoryOp->getName().getStringRef().str()
                        : std::string()},
      {"memory_location", formatOpLocation(bounds.memoryOp)},
      {"fits_budget", bounds.fitsBudget()},
      {"compute_time_s", bounds.computeSeconds},
      {"transfer_time_s", std::move(transfers)},
      {"time_s", bounds.getTimeSeconds()},
      {"deadline_time_s", bounds.getDeadlineSeconds(residence)},
      {"tighter_time_s", bounds.getTighterTimeSeconds(residence)},
      {"gap", gap ? llvm::json::Value(*gap) : llvm::json::Value(nullptr)},
  };
}

llvm::json::Array ho::trafficToJSON(const SimulationResult &result) {
  llvm::json::Array traffic;
  for (MemoryTier tier : kTiers) {
    for (Direction direction : kDirections) {
      const LinkTraffic &link = result.getTraffic(tier, direction);
      if (link.transfers == 0)
        continue;
      traffic.push_back(llvm::json::Object{
          {"tier", stringifyMemoryTier(tier)},
          {"direction", stringifyDirection(direction)},
          {"bytes", link.bytes},
          {"transfers", static_cast<int64_t>(link.transfers)},
      });
    }
  }
  return traffic;
}

llvm::json::Value ho::metricsToJSON(const SimulationResult &result,
                                    const Target &target,
                                    const SimulationOptions &options,
                                    const LowerBounds *bounds) {
  llvm::json::Object metrics{
      {"target", target.name},
      {"mode", stringifyExecutionMode(options.mode)},
      {"allocator", stringifyAllocatorKind(options.allocator)},
      {"step_time_s", result.stepTime},
      {"compute_time_s", result.computeTime},
      {"stall_time_s", result.stallTime},
      {"stall_count", static_cast<int64_t>(result.stallCount)},
      {"host_overhead_time_s", result.hostOverheadTime},
      {"allocator_stalls", static_cast<int64_t>(result.allocatorStalls)},
      {"allocator_stall_time_s", result.allocatorStallTime},
      {"released_bytes", result.releasedBytes},
      {"remapped_pages", result.remappedPages},
      {"fetches", static_cast<int64_t>(result.fetches)},
      {"evictions", static_cast<int64_t>(result.evictions)},
      {"budget_bytes", result.budget},
      {"peak_live_bytes", result.peakLiveBytes},
      {"peak_footprint_bytes", result.peakFootprintBytes},
      {"out_of_memory", result.outOfMemory},
      {"runnable", !result.notRunnable},
      {"traffic", trafficToJSON(result)},
  };
  if (bounds)
    metrics["lower_bounds"] = lowerBoundsToJSON(result, options.mode, *bounds);
  return metrics;
}
