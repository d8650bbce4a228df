//===- AssignOffsets.cpp - A static memory plan for every function --------===//
//
// Simulates each function as written to learn when every device buffer is
// allocated and released, places the buffers in one arena with
// OffsetAssignment, and writes the offsets into the IR (MemoryPlan.h).
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Planning/OffsetAssignment.h"
#include "hyperoffload/Planning/StaticPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

namespace mlir::ho {
#define GEN_PASS_DEF_ASSIGNOFFSETS
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// The function attribute that records the arena size of the plan.

namespace {
struct AssignOffsetsPass
    : public ho::impl::AssignOffsetsBase<AssignOffsetsPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  LogicalResult planFunction(FunctionOpInterface function, const Target &target,
                             std::optional<int64_t> budgetBytes);
};
} // namespace

/// Sets `ho.offsets` on every op of `body` that defines a buffer, one entry
/// per result (-1 for a result without a buffer of its own), and removes a
/// stale one from the others.
static void writeOpOffsets(Block &body, const BufferLiveness &liveness,
                           const OffsetAssignment &plan) {
  SmallVector<int64_t> offsets;
  for (Operation &op : body) {
    offsets.clear();
    bool definesBuffer = false;
    for (OpResult result : op.getResults()) {
      const BufferInfo *buffer = liveness.lookup(result);
      if (!buffer || buffer->root != result) {
        offsets.push_back(-1);
        continue;
      }
      offsets.push_back(plan.getOffset(buffer->id));
      definesBuffer = true;
    }
    if (definesBuffer)
      op.setAttr(kOffsetsAttrName,
                 DenseI64ArrayAttr::get(op.getContext(), offsets));
    else
      op.removeAttr(kOffsetsAttrName);
  }
}

/// Sets `ho.offset` on every device-tensor argument and removes a stale one
/// from the others, all arguments at once (one at a time is quadratic).
static void writeArgumentOffsets(FunctionOpInterface function,
                                 const BufferLiveness &liveness,
                                 const OffsetAssignment &plan) {
  Builder builder(function.getContext());
  SmallVector<DictionaryAttr> argAttrs;
  for (BlockArgument arg : function.getFunctionBody().getArguments()) {
    NamedAttrList attrs(function.getArgAttrDict(arg.getArgNumber()));
    if (const BufferInfo *buffer = liveness.lookup(arg))
      attrs.set(kArgOffsetAttrName,
                builder.getI64IntegerAttr(plan.getOffset(buffer->id)));
    else
      attrs.erase(kArgOffsetAttrName);
    argAttrs.push_back(attrs.getDictionary(function.getContext()));
  }
  function.setAllArgAttrs(argAttrs);
}

/// Makes every reuse of arena space wait for the offloads that free it. A
/// buffer read by an `ho.offload` (or stored into a slice of a remote with
/// `ho.offload_slice`) is freed when the copy completes, and the
/// plan placed a later buffer over it because, on the target simulated, the
/// copy was done by then. On a slower link it would not be: an
/// `ho.wait_offload` right before the op that allocates the later buffer
/// (unless one already comes before it) orders the reuse after the copy, so
/// that a slower link costs time, never memory or correctness. Returns the
/// waits added; where the copy was done anyway, they cost nothing.
static unsigned orderReuseAfterOffloads(Block &body,
                                        const BufferLiveness &liveness,
                                        const OffsetAssignment &plan,
                                        const SimulationResult &run) {
  DenseMap<BufferId, SmallVector<Operation *, 1>> offloadsOf;
  for (Operation &op : body)
    if (isa<OffloadOp, OffloadSliceOp>(op))
      if (const BufferInfo *source = liveness.lookup(op.getOperand(0)))
        offloadsOf[source->id].push_back(&op);
  if (offloadsOf.empty())
    return 0;
  auto overlaps = [&](BufferId a, BufferId b) {
    int64_t aStart = plan.getOffset(a), bStart = plan.getOffset(b);
    return aStart < bStart + liveness.getBuffer(b).size &&
           bStart < aStart + liveness.getBuffer(a).size;
  };
  auto waitsBefore = [](Operation *offload, Operation *point) {
    return llvm::any_of(offload->getResult(0).getUsers(), [&](Operation *user) {
      return isa<WaitOffloadOp>(user) &&
             user->getBlock() == point->getBlock() &&
             user->isBeforeInBlock(point);
    });
  };
  unsigned added = 0;
  for (const BufferInfo &later : liveness.getBuffers()) {
    if (later.isArgument() || later.size == 0)
      continue;
    Operation *allocation = liveness.getOp(later.definition);
    for (auto &[freed, offloads] : offloadsOf) {
      if (freed == later.id || liveness.getBuffer(freed).size == 0 ||
          run.lifetimes[freed].lastEvent >=
              run.lifetimes[later.id].firstEvent ||
          !overlaps(freed, later.id))
        continue;
      for (Operation *offload : offloads) {
        if (!offload->isBeforeInBlock(allocation) ||
            waitsBefore(offload, allocation))
          continue;
        OpBuilder builder(allocation);
        WaitOffloadOp::create(builder, allocation->getLoc(),
                              offload->getResult(0));
        ++added;
      }
    }
  }
  return added;
}

/// How much larger the arena is than the live bytes at the peak, in percent.
static double getFragmentationPercent(const OffsetAssignment &plan) {
  if (plan.getPeakLiveBytes() == 0)
    return 0;
  return 100.0 * (plan.getArenaSize() - plan.getPeakLiveBytes()) /
         plan.getPeakLiveBytes();
}

/// What the exact search for offsets within the budget concluded.
static std::string describePackingSearch(PackingStatus status,
                                         const OffsetAssignment &plan) {
  switch (status) {
  case PackingStatus::Packed:
    break;
  case PackingStatus::NoPacking:
    return llvm::formatv("an exact search over the {0} buffers proved that "
                         "no placement of them fits",
                         plan.getNumPlaced());
  case PackingStatus::GaveUp:
    return llvm::formatv("an exact search for a placement that fits gave up "
                         "after {0} steps without finding one",
                         plan.getPackingSearchSteps());
  case PackingStatus::TooLarge:
    return llvm::formatv("no exact search for a placement that fits: it "
                         "takes at most {0} buffers, not {1}",
                         PackingSearchLimits::forFinalLayout().maxBuffers,
                         plan.getNumPlaced());
  }
  llvm_unreachable("a plan over the budget was not packed");
}

static void emitOverBudget(FunctionOpInterface function,
                           const OffsetAssignment &plan, int64_t budgetBytes,
                           DiagnosticSeverity severity) {
  InFlightDiagnostic diag =
      function.getContext()->getDiagEngine().emit(function.getLoc(), severity)
      << "the static memory plan of @" << function.getName() << " needs "
      << plan.getArenaSize() << " bytes, over the budget of " << budgetBytes
      << " bytes; ";
  if (plan.getPeakLiveBytes() > budgetBytes) {
    diag << "even its peak of " << plan.getPeakLiveBytes()
         << " live bytes exceeds the budget: the schedule needs more offload";
    return;
  }
  diag << "its peak of " << plan.getPeakLiveBytes()
       << " live bytes fits, fragmentation ("
       << llvm::formatv("+{0:F1}%", getFragmentationPercent(plan)).str()
       << ") is what exceeds it: offload a little more to leave room for it";
  if (std::optional<PackingStatus> search = plan.getPackingSearch())
    diag.attachNote() << describePackingSearch(*search, plan);
}

LogicalResult
AssignOffsetsPass::planFunction(FunctionOpInterface function,
                                const Target &target,
                                std::optional<int64_t> budgetBytes) {
  Block &body = function.getFunctionBody().front();
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  options.recordTimeline = false;
  options.routing = getPlanningRouting();
  // The simulator has already reported why it cannot run the function.
  FailureOr<SimulationResult> run = simulate(body, target, options);
  if (failed(run))
    return failure();

  // The simulator numbers buffers the same way for the same block.
  BufferLiveness liveness(body, target.device.allocationGranularity);
  OffsetAssignment plan = assignOffsets(liveness, *run, budgetBytes,
                                        PackingSearchLimits::forFinalLayout());
  if (budgetBytes && plan.getArenaSize() > *budgetBytes) {
    emitOverBudget(function, plan, *budgetBytes,
                   allowOverBudget ? DiagnosticSeverity::Warning
                                   : DiagnosticSeverity::Error);
    if (!allowOverBudget)
      return failure();
  }

  writeOpOffsets(body, liveness, plan);
  writeArgumentOffsets(function, liveness, plan);
  numReuseWaits += orderReuseAfterOffloads(body, liveness, plan, *run);
  Builder builder(function.getContext());
  function->setAttr(kArenaSizeAttrName,
                    builder.getI64IntegerAttr(plan.getArenaSize()));
  arenaBytes += plan.getArenaSize();
  numBuffersPlaced += liveness.getBuffers().size();
  if (report)
    emitRemark(function.getLoc())
        << "static memory plan: arena " << plan.getArenaSize()
        << " bytes for a peak of " << plan.getPeakLiveBytes()
        << " live bytes (fragmentation "
        << llvm::formatv("+{0:F1}%", getFragmentationPercent(plan)).str()
        << ")";
  return success();
}

void AssignOffsetsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<Target> target = loadPassTarget(module, hw, hwOverrides);
  if (failed(target))
    return signalPassFailure();
  std::optional<int64_t> budgetBytes;
  if (!budget.empty()) {
    FailureOr<int64_t> bytes = loadPassBudget(module, budget, *target);
    if (failed(bytes))
      return signalPassFailure();
    budgetBytes = *bytes;
  }

  // Every function is planned, so that one run reports all the failures.
  bool failedAny = false;
  for (auto function : module.getOps<FunctionOpInterface>())
    if (!function.isExternal() &&
        failed(planFunction(function, *target, budgetBytes)))
      failedAny = true;
  if (failedAny)
    signalPassFailure();
}
