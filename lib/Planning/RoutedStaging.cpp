//===- RoutedStaging.cpp - Where the experts of routed ops live -----------===//

#include "RoutedStaging.h"

#include "SelectionStaging.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ho;

/// Whether `expert` can be left in a tier: a device argument that only
/// routed ops read, as experts (an optimizer that updates it needs it on
/// the device).
static bool isStageable(Value expert) {
  auto arg = dyn_cast<BlockArgument>(expert);
  if (!arg || !isa<TensorType>(arg.getType()))
    return false;
  for (OpOperand &use : arg.getUses()) {
    auto routed = dyn_cast<RoutedOp>(use.getOwner());
    if (!routed || !llvm::is_contained(routed.getExperts(), expert) ||
        routed.getStaged() == expert || routed.getSelection() == expert ||
        llvm::is_contained(routed.getInputs(), expert))
      return false;
  }
  return true;
}

bool ho::stageRoutedExperts(func::FuncOp function,
                            const RoutedStaging &staging) {
  Block &body = function.getBody().front();
  // The experts to leave in the tier, decided over all routed ops first:
  // an argument is moved for every op that reads it or for none.
  llvm::SetVector<BlockArgument> remote;
  for (RoutedOp routed : body.getOps<RoutedOp>())
    for (auto [index, expert] : llvm::enumerate(routed.getExperts()))
      if (index >= staging.residentExperts && isStageable(expert))
        remote.insert(cast<BlockArgument>(expert));
  if (remote.empty())
    return false;
  for (BlockArgument arg : remote) {
    arg.setType(RemoteType::get(cast<TensorType>(arg.getType()), staging.tier));
    function.setArgAttr(arg.getArgNumber(), kPlacedByPlanAttrName,
                        UnitAttr::get(function.getContext()));
  }

  OpBuilder builder(function.getContext());
  Value previousSelection;
  SmallVector<RoutedOp> routedOps(body.getOps<RoutedOp>());
  for (RoutedOp routed : routedOps) {
    SmallVector<Value> experts;
    SmallVector<int64_t> ids;
    for (auto [index, expert] : llvm::enumerate(routed.getExperts()))
      if (isa<RemoteType>(expert.getType())) {
        experts.push_back(expert);
        ids.push_back(routed.getFirstExpert() + index);
      }
    Value selection = routed.getSelection();
    Value prediction = previousSelection;
    previousSelection = selection;
    if (experts.empty())
      continue;
    Value fetchOn =
        chooseFetchSelection(selection, prediction, staging.predicted);
    setInsertionPointAfterValue(builder, fetchOn);
    auto slotsType = cast<RankedTensorType>(routed.getExpertType());
    SmallVector<int64_t> shape{std::min<int64_t>(
        experts.size(),
        cast<RankedTensorType>(selection.getType()).getNumElements())};
    llvm::append_range(shape, slotsType.getShape());
    auto future = FutureType::get(
        RankedTensorType::get(shape, slotsType.getElementType()));
    auto prefetch = PrefetchRoutedOp::create(
        builder, routed.getLoc(), future, fetchOn, experts,
        builder.getDenseI64ArrayAttr(ids), routed.getTotalExpertsAttr());
    builder.setInsertionPoint(routed);
    Value slots = AwaitOp::create(builder, routed.getLoc(), prefetch);
    routed.getStagedMutable().assign(slots);
  }
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     function.getResultTypes()));
  return true;
}
