//===- BlockStaging.cpp - KV caches left in a tier, read in blocks --------===//

#include "BlockStaging.h"

#include "SelectionStaging.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::ho;

/// Whether `insert` writes a static slice with unit strides, and its result
/// only goes back to the caller: it can become a ho.offload_slice.
static bool isStorableSlice(tensor::InsertSliceOp insert) {
  return insert.getOffsets().empty() && insert.getSizes().empty() &&
         insert.hasUnitStride() &&
         llvm::all_of(insert.getResult().getUsers(), [](Operation *user) {
           return isa<func::ReturnOp>(user);
         });
}

/// Whether `arg` can be left in a tier: a device tensor argument that only
/// ho.gather_blocks reads, as its source, and only storable slices write.
static bool isStageable(BlockArgument arg) {
  if (!isa<RankedTensorType>(arg.getType()) || arg.use_empty())
    return false;
  bool gathered = false;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (auto gather = dyn_cast<GatherBlocksOp>(user);
        gather && gather.getSource() == arg && gather.getSelection() != arg) {
      gathered = true;
      continue;
    }
    auto insert = dyn_cast<tensor::InsertSliceOp>(user);
    if (!insert || insert.getDest() != arg || insert.getSource() == arg ||
        !isStorableSlice(insert))
      return false;
  }
  return gathered;
}

bool ho::hasStageableBlocks(func::FuncOp function) {
  return llvm::any_of(function.getArguments(), isStageable);
}

bool ho::stageSelectedBlocks(func::FuncOp function,
                             const BlockStaging &staging) {
  Block &body = function.getBody().front();
  SmallVector<BlockArgument> remote;
  for (BlockArgument arg : function.getArguments())
    if (isStageable(arg))
      remote.push_back(arg);
  if (remote.empty())
    return false;
  for (BlockArgument arg : remote) {
    arg.setType(RemoteType::get(cast<TensorType>(arg.getType()), staging.tier));
    function.setArgAttr(arg.getArgNumber(), kPlacedByPlanAttrName,
                        UnitAttr::get(function.getContext()));
  }

  OpBuilder builder(function.getContext());
  // The previous gather's selection predicts the next one's when it has
  // the same type and is known first.
  Value previousSelection;
  SmallVector<GatherBlocksOp> gathers(body.getOps<GatherBlocksOp>());
  for (GatherBlocksOp gather : gathers) {
    Value selection = gather.getSelection();
    Value prediction = previousSelection;
    previousSelection = selection;
    if (!isa<RemoteType>(gather.getSource().getType()))
      continue;
    Value fetchOn =
        chooseFetchSelection(selection, prediction, staging.predicted);
    setInsertionPointAfterValue(builder, fetchOn);
    auto prefetch = PrefetchBlocksOp::create(
        builder, gather.getLoc(), FutureType::get(gather.getType()),
        gather.getSource(), fetchOn, gather.getAxisAttr(),
        gather.getBlockSizeAttr());
    builder.setInsertionPoint(gather);
    Value staged = AwaitOp::create(builder, gather.getLoc(), prefetch);
    gather.getStagedMutable().assign(staged);
  }

  SmallVector<tensor::InsertSliceOp> inserts(
      body.getOps<tensor::InsertSliceOp>());
  for (tensor::InsertSliceOp insert : inserts) {
    if (!isa<RemoteType>(insert.getDest().getType()))
      continue;
    builder.setInsertionPoint(insert);
    auto store = OffloadSliceOp::create(
        builder, insert.getLoc(), insert.getDest().getType(),
        insert.getSource(), insert.getDest(),
        builder.getDenseI64ArrayAttr(insert.getStaticOffsets()));
    insert.getResult().replaceAllUsesWith(store.getResult());
    insert.erase();
  }
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
  return true;
}
