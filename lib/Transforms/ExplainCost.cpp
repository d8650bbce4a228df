//===- ExplainCost.cpp - Remark on ops without a cost model ---------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Simulation/Report.h"

namespace mlir::ho {
#define GEN_PASS_DEF_EXPLAINCOST
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

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
    OpCost cost = estimateOpCost(op, *target);
    if (cost.source != CostSource::BytesEstimate)
      return;
    op->emitRemark() << "no cost model for '" << op->getName()
                     << "': estimated from the " << formatBytes(cost.bytes)
                     << " it reads and writes as "
                     << formatSeconds(cost.getSeconds())
                     << "; attach a CostOpInterface model for a better "
                        "estimate";
  });
}
