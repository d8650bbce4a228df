//===- SelectionPicks.cpp - Which values are a run-time selection's picks -===//

#include "SelectionPicks.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace mlir::ho;

/// The value that made `selection`: a copy into the arena is its source's.
static Value getPicksSource(Value selection) {
  while (
      auto copy =
          selection.getDefiningOp<bufferization::MaterializeInDestinationOp>())
    selection = copy.getSource();
  return selection;
}

/// The selections `op` reads, each with the range of its ids.
static SmallVector<std::pair<Value, int64_t>> getSelections(Operation *op) {
  if (auto routed = dyn_cast<RoutedOp>(op))
    return {{routed.getSelection(), routed.getTotalExperts()}};
  if (auto prefetch = dyn_cast<PrefetchRoutedOp>(op))
    return {{prefetch.getSelection(), prefetch.getTotalExperts()}};
  if (auto gather = dyn_cast<GatherBlocksOp>(op))
    return {{gather.getSelection(), gather.getNumBlocks()}};
  if (auto prefetch = dyn_cast<PrefetchBlocksOp>(op)) {
    auto source =
        cast<RankedTensorType>(prefetch.getSource().getType().getTensorType());
    int64_t axis = prefetch.getAxis();
    return {
        {prefetch.getSelection(),
         llvm::divideCeil(source.getDimSize(axis), prefetch.getBlockSize())}};
  }
  if (auto kernel = dyn_cast<ComputeOp>(op))
    if (auto layout =
            kernel->getAttrOfType<DictionaryAttr>(kRoutedKernelAttrName)) {
      auto inputs = layout.getAs<IntegerAttr>("inputs");
      auto total = layout.getAs<IntegerAttr>("total_experts");
      if (inputs && total &&
          inputs.getInt() < static_cast<int64_t>(kernel->getNumOperands()))
        return {{kernel->getOperand(inputs.getInt()), total.getInt()}};
    }
  return {};
}

LogicalResult ho::markPickRanges(func::FuncOp function, bool forRunning) {
  WalkResult walk = function.walk([&](Operation *op) {
    for (auto [selection, range] : getSelections(op)) {
      auto type = cast<RankedTensorType>(selection.getType());
      int64_t perRow = type.getRank() > 0 ? type.getShape().back() : 1;
      if (!forRunning && perRow > range)
        continue;
      if (perRow > range) {
        op->emitError() << "cannot run: its picks ask for " << perRow
                        << " distinct ids per row of " << range;
        return WalkResult::interrupt();
      }
      Value source = getPicksSource(selection);
      auto argument = dyn_cast<BlockArgument>(source);
      if (argument && !forRunning)
        continue;
      if (argument) {
        op->emitError() << "cannot run: its picks are argument "
                        << argument.getArgNumber()
                        << ", and generated inputs are no valid picks; "
                           "compute them in the function";
        return WalkResult::interrupt();
      }
      // Real code that computes picks is left to compute them.
      auto producer = source.getDefiningOp<ComputeOp>();
      if (!producer)
        continue;
      auto result = cast<OpResult>(source);
      SmallVector<int64_t> ranges(producer->getNumResults(), 0);
      if (auto marked =
              producer->getAttrOfType<DenseI64ArrayAttr>(kPickRangesAttrName))
        ranges.assign(marked.asArrayRef().begin(), marked.asArrayRef().end());
      int64_t &marked = ranges[result.getResultNumber()];
      if (marked != 0 && marked != range && !forRunning)
        continue;
      if (marked != 0 && marked != range) {
        InFlightDiagnostic diag =
            op->emitError() << "cannot run: its picks range over " << range
                            << " ids, but another reader's over " << marked;
        diag.attachNote(producer.getLoc()) << "the picks are made here";
        return WalkResult::interrupt();
      }
      marked = range;
      producer->setAttr(kPickRangesAttrName,
                        DenseI64ArrayAttr::get(op->getContext(), ranges));
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

std::optional<int64_t> ho::getPickRange(OpResult result) {
  auto ranges =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(kPickRangesAttrName);
  if (!ranges ||
      static_cast<int64_t>(result.getResultNumber()) >= ranges.size() ||
      ranges[result.getResultNumber()] <= 0)
    return std::nullopt;
  return ranges[result.getResultNumber()];
}
