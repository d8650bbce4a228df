//===- ExplainCost.cpp - Remark on ops without a cost model ---------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::ho {
#define GEN_PASS_DEF_EXPLAINCOST
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// Whether the bounds and steps of every dimension of `loop` are constants.
static bool hasConstantBounds(LoopLikeOpInterface loop) {
  if (auto parallel = dyn_cast<affine::AffineParallelOp>(*loop))
    return parallel.getConstantRanges().has_value();
  for (const std::optional<SmallVector<OpFoldResult>> &bounds :
       {loop.getLoopLowerBounds(), loop.getLoopUpperBounds(),
        loop.getLoopSteps()})
    if (!bounds || !llvm::all_of(*bounds, [](OpFoldResult bound) {
          return getConstantIntValue(bound).has_value();
        }))
      return false;
  return true;
}

/// Why the model of `op` does not know its cost.
static StringRef getUnknownReason(Operation *op) {
  auto isDynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
      llvm::any_of(op->getResultTypes(), isDynamic))
    return "a shape it reads or writes is dynamic and its loop ranges do not "
           "fix it";
  if (op->getNumRegions() == 0)
    return "a count overflows";
  auto loop = dyn_cast<LoopLikeOpInterface>(op);
  if (loop && !hasConstantBounds(loop))
    return "its bounds or steps are not constants";
  return "an op in its regions has no known cost (see the remarks there)";
}

namespace {
struct ExplainCostPass : public ho::impl::ExplainCostBase<ExplainCostPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void ExplainCostPass::runOnOperation() {
  FailureOr<Target> target = loadPassTarget(getOperation(), hw, hwOverrides);
  if (failed(target))
    return signalPassFailure();

  getOperation().walk([&](Operation *op) {
    if (isPricedWithItsParent(op))
      return;
    OpCost cost = estimateOpCost(op, *target);
    if (cost.source != CostSource::BytesEstimate)
      return;
    std::string estimate =
        ho::detail::getDefaultBytesAccessed(op)
            ? "estimated from the " + formatBytes(cost.bytes) +
                  " it reads and writes as " + formatSeconds(cost.getSeconds())
            : "timed as one launch (" + formatSeconds(cost.getSeconds()) +
                  "): a tensor or memref it touches has a dynamic size";
    if (!isa<CostOpInterface>(op)) {
      op->emitRemark() << "no cost model for '" << op->getName()
                       << "': " << estimate
                       << "; attach a CostOpInterface model for a better "
                          "estimate";
      return;
    }
    // The op has a model that does not know its cost.
    op->emitRemark() << "cost of '" << op->getName()
                     << "' unknown: " << getUnknownReason(op) << "; "
                     << estimate;
  });
}
