//===- PlanSummary.cpp - What a plan did, in words and one table ----------===//

#include "ReportParts.h"

#include "hyperoffload/Compare/TensorRoles.h"
#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ho;
using llvm::formatv;
using llvm::raw_ostream;

namespace {
/// Tensors and their bytes.
struct Tally {
  unsigned count = 0;
  int64_t bytes = 0;
  void add(Type type) {
    if (auto remote = dyn_cast<RemoteType>(type))
      type = remote.getTensorType();
    ++count;
    bytes += getTensorSizeInBytes(type).value_or(0);
  }
};

/// What the plan did with the tensors of one role.
struct RoleMoves {
  Tally onDevice, inTier, stored, fetched;
  bool isEmpty() const {
    return !onDevice.count && !inTier.count && !stored.count && !fetched.count;
  }
};
} // namespace

static std::string formatTally(const Tally &tally, ByteUnits units) {
  if (tally.count == 0)
    return "";
  return formatv("{0} ({1})", formatBytes(tally.bytes, units), tally.count)
      .str();
}

/// The moves of the planned function of `run`, by role.
static std::array<RoleMoves, kTensorRoleCount>
tallyMoves(const PolicyComparison &comparison, const PolicyRun &run) {
  std::array<RoleMoves, kTensorRoleCount> moves;
  ModuleOp module = run.planned.get();
  auto function =
      module ? module.lookupSymbol<FunctionOpInterface>(comparison.function)
             : nullptr;
  if (!function || function.isExternal())
    return moves;
  auto at = [&](Value value) -> RoleMoves & {
    return moves[static_cast<unsigned>(classifyTensor(value))];
  };
  for (BlockArgument arg : function.getArguments())
    (isa<RemoteType>(arg.getType()) ? at(arg).inTier : at(arg).onDevice)
        .add(arg.getType());
  function->walk([&](Operation *op) {
    if (auto offload = dyn_cast<OffloadOp>(op))
      at(offload.getSource()).stored.add(offload.getSource().getType());
    else if (isa<PrefetchOp>(op))
      at(op->getOperand(0)).fetched.add(op->getOperand(0).getType());
  });
  return moves;
}

static void
writeMovesTable(raw_ostream &os, ByteUnits units,
                const std::array<RoleMoves, kTensorRoleCount> &moves) {
  os << "<table class=\"moves\">\n<tr><th>tensors</th><th class=\"right\">"
        "arguments kept on the device</th><th class=\"right\">arguments "
        "left in a tier</th><th class=\"right\">stored to a tier "
        "(ho.offload)</th><th class=\"right\">fetched to the device "
        "(ho.prefetch)</th></tr>\n";
  for (unsigned role = 0; role < kTensorRoleCount; ++role) {
    const RoleMoves &row = moves[role];
    if (row.isEmpty())
      continue;
    os << formatv(
        "<tr><td><i class=\"swatch\" style=\"background:{0}\"></i>"
        "{1}</td><td class=\"right\">{2}</td><td class=\"right\">"
        "{3}</td><td class=\"right\">{4}</td><td class=\"right\">"
        "{5}</td></tr>\n",
        report::getRoleColor(static_cast<TensorRole>(role)),
        stringifyTensorRole(static_cast<TensorRole>(role)),
        formatTally(row.onDevice, units), formatTally(row.inTier, units),
        formatTally(row.stored, units), formatTally(row.fetched, units));
  }
  os << "</table>\n";
}

void report::writePlanSummary(raw_ostream &os,
                              const PolicyComparison &comparison,
                              const PolicyRun &run) {
  const SimulationResult &result = run.result;
  llvm::StringRef name = stringifyComparedPolicy(run.policy);
  ByteUnits units = comparison.getByteUnits();
  os << "<div class=\"summary\">\n<p><b>" << name << "</b>: step "
     << formatSeconds(result.stepTime);
  if (auto slowdown = comparison.getSlowdown(run))
    os << formatv(" ({0:f2}x no offload)", *slowdown);
  os << ", peak footprint " << formatBytes(result.peakFootprintBytes, units)
     << " of a " << formatBytes(comparison.budget, units) << " budget";
  if (comparison.fits(run))
    os << " ("
       << formatBytes(comparison.budget - result.peakFootprintBytes, units)
       << " to spare).</p>\n";
  else
    os << ": <b>it does not fit</b>.</p>\n";

  if (run.planned) {
    os << "<p>What the plan keeps and moves, by what the tensors are "
          "(bytes, and how many tensors):</p>\n";
    writeMovesTable(os, units, tallyMoves(comparison, run));
  }

  // The links, and how much of their time compute did not see.
  std::vector<TrackDigest> tracks =
      digestTracks(result, std::max(result.stepTime, 1e-12));
  os << "<ul>\n";
  for (const TrackDigest &track : tracks) {
    if (track.kind != TrackDigest::Kind::Link)
      continue;
    // A link's queues copy side by side, so the sum may pass the step.
    os << formatv(
        "<li>{0}: {1} in {2} copies, copying for {3} summed over its queues "
        "({4:f0}% of the step)</li>\n",
        svg::escape(track.name), formatBytes(track.bytes, units), track.events,
        formatSeconds(track.busySeconds),
        result.stepTime > 0 ? 100 * track.busySeconds / result.stepTime : 0.0);
  }
  if (result.stallTime == 0 && result.allocatorStallTime == 0)
    os << "<li>Compute never waited: every transfer ran behind "
          "compute.</li>\n";
  else
    os << formatv("<li>Compute waited {0} ({1:f1}% of the step) in {2} "
                  "stalls{3}; the rest of the transfers ran behind "
                  "compute.</li>\n",
                  formatSeconds(result.stallTime),
                  result.stepTime > 0 ? 100 * result.stallTime / result.stepTime
                                      : 0.0,
                  result.stallCount,
                  result.allocatorStallTime > 0
                      ? ", and " + formatSeconds(result.allocatorStallTime) +
                            " for the allocator"
                      : std::string());
  MemoryPeak peak = findMemoryPeak(result, 3);
  if (peak.liveBytes > 0) {
    os << (comparison.fits(run) ? "<li>Why it fits" : "<li>Why it does not fit")
       << ": at the peak (" << formatSeconds(peak.time) << ") "
       << formatBytes(peak.liveBytes, units) << " are live";
    std::string roles;
    for (unsigned role = 0; role < kTensorRoleCount; ++role)
      if (peak.roleBytes[role])
        roles += formatv("{0}{1} {2}", roles.empty() ? "" : ", ",
                         stringifyTensorRole(static_cast<TensorRole>(role)),
                         formatBytes(peak.roleBytes[role], units))
                     .str();
    os << " (" << svg::escape(roles) << "), and the allocator's footprint is "
       << formatBytes(result.peakFootprintBytes, units)
       << " against the budget's " << formatBytes(comparison.budget, units)
       << ". Largest then: ";
    for (auto [i, tensor] : llvm::enumerate(peak.largest))
      os << (i ? "; " : "") << svg::escape(tensor.name) << " ("
         << formatBytes(tensor.bytes, units) << ")";
    os << ".</li>\n";
  }
  os << "</ul>\n</div>\n";
}
