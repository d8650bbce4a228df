//===- ScheduleChecks.h - Structural rules of a schedule --------*- C++ -*-===//
//
// The rules of a correct schedule that follow from the IR alone, without
// timing it:
//   - no value is read after an op overwrote its buffer in place;
//   - no buffer is overwritten in place while an offload of it may still be
//     reading it;
//   - every prefetch is awaited (or its future handed to the caller).
// The rules that need a timeline (a prefetch issued after its offload has
// completed, the memory budget, disjoint static offsets) are checked by the
// ho-verify-schedule pass with the simulator.
//
// Both checks look at the ops of one block, the function body; an op with
// regions counts as one op, and a use inside its regions counts at it.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_SCHEDULECHECKS_H
#define HYPEROFFLOAD_ANALYSIS_SCHEDULECHECKS_H

#include "hyperoffload/Analysis/BufferLiveness.h"

namespace mlir {
namespace ho {

/// Returns the operand whose buffer `result` overwrites in place: the tied
/// operand of a `ho.compute` result, or the init of a destination-style op
/// that `liveness` writes in place. Null for results with a buffer of their
/// own, and for views and awaits, which share a buffer without writing it.
Value getOverwrittenOperand(OpResult result, const BufferLiveness &liveness);

/// A use that reads a value after another op overwrote its buffer in place.
struct StaleRead {
  /// The late use; its owner may be nested in an op of the body.
  OpOperand *use;
  /// The op of the body that overwrote the buffer, after the value was
  /// defined and before the use.
  Operation *writer;
};

/// Finds every use in `body` that reads a value after an op of `body`
/// overwrote the value's buffer in place (buffers as `liveness`, which must
/// describe `body`, groups them). Each use is reported once, with the first
/// op that overwrote the buffer after the value was defined. In block order.
SmallVector<StaleRead> findStaleReads(Block &body,
                                      const BufferLiveness &liveness);

/// An op that overwrites a buffer in place while an offload of the buffer
/// may still be copying it: the tier would receive a mix of old and new
/// bytes.
struct WriteUnderStore {
  /// The op of the body that overwrites the buffer.
  Operation *writer;
  /// The `ho.offload` or `ho.offload_slice` of the buffer issued before
  /// `writer` with no `ho.wait_offload` of it in between.
  Operation *store;
};

/// Finds every op of `body` that overwrites a buffer in place after an
/// offload of that buffer and before the offload's `ho.wait_offload`
/// (`liveness`, which must describe `body`, groups values into buffers).
/// Compute waits for an offload only there, so without the wait the write
/// races the copy however the timing falls. Each writer is reported once,
/// with the earliest such store. In block order.
SmallVector<WriteUnderStore>
findWritesUnderStore(Block &body, const BufferLiveness &liveness);

/// An op that allocates a buffer over arena bytes an offload may still be
/// reading: the bytes of another buffer whose store was not waited for.
struct ReuseUnderStore {
  /// The op of the body whose buffer overlaps the stored one's offsets.
  Operation *allocation;
  /// The `ho.offload` or `ho.offload_slice` of the other buffer issued
  /// before `allocation` with no `ho.wait_offload` of it in between.
  Operation *store;
};

/// Finds every op of `body` that allocates a buffer whose static offsets
/// (`ho.offsets`) overlap those of a buffer stored earlier and not yet
/// waited for. The stored buffer is free only once its copy completes,
/// so without the wait the reuse races the copy on a link slower than
/// planned. Each allocation is reported once, with the earliest such
/// store. In block order; buffers without offsets are skipped.
SmallVector<ReuseUnderStore>
findReusesUnderStore(Block &body, const BufferLiveness &liveness);

/// A prefetch of `body` whose future is neither awaited nor returned.
struct UnawaitedPrefetch {
  Operation *prefetch;
  /// The first op other than an await or the function's return that the
  /// future is passed to, or null when it has no such user. Passing a
  /// future on does not count as awaiting it: only a `ho.await` completes
  /// the transfer, and only a return hands it to a caller that may.
  Operation *escape;
};

/// Finds the `ho.prefetch` ops of `body` whose future no `ho.await` reads
/// and `body`'s terminator does not return. In block order.
SmallVector<UnawaitedPrefetch> findUnawaitedPrefetches(Block &body);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_SCHEDULECHECKS_H
