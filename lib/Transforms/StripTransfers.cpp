//===- StripTransfers.cpp - The program a schedule was written from -------===//
//
// Removes every transfer of a scheduled function: a remote argument or
// result becomes the tensor it holds, an offload's remote is the tensor it
// stored, an awaited prefetch reads the tensor it fetched, a slice stored
// into a remote is a tensor.insert_slice, waits for offloads go, and a
// routed kernel or block gather reads its experts or source in place of
// the slots a routed or block prefetch staged. What is left computes the
// same values with everything on the device, so a planned file can be run
// next to the program it came from.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Dialect/HO/HOTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ho {
#define GEN_PASS_DEF_STRIPTRANSFERS
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// The plan's attributes, which mean nothing without it: the static memory
/// plan's, and which arguments it put in a tier.
void removePlanAttributes(func::FuncOp function) {
  function->removeAttr(kArenaSizeAttrName);
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    function.removeArgAttr(i, kArgOffsetAttrName);
    function.removeArgAttr(i, kPlacedByPlanAttrName);
  }
  function.getFunctionBody().walk(
      [](Operation *op) { op->removeDiscardableAttr(kOffsetsAttrName); });
}

/// Arguments that only repeat an earlier one in a tier read that one.
void foldTierCopies(func::FuncOp function) {
  llvm::BitVector copies(function.getNumArguments());
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (auto original =
            function.getArgAttrOfType<IntegerAttr>(i, kTierCopyOfAttrName)) {
      function.getArgument(i).replaceAllUsesWith(
          function.getArgument(original.getInt()));
      copies.set(i);
    }
  (void)function.eraseArguments(copies);
}

/// Whether `op` reads slots or blocks a prefetch staged.
bool isStagedRead(Operation *op) {
  if (auto routed = dyn_cast<RoutedOp>(op))
    return static_cast<bool>(routed.getStaged());
  if (auto gather = dyn_cast<GatherBlocksOp>(op))
    return static_cast<bool>(gather.getStaged());
  return false;
}

/// Whether every ho op of `function` is one this pass can remove or keep:
/// compute anywhere, transfers and staged reads in the body block only.
LogicalResult checkRemovable(func::FuncOp function) {
  Block &body = function.getBody().front();
  WalkResult walk = function.walk([&](Operation *op) {
    if (!isa<HODialect>(op->getDialect()) || op->getBlock() == &body ||
        isa<ComputeOp>(op) ||
        (isa<RoutedOp, GatherBlocksOp>(op) && !isStagedRead(op)))
      return WalkResult::advance();
    op->emitError() << "cannot remove '" << op->getName()
                    << "' inside a region; only the transfers of the "
                       "function body are removed";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The slots a routed or block prefetch staged exist only in the plan:
/// the ops that read them read their experts or source instead.
void dropStagedOperands(Block &body) {
  for (Operation &op : body) {
    if (auto routed = dyn_cast<RoutedOp>(op))
      routed.getStagedMutable().clear();
    else if (auto gather = dyn_cast<GatherBlocksOp>(op))
      gather.getStagedMutable().clear();
  }
}

LogicalResult stripTransfers(func::FuncOp function) {
  if (failed(checkRemovable(function)))
    return failure();
  foldTierCopies(function);
  Block &body = function.getBody().front();
  for (BlockArgument argument : body.getArguments())
    if (auto remote = dyn_cast<RemoteType>(argument.getType()))
      argument.setType(remote.getTensorType());

  dropStagedOperands(body);

  // In body order, so that each transfer's operand is already a tensor.
  OpBuilder builder(function.getContext());
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      offload.getResult().replaceAllUsesWith(offload.getSource());
    } else if (auto slice = dyn_cast<OffloadSliceOp>(op)) {
      builder.setInsertionPoint(slice);
      auto source = cast<RankedTensorType>(slice.getSource().getType());
      SmallVector<int64_t> strides(source.getRank(), 1);
      Value updated = tensor::InsertSliceOp::create(
          builder, slice.getLoc(), slice.getSource(), slice.getDest(),
          /*offsets=*/ValueRange(), /*sizes=*/ValueRange(),
          /*strides=*/ValueRange(), slice.getOffsets(), source.getShape(),
          strides);
      slice.getResult().replaceAllUsesWith(updated);
    } else if (auto await = dyn_cast<AwaitOp>(op)) {
      Operation *issuer = await.getFuture().getDefiningOp();
      if (isa_and_nonnull<PrefetchRoutedOp, PrefetchBlocksOp>(issuer)) {
        if (!await->use_empty()) {
          InFlightDiagnostic diag =
              await.emitError()
              << "its staged "
              << (isa<PrefetchRoutedOp>(issuer) ? "experts" : "blocks")
              << " are read by an op other than the ho.routed or "
                 "ho.gather_blocks they stage, which the program has no "
                 "value for";
          diag.attachNote((*await->getUsers().begin())->getLoc())
              << "read here";
          return diag;
        }
      } else {
        auto prefetch = dyn_cast_or_null<PrefetchOp>(issuer);
        if (!prefetch)
          return await.emitError()
                 << "awaits a future that no ho.prefetch of this block made";
        await.getResult().replaceAllUsesWith(prefetch.getSource());
      }
    } else if (!isa<WaitOffloadOp>(op)) {
      continue;
    }
    op.dropAllUses();
    op.erase();
  }
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!isa<PrefetchOp, PrefetchRoutedOp, PrefetchBlocksOp>(op))
      continue;
    if (!op.use_empty())
      return op.emitError()
             << "its future is used by an op other than ho.await";
    op.erase();
  }

  removePlanAttributes(function);
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
  return success();
}

struct StripTransfersPass
    : public ho::impl::StripTransfersBase<StripTransfersPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isDeclaration() && failed(stripTransfers(function)))
        return signalPassFailure();
  }
};
} // namespace
