//===- SelectionPicks.h - Which values are a run-time selection's picks ---===//
//
// A selection (the router's picks of ho.routed, the block indices of
// ho.gather_blocks) is data the runtime reads: ids in a range, distinct
// within a row. When a modelled graph runs, the abstract ho.compute that
// makes a selection becomes a synthetic kernel, which must then write
// valid picks. ho-lower-to-runtime, which turns the ops that read picks
// into runtime calls, and ho-synthesize-kernels record the range on the op
// that makes them, so that the kernel knows it even once its readers are
// calls.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_TRANSFORMS_SELECTIONPICKS_H
#define HYPEROFFLOAD_LIB_TRANSFORMS_SELECTIONPICKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir {
namespace ho {

/// On a ho.compute: per result, how many ids its picks range over (0 for a
/// result that is not picks).
constexpr llvm::StringLiteral kPickRangesAttrName = "ho.pick_ranges";

/// On the ho.compute a lowered routed kernel becomes: how many of its
/// operands are inputs, the global ids of the resident experts after the
/// selection, and the number of experts the picks range over. The staged
/// slots and their table of experts (ho_routed_slot_expert) follow.
constexpr llvm::StringLiteral kRoutedKernelAttrName = "ho.routed_kernel";

/// Records, on the ho.compute that makes each selection `function` reads,
/// the range of its ids. `forRunning`, fails with an error at the reader
/// when the picks are an argument (generated inputs are no valid picks),
/// when a row asks for more distinct ids than the range has, or when two
/// readers disagree on the range; otherwise marks only the picks it can.
LogicalResult markPickRanges(func::FuncOp function, bool forRunning);

/// The range of the ids `result` holds, if it is picks.
std::optional<int64_t> getPickRange(OpResult result);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_TRANSFORMS_SELECTIONPICKS_H
