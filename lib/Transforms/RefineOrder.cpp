//===- RefineOrder.cpp - Reorder a body to hide stalls, lower the peak ----===//
//
// Moves independent ops of a function body, within the order constraints of
// OrderConstraints.h, so that compute covers transfers and the peak drops.
// Every candidate order is simulated; one is kept only when it is valid
// (live bytes and a static arena within the budget, no fetch before its
// store) and beats the best order so far, so the pass never makes a
// schedule slower or larger.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Analysis/OrderConstraints.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Planning/StaticPlan.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::ho {
#define GEN_PASS_DEF_REFINEORDER
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// How far past an await or a peak the pass looks for ops to move. Keeps
/// each attempt linear in the body.
static constexpr unsigned kScanLimit = 256;

namespace {
/// Searches orders of one function body, keeping the best.
class OrderRefiner {
public:
  OrderRefiner(Block &body, const Target &target, int64_t budget)
      : body(body), target(target), budget(budget) {}

  /// Refines the body in place, simulating at most `maxTrials` orders for
  /// each move type asked for; with `alwaysScore`, scores the body even
  /// when no move is possible. Fails, with the simulator's error, when the
  /// body cannot be simulated.
  LogicalResult run(bool hideStalls, bool lowerPeak, unsigned maxTrials,
                    bool alwaysScore);

  double initialStepTime = 0, finalStepTime = 0;
  int64_t initialPeak = 0, finalPeak = 0;
  int64_t initialArena = 0;
  unsigned numHoisted = 0, numSunk = 0;

private:
  FailureOr<SimulationResult> simulateCurrentOrder();
  int64_t getArenaSize(const SimulationResult &run);
  /// Whether `run` fits the budget and fetches no copy before it is stored.
  bool isValid(const SimulationResult &run);
  bool isBetter(const SimulationResult &run) const;
  /// Keeps the current order if it is valid and beats the best so far, and
  /// goes back to the best one otherwise.
  bool acceptOrRestore();

  void hoistOverStalls();
  /// Moves ops that follow `await` to before it, until their estimated
  /// compute covers `stall`. Returns how many moved.
  unsigned hoistFillers(Operation *await, double stall);

  void sinkPastPeak();
  /// The first user of `op`, when it comes after `peak` and the ops in
  /// between let `op` pass; null otherwise.
  Operation *findSinkTarget(Operation *op, Operation *peak);
  /// The moves that would take a buffer live at the peak of `liveness` out
  /// of it: each producer with the user to sink it to, the largest first.
  SmallVector<std::pair<Operation *, Operation *>>
  findSinks(const BufferLiveness &liveness);

  Block &body;
  const Target &target;
  int64_t budget;
  unsigned trialsLeft = 0;
  std::optional<OrderConstraints> constraints;
  SmallVector<Operation *> bestOrder;
  SimulationResult best;
};
} // namespace

FailureOr<SimulationResult> OrderRefiner::simulateCurrentOrder() {
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  options.recordTimeline = false;
  options.routing = getPlanningRouting();
  return simulate(body, target, options);
}

int64_t OrderRefiner::getArenaSize(const SimulationResult &run) {
  BufferLiveness liveness(body, target.device.allocationGranularity);
  return assignOffsets(liveness, run, budget).getArenaSize();
}

bool OrderRefiner::isValid(const SimulationResult &run) {
  // Moving compute away from between a store and the fetch of its copy can
  // make the fetch start too early; an input with such fetches may keep
  // them but gets no more. An input over the budget may still get better,
  // never worse.
  return run.prematurePrefetches.size() <= best.prematurePrefetches.size() &&
         run.peakLiveBytes <= std::max(budget, initialPeak) &&
         getArenaSize(run) <= std::max(budget, initialArena);
}

bool OrderRefiner::isBetter(const SimulationResult &run) const {
  // Relative slack, so that rounding in the timeline is not an improvement.
  double slack = 1e-9 * best.stepTime;
  if (run.stepTime < best.stepTime - slack)
    return true;
  return run.stepTime <= best.stepTime + slack &&
         run.peakLiveBytes < best.peakLiveBytes;
}

bool OrderRefiner::acceptOrRestore() {
  --trialsLeft;
  FailureOr<SimulationResult> run = simulateCurrentOrder();
  if (succeeded(run) && isBetter(*run) && isValid(*run)) {
    best = std::move(*run);
    bestOrder.clear();
    for (Operation &op : body)
      bestOrder.push_back(&op);
    return true;
  }
  for (Operation *op : bestOrder)
    op->moveBefore(&body, body.end());
  return false;
}

LogicalResult OrderRefiner::run(bool hideStalls, bool lowerPeak,
                                unsigned maxTrials, bool alwaysScore) {
  BufferLiveness liveness(body, target.device.allocationGranularity);
  constraints.emplace(body, liveness);
  // Simulating is the expensive part: skip it when no move is possible.
  hideStalls &=
      !body.getOps<AwaitOp>().empty() || !body.getOps<WaitOffloadOp>().empty();
  lowerPeak &= !findSinks(liveness).empty();
  if (!hideStalls && !lowerPeak && !alwaysScore)
    return success();

  FailureOr<SimulationResult> initial = simulateCurrentOrder();
  if (failed(initial))
    return failure();
  best = std::move(*initial);
  for (Operation &op : body)
    bestOrder.push_back(&op);
  initialStepTime = best.stepTime;
  initialPeak = best.peakLiveBytes;
  initialArena = getArenaSize(best);
  if (hideStalls) {
    trialsLeft = maxTrials;
    hoistOverStalls();
  }
  if (lowerPeak) {
    trialsLeft = maxTrials;
    sinkPastPeak();
  }
  finalStepTime = best.stepTime;
  finalPeak = best.peakLiveBytes;
  return success();
}

//===----------------------------------------------------------------------===//
// Hiding stalls
//===----------------------------------------------------------------------===//

unsigned OrderRefiner::hoistFillers(Operation *await, double stall) {
  HoistScan scan(*constraints, await);
  SmallVector<Operation *> fillers;
  double covered = 0;
  Operation *next = await->getNextNode();
  for (unsigned scanned = 0;
       next && scanned < kScanLimit && covered < stall && !scan.isBlocked();
       ++scanned, next = next->getNextNode()) {
    if (!scan.offer(next))
      continue;
    fillers.push_back(next);
    covered += estimateOpCost(next, target).getSeconds();
  }
  // Ops that do no work only help when they unblock ones that do.
  if (covered == 0)
    return 0;
  for (Operation *op : fillers)
    op->moveBefore(await);
  return fillers.size();
}

void OrderRefiner::hoistOverStalls() {
  while (trialsLeft > 0) {
    // The awaits that stall, longest first; block order breaks ties.
    SmallVector<std::pair<Operation *, double>> stalled;
    for (Operation &op : body) {
      auto stall = best.awaitStalls.find(&op);
      if (stall != best.awaitStalls.end())
        stalled.push_back({&op, stall->second});
    }
    llvm::stable_sort(stalled, [](const auto &a, const auto &b) {
      return a.second > b.second;
    });
    if (stalled.empty())
      return;

    // All at once first: one simulation when every move helps.
    unsigned moved = 0;
    for (auto [await, stall] : stalled)
      moved += hoistFillers(await, stall);
    if (moved > 0 && acceptOrRestore()) {
      numHoisted += moved;
      continue;
    }
    // Then one await at a time, until one helps.
    bool improved = false;
    for (auto [await, stall] : stalled) {
      if (trialsLeft == 0)
        break;
      moved = hoistFillers(await, stall);
      if (moved > 0 && acceptOrRestore()) {
        numHoisted += moved;
        improved = true;
        break;
      }
    }
    if (!improved)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Lowering the peak
//===----------------------------------------------------------------------===//

Operation *OrderRefiner::findSinkTarget(Operation *op, Operation *peak) {
  bool pastPeak = false;
  unsigned scanned = 0;
  for (Operation *next = op->getNextNode(); next && scanned < kScanLimit;
       next = next->getNextNode(), ++scanned) {
    if (llvm::is_contained(constraints->getAccess(next).producers, op))
      return pastPeak ? next : nullptr;
    if (!constraints->maySwap(op, next))
      return nullptr;
    pastPeak |= next == peak;
  }
  return nullptr;
}

SmallVector<std::pair<Operation *, Operation *>>
OrderRefiner::findSinks(const BufferLiveness &liveness) {
  SmallVector<std::pair<Operation *, Operation *>> sinks;
  unsigned peakPoint = liveness.getPeakPoint();
  Operation *peak = liveness.getOp(peakPoint);
  if (!peak)
    return sinks;
  // Buffers allocated before the peak by an op that could run after it,
  // the largest first.
  SmallVector<const BufferInfo *> live;
  for (const BufferInfo &buffer : liveness.getBuffers()) {
    Operation *producer = buffer.root.getDefiningOp();
    if (producer && producer->getBlock() == &body &&
        buffer.definition < peakPoint && buffer.lastUse > peakPoint &&
        constraints->getAccess(producer).mobility == Mobility::Movable)
      live.push_back(&buffer);
  }
  llvm::stable_sort(live, [](const BufferInfo *a, const BufferInfo *b) {
    return a->size > b->size;
  });
  for (const BufferInfo *buffer : live) {
    Operation *producer = buffer->root.getDefiningOp();
    if (Operation *target = findSinkTarget(producer, peak))
      sinks.push_back({producer, target});
  }
  return sinks;
}

void OrderRefiner::sinkPastPeak() {
  while (trialsLeft > 0) {
    BufferLiveness liveness(body, target.device.allocationGranularity);
    bool improved = false;
    for (auto [op, user] : findSinks(liveness)) {
      if (trialsLeft == 0)
        break;
      op->moveBefore(user);
      if (acceptOrRestore()) {
        ++numSunk;
        improved = true;
        break;
      }
    }
    if (!improved)
      return;
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct RefineOrderPass : public ho::impl::RefineOrderBase<RefineOrderPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void RefineOrderPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PassTargetAndBudget> loaded =
      loadPassTargetAndBudget(module, hw, hwOverrides, budget);
  if (failed(loaded))
    return signalPassFailure();
  const Target &target = loaded->target;

  bool failedAny = false;
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    OrderRefiner refiner(function.getFunctionBody().front(), target,
                         loaded->budget);
    if (failed(refiner.run(hideStalls, lowerPeak, maxTrials, report))) {
      failedAny = true;
      continue;
    }
    numHoisted += refiner.numHoisted;
    numSunk += refiner.numSunk;
    if (report)
      emitRemark(function.getLoc())
          << llvm::formatv("refined order of @{0}: step time {1:F3} -> {2:F3} "
                           "ms, peak {3} -> {4} bytes; {5} ops hoisted over "
                           "awaits, {6} sunk past the peak",
                           function.getName(), refiner.initialStepTime * 1e3,
                           refiner.finalStepTime * 1e3, refiner.initialPeak,
                           refiner.finalPeak, refiner.numHoisted,
                           refiner.numSunk)
                 .str();
  }
  if (failedAny)
    signalPassFailure();
}
