//===- CheckPlannable.cpp - Reject what the planner cannot take -----------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PlannableChecks.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::ho {
#define GEN_PASS_DEF_CHECKPLANNABLE
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// Warns once when `body` holds memref buffers: memory the function needs
/// that no plan can move.
static bool warnAboutMemRefBuffers(FunctionOpInterface function, Block &body) {
  BufferLiveness liveness(body);
  int64_t bytes = 0;
  const BufferInfo *first = nullptr;
  for (const BufferInfo &buffer : liveness.getBuffers()) {
    if (!buffer.isMemRef())
      continue;
    bytes += buffer.size;
    first = first ? first : &buffer;
  }
  if (!first)
    return false;
  emitWarning(first->root.getLoc())
      << "@" << function.getName() << " holds " << bytes
      << " bytes in memref buffers, which the plan counts but cannot move: "
         "it moves tensors; plan before bufferization";
  return true;
}

namespace {
struct CheckPlannablePass
    : public ho::impl::CheckPlannableBase<CheckPlannablePass> {
  void runOnOperation() override {
    bool valid = true;
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      if (failed(checkPlannable(function, /*granularity=*/1))) {
        valid = false;
        continue;
      }
      numMemRefFunctions +=
          warnAboutMemRefBuffers(function, function.getFunctionBody().front());
    }
    if (!valid)
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
