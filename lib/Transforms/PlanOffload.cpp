//===- PlanOffload.cpp - Plan offload and write it into the IR ------------===//
//
// Plans come from the analysis (planOffload); PlanSelection decides which
// one to keep, checked on the simulator, and PlanWriter turns it into IR.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "PlannableChecks.h"
#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Planning/PlanSelection.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::ho {
#define GEN_PASS_DEF_PLANOFFLOAD
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
struct PlanOffloadPass : public ho::impl::PlanOffloadBase<PlanOffloadPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Counts what the written plan in `function` moves.
  void countTransfers(func::FuncOp function);
};
} // namespace

/// A called function is not planned: its peak as written must fit.
static LogicalResult checkCalledFunctionFits(func::FuncOp function,
                                             const Target &target,
                                             int64_t budget) {
  BufferLiveness liveness(function.getBody().front(),
                          target.device.allocationGranularity);
  if (liveness.getPeakBytes() <= budget)
    return success();
  return function.emitError()
         << "@" << function.getName() << " is called, so its plan cannot "
         << "change its signature, and as written its peak of "
         << liveness.getPeakBytes() << " bytes is over the budget of " << budget
         << " bytes: inline it (--inline) to plan it with its "
         << "caller";
}

/// Says what the exact search proved; fails when it wrote no plan.
static LogicalResult reportExactSearch(func::FuncOp function,
                                       const ExactPlanResult &exact,
                                       int64_t budget) {
  auto effort = llvm::formatv("{0} plans simulated over {1} gaps",
                              exact.simulations, exact.gaps);
  switch (exact.status) {
  case ExactStatus::Optimal:
    function.emitRemark() << "exact plan: optimal, "
                          << formatSeconds(exact.stepTime) << " a step ("
                          << effort << ")";
    return success();
  case ExactStatus::GaveUp:
    if (!exact.plan)
      return function.emitError()
             << "the exact search found no plan that fits the budget of "
             << budget << " bytes before it stopped (" << effort
             << "): raise exact-max-simulations";
    function.emitWarning()
        << "exact plan: not proven optimal, the fastest found in "
        << exact.simulations << " simulated plans ("
        << formatSeconds(exact.stepTime)
        << " a step); raise exact-max-simulations for a proof";
    return success();
  case ExactStatus::Infeasible:
    return function.emitError()
           << "no plan the exact search covers fits the budget of " << budget
           << " bytes (" << effort << ")";
  case ExactStatus::NotSearched:
    return function.emitError() << "the exact search does not take @"
                                << function.getName() << ": " << exact.reason;
  }
  llvm_unreachable("unknown exact status");
}

void PlanOffloadPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PassTargetAndBudget> loaded =
      loadPassTargetAndBudget(module, hw, hwOverrides, budget);
  if (failed(loaded))
    return signalPassFailure();
  const Target &target = loaded->target;
  if (leastMemory && policy != OffloadPolicy::HyperOffload) {
    module.emitError() << "least-memory is a plan of policy=hyperoffload, not "
                       << stringifyOffloadPolicy(policy);
    return signalPassFailure();
  }
  PlannerOptions options;
  options.policy = policy;
  options.budget = loaded->budget;
  options.distanceMinGap = distanceMinGap;
  options.distanceMaxTensors = distanceMaxTensors;
  options.distancePrefetchLead = distancePrefetchLead;
  options.windowLayers = windowLayers;
  // The baseline partitions as ZeRO-3 does; the planner's own use of the
  // window policy (PlanSelection) keeps weights nobody reads where they are.
  options.windowPartitionAll = policy == OffloadPolicy::Window;
  options.windowPersistenceThreshold = windowPersistenceThreshold;
  options.pt2ReloadPrefetch = pt2ReloadPrefetch;
  options.pt2SeparateStream = pt2SeparateStream;
  options.allowRewrites = rewrites;
  options.localSearch = localSearch;
  options.everyLink = everyLink;
  options.exactLimits.maxGaps = exactMaxGaps;
  options.exactLimits.maxSimulations = exactMaxSimulations;
  options.exactLimits.prune = exactCuts;
  if (llvm::Error error = checkPredictorAccuracy(predictorAccuracy)) {
    module.emitError() << "predictor-accuracy: "
                       << llvm::toString(std::move(error));
    return signalPassFailure();
  }
  PlanSelector selector(policy, leastMemory, predictorAccuracy);
  // Without a budget a plan is for the whole HBM, where most functions fit
  // and nothing moves: say so rather than leave the IR as it was unasked.
  if (budget.empty() &&
      (policy == OffloadPolicy::HyperOffload || policy == OffloadPolicy::Exact))
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal()) {
        emitRemark(function.getLoc())
            << "no budget given: planning for the whole HBM of '" << target.name
            << "', "
            << formatBytes(options.budget, getChosenUnits(options.budget))
            << "; budget= plans for less";
        break;
      }

  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    if (failed(checkPlannable(function, target.device.allocationGranularity))) {
      signalPassFailure();
      continue;
    }
    // A plan may pass arguments and results in a tier, which would break
    // the calls: a called function runs as written, inside its caller's
    // plan.
    if (!SymbolTable::symbolKnownUseEmpty(function, module)) {
      if (failed(checkCalledFunctionFits(function, target, options.budget)))
        signalPassFailure();
      continue;
    }
    // A budget below what one op needs at once has no schedule at all.
    if (failed(checkBudgetFits(computeMemoryBound(function.getBody().front(),
                                                  target, options.budget),
                               getBudgetUnits(budget, options.budget)))) {
      signalPassFailure();
      continue;
    }
    PlanSelector::ChosenPlan chosen =
        selector.choose(function, target, options);
    if (chosen.exact &&
        failed(reportExactSearch(function, *chosen.exact, options.budget))) {
      signalPassFailure();
      continue;
    }
    OffloadPlan plan = chosen.plan;
    // Where the peak is, in the unplanned body.
    Block &body = function.getBody().front();
    BufferLiveness liveness(body, target.device.allocationGranularity);
    bool atExit = plan.estimatedPeakPoint == liveness.getExitPoint();
    Operation *peakOp =
        atExit ? body.getTerminator() : liveness.getOp(plan.estimatedPeakPoint);
    Location peakLoc = peakOp ? peakOp->getLoc() : function.getLoc();
    // A plan that fits when simulated is not over the budget, whatever its
    // estimate said.
    bool fits =
        selector.write(function, target, options.budget, std::move(chosen));
    countTransfers(function);
    if (!fits && plan.estimatedPeak > options.budget) {
      emitWarning(peakLoc) << "the " << stringifyOffloadPolicy(policy)
                           << " plan leaves an estimated " << plan.estimatedPeak
                           << " bytes live "
                           << (atExit   ? "when the function returns"
                               : peakOp ? "here"
                                        : "at function entry")
                           << ", over the budget of " << options.budget
                           << " bytes";
    }
  }
}

void PlanOffloadPass::countTransfers(func::FuncOp function) {
  Block &body = function.getBody().front();
  for (BlockArgument arg : body.getArguments())
    numRemoteArguments += isa<RemoteType>(arg.getType());
  for (Operation &op : body) {
    numOffloads += isa<OffloadOp>(op);
    numPrefetches += isa<PrefetchOp>(op);
  }
}
