//===- SelectionStaging.h - Fetches on a run-time selection -----*- C++ -*-===//
//
// What RoutedStaging and BlockStaging share: a prefetch of what a run-time
// selection picks is issued right after the selection it fetches on, which
// is the reader's own or an earlier one standing in for it.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_SELECTIONSTAGING_H
#define HYPEROFFLOAD_LIB_PLANNING_SELECTIONSTAGING_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace ho {

/// The selection to fetch on for a reader of `selection`: `prediction` when
/// `predict` is set and it can stand for it (it picks as many per row and
/// is known before `selection` is computed), else `selection` itself.
inline Value chooseFetchSelection(Value selection, Value prediction,
                                  bool predict) {
  bool predicted =
      predict && prediction && prediction.getType() == selection.getType() &&
      (!selection.getDefiningOp() || !prediction.getDefiningOp() ||
       prediction.getDefiningOp()->isBeforeInBlock(selection.getDefiningOp()));
  return predicted ? prediction : selection;
}

/// Sets `builder` right after `value` is computed, or at the start of its
/// block for an argument.
inline void setInsertionPointAfterValue(OpBuilder &builder, Value value) {
  if (Operation *def = value.getDefiningOp())
    builder.setInsertionPointAfter(def);
  else
    builder.setInsertionPointToStart(value.getParentBlock());
}

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_SELECTIONSTAGING_H
