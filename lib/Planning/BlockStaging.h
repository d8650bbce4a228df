//===- BlockStaging.h - KV caches left in a tier, read in blocks -*- C++
//-*-===//
//
// Block-sparse attention reads a few blocks of a long KV cache, picked at
// run time (ho.gather_blocks), and appends a few rows to it
// (tensor.insert_slice). A plan can keep such a cache on the device (the
// ordinary planner sees it as an operand, moved whole), or leave it in a
// tier for the whole step: the picked blocks are then fetched with
// ho.prefetch_blocks once the selection is known (exact, but the copy is
// exposed unless compute covers it), or earlier on a prediction, the
// previous gather's selection (as InfiniGen speculates a layer's tokens
// from the layer before), with the misses fetched by the gather itself;
// the appended rows are stored with ho.offload_slice, and only they move.
// ho-plan-offload plans each and keeps the fastest that fits.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_BLOCKSTAGING_H
#define HYPEROFFLOAD_LIB_PLANNING_BLOCKSTAGING_H

#include "hyperoffload/Dialect/HO/HOTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace ho {

struct BlockStaging {
  /// Fetch each gather's blocks on the previous gather's selection, right
  /// after it is computed, instead of on its own.
  bool predicted = false;
  /// Where the tensors live: the target's fastest tier.
  MemoryTier tier = MemoryTier::pool;
};

/// Whether `function` has a tensor that staging could leave in a tier.
bool hasStageableBlocks(func::FuncOp function);

/// Rewrites `function` as `staging` says: every device argument read only
/// by ho.gather_blocks (as its source) and written only by
/// tensor.insert_slice whose result is returned becomes `!ho.remote`; each
/// gather of it reads blocks from a ho.prefetch_blocks, awaited right
/// before it, and each insert becomes a ho.offload_slice. Returns whether
/// any argument was moved.
bool stageSelectedBlocks(func::FuncOp function, const BlockStaging &staging);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_BLOCKSTAGING_H
