//===- ColumnBlocks.h - Stream large weights in column blocks ---*- C++ -*-===//
//
// A weight streamed from a tier needs room for all of it while it is in
// flight and while its matmul reads it. When the links bound the step, that
// room is taken from the weights that could otherwise stay on the device.
// Split into column blocks, a weight moves and is read one block at a time:
// each block's matmul computes its columns of the result, and a "concat"
// joins them, so the result is the same, bit for bit. ho-plan-offload plans
// the split function too when its plan stalls, and keeps it when it is
// faster.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_COLUMNBLOCKS_H
#define HYPEROFFLOAD_LIB_PLANNING_COLUMNBLOCKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace mlir {
namespace ho {

/// The argument attribute that marks a column block: `array<i64: first,
/// end>`, the columns [first, end) of the weight it was split from (a block
/// split again still counts the original's columns). The blocks of one
/// argument are consecutive, in column order.
inline constexpr llvm::StringLiteral kColumnBlockAttrName = "ho.column_block";

/// Splits every 2-D device argument larger than `maxBlockBytes` that is read
/// only as the right operand of matmuls that isColumnSplittableMatmul
/// accepts into the fewest column blocks of at most `maxBlockBytes` that divide
/// its columns evenly. The function takes the blocks as arguments in its place;
/// each matmul becomes one matmul per block and a "concat" of their results
/// along the last dimension. Returns whether any argument was split.
bool splitWeightsIntoColumnBlocks(func::FuncOp function, int64_t maxBlockBytes);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_COLUMNBLOCKS_H
