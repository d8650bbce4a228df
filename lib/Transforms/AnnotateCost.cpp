//===- AnnotateCost.cpp - Attach cost estimates for inspection ------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/OpCost.h"

#include "mlir/IR/Builders.h"

namespace mlir::ho {
#define GEN_PASS_DEF_ANNOTATECOST
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
struct AnnotateCostPass : public ho::impl::AnnotateCostBase<AnnotateCostPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void AnnotateCostPass::runOnOperation() {
  FailureOr<Target> target = loadPassTarget(getOperation(), hw, hwOverrides);
  if (failed(target))
    return signalPassFailure();

  Builder b(&getContext());
  getOperation().walk([&](Operation *op) {
    if (isPricedWithItsParent(op))
      return;
    OpCost cost = estimateOpCost(op, *target);
    if (cost.source == CostSource::None)
      return;
    op->setAttr(
        "ho.cost",
        b.getDictionaryAttr({
            b.getNamedAttr("bytes", b.getI64IntegerAttr(cost.bytes)),
            b.getNamedAttr("flops", b.getI64IntegerAttr(cost.flops)),
            b.getNamedAttr("seconds", b.getF64FloatAttr(cost.getSeconds())),
            b.getNamedAttr("source",
                           b.getStringAttr(stringifyCostSource(cost.source))),
        }));
  });
}
