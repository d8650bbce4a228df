//===- VerifySchedule.cpp - Check every rule a correct schedule obeys -----===//
//
// The structural rules (no read after an in-place overwrite, no overwrite
// under an offload in flight, every prefetch awaited) come from
// ScheduleChecks; the timing rules from the simulator:
// one run with the ideal allocator for premature prefetches and the budget,
// and, when the function carries a static plan, one with the static
// allocator, which reports missing and overlapping offsets itself.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "PlannableChecks.h"
#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::ho {
#define GEN_PASS_DEF_VERIFYSCHEDULE
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// Formats a time in microseconds without trailing zeros: "0", "1000",
/// "1.5".
static std::string formatMicroseconds(double seconds) {
  std::string text = llvm::formatv("{0:f3}", seconds * 1e6).str();
  while (text.back() == '0')
    text.pop_back();
  if (text.back() == '.')
    text.pop_back();
  return text == "-0" ? "0" : text;
}

/// Whether `function` carries any part of a static memory plan.
static bool hasStaticPlan(FunctionOpInterface function) {
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (function.getArgAttr(i, kArgOffsetAttrName))
      return true;
  WalkResult walk = function.getFunctionBody().walk([](Operation *op) {
    return op->hasAttr(kOffsetsAttrName) ? WalkResult::interrupt()
                                         : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Rule 1 (b): a prefetch is issued after the offload of its source has
/// completed.
static LogicalResult checkPrematurePrefetches(const SimulationResult &result) {
  for (const PrematurePrefetch &premature : result.prematurePrefetches) {
    InFlightDiagnostic diag =
        premature.prefetch->emitError()
        << "prefetch starts at " << formatMicroseconds(premature.issueTime)
        << " us, before the offload of its source completes at "
        << formatMicroseconds(premature.offloadEnd)
        << " us; it would read a copy that has not arrived; issue it after "
           "at least "
        << formatMicroseconds(premature.offloadEnd - premature.issueTime)
        << " us more of compute";
    diag.attachNote(premature.offload->getLoc())
        << "the offload of its source is issued here";
  }
  return success(result.prematurePrefetches.empty());
}

/// The live bytes right after the first allocation that exceeded the
/// budget; the peak when the run kept no memory samples.
static int64_t getLiveBytesWhenOutOfMemory(const SimulationResult &result) {
  for (const MemorySample &sample : result.memory)
    if (sample.liveBytes > result.budget)
      return sample.liveBytes;
  return result.peakLiveBytes;
}

/// Rule 4: the live buffers fit in the budget at every point.
static LogicalResult checkBudget(FunctionOpInterface function,
                                 const SimulationResult &result) {
  if (!result.outOfMemory)
    return success();
  int64_t live = getLiveBytesWhenOutOfMemory(result);
  if (Operation *op = result.firstOutOfMemoryOp)
    return op->emitError() << "device memory exceeds the budget here: " << live
                           << " bytes live, budget " << result.budget
                           << "; offload a live buffer before this op, "
                              "prefetch later, or raise the budget";
  // At the location only: the op itself would print the whole function.
  return emitError(function.getLoc())
         << "device memory exceeds the budget here: " << live
         << " bytes live, budget " << result.budget
         << "; the arguments alone do not fit: pass some as !ho.remote and "
            "prefetch them when needed, or raise the budget";
}

namespace {
struct VerifySchedulePass
    : public ho::impl::VerifyScheduleBase<VerifySchedulePass> {
  using Base::Base;
  void runOnOperation() override;

private:
  LogicalResult verifyFunction(FunctionOpInterface function,
                               const Target &target, int64_t budgetBytes);
};
} // namespace

LogicalResult VerifySchedulePass::verifyFunction(FunctionOpInterface function,
                                                 const Target &target,
                                                 int64_t budgetBytes) {
  if (failed(checkSingleBlock(function)))
    return failure();
  Block &body = function.getFunctionBody().front();
  for (Operation &op : body)
    if (isa<OffloadOp, PrefetchOp>(op))
      ++numTransfers;

  // Every rule is checked, so that one run reports every violation.
  BufferLiveness liveness(body, target.device.allocationGranularity);
  // Rules 2 and 3.
  bool valid = succeeded(checkStaleReads(body, liveness));
  valid &= succeeded(checkWritesUnderStore(body, liveness));
  valid &= succeeded(checkReusesUnderStore(body, liveness));
  valid &= succeeded(checkUnawaitedPrefetches(body));
  valid &= succeeded(checkFuturesStayLocal(function));
  valid &= succeeded(verifyBuffersInArena(function, liveness)); // rule 5 (a)

  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  options.budget = budgetBytes;
  // The memory samples tell the live bytes where the budget is exceeded.
  options.recordTimeline = true;
  FailureOr<SimulationResult> result = simulate(body, target, options);
  if (failed(result))
    return failure();
  valid &= succeeded(checkPrematurePrefetches(*result));
  valid &= succeeded(checkBudget(function, *result));

  // Rule 5: the static allocator reports missing and overlapping offsets.
  if (hasStaticPlan(function)) {
    options.allocator = AllocatorKind::Static;
    options.recordTimeline = false;
    valid &= succeeded(simulate(body, target, options));
  }
  return success(valid);
}

void VerifySchedulePass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PassTargetAndBudget> loaded =
      loadPassTargetAndBudget(module, hw, hwOverrides, budget);
  if (failed(loaded))
    return signalPassFailure();
  bool valid = true;
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    ++numFunctions;
    if (failed(verifyFunction(function, loaded->target, loaded->budget))) {
      ++numViolatingFunctions;
      valid = false;
    }
  }
  if (!valid)
    return signalPassFailure();
  markAllAnalysesPreserved();
}
