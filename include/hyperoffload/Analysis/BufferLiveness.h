//===- BufferLiveness.h - Device buffers and when they are live -*- C++ -*-===//
//
// Which device buffers a function body allocates, how large they are, which
// SSA values share them, and at which program points they are live. The
// memory profile and its peak follow from that.
//
// Program points: 0 is function entry, the i-th op of the body (0-based) is
// point i + 1, and the last point is function exit. Ops with regions count as
// one point; values defined inside their regions are not tracked.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_BUFFERLIVENESS_H
#define HYPEROFFLOAD_ANALYSIS_BUFFERLIVENESS_H

#include "hyperoffload/Analysis/InPlaceWrites.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace ho {

using BufferId = unsigned;

/// One device buffer: allocated at `definition`, free after `lastUse`.
struct BufferInfo {
  BufferId id;
  /// The value whose definition allocates the buffer: a block argument, an
  /// op result, or the future of a `ho.prefetch` (allocated at issue).
  Value root;
  /// Every value that lives in this buffer, root first: views of it, results
  /// tied to it, destination-style results written into it, the awaited
  /// tensor of a prefetch.
  SmallVector<Value> aliases;
  /// Bytes, rounded up to the allocation granularity.
  int64_t size = 0;
  unsigned definition = 0;
  /// The last point at which any alias is used; the exit point when an
  /// alias is returned, and for arguments: the caller owns them.
  unsigned lastUse = 0;

  bool isArgument() const { return isa<BlockArgument>(root); }
  /// A memref buffer of bufferized IR: measured, never moved.
  bool isMemRef() const { return isa<BaseMemRefType>(root.getType()); }
};

/// Buffer liveness of one block (a function body).
class BufferLiveness {
public:
  /// Analyses `body`, rounding every buffer up to `granularity` bytes.
  explicit BufferLiveness(Block &body, int64_t granularity = 1);

  unsigned getEntryPoint() const { return 0; }
  unsigned getExitPoint() const { return ops.size() + 1; }
  /// The program point of `op`, which must be in the analysed block.
  unsigned getPoint(Operation *op) const { return pointOf.lookup(op); }
  /// The op at `point`; null at entry and exit.
  Operation *getOp(unsigned point) const;

  ArrayRef<BufferInfo> getBuffers() const { return buffers; }
  const BufferInfo &getBuffer(BufferId id) const { return buffers[id]; }
  /// The buffer `value` lives in, or null for values without device memory
  /// (remote tensors, scalars, values of unknown size).
  const BufferInfo *lookup(Value value) const;

  /// Buffers allocated at `point`, and those whose last use is `point`.
  ArrayRef<BufferId> getDefinedAt(unsigned point) const {
    return definedAt[point];
  }
  ArrayRef<BufferId> getLastUsedAt(unsigned point) const {
    return lastUsedAt[point];
  }

  /// Returns the operand whose buffer `result` shares without a copy: the
  /// source of a view, the tied operand of a `ho.compute`, the future of a
  /// `ho.await`, or the init of a destination-style op written in place
  /// (see InPlaceWrites.h). Null otherwise.
  Value getAliasedSource(OpResult result) const;

  /// Whether `use` reads its value's buffer or writes into it in place.
  /// An init whose contents the op ignores, of a result written into a
  /// buffer of its own, does neither: it does not keep the buffer alive.
  bool touchesBuffer(OpOperand &use) const;

  /// Device tensors whose size is not static: they cannot be placed.
  ArrayRef<Value> getUnsizedValues() const { return unsized; }

  /// Live bytes at every program point.
  ArrayRef<int64_t> getProfile() const { return profile; }
  int64_t getPeakBytes() const { return profile[peakPoint]; }
  /// The first point at which the peak is reached.
  unsigned getPeakPoint() const { return peakPoint; }

private:
  void createBuffer(Value root, unsigned point, int64_t granularity);
  void addAlias(Value alias, Value source);
  /// A memref allocation, global or view: device memory the program manages
  /// itself, measured but never moved (the planner plans tensors).
  void addMemRefResult(OpResult result, int64_t granularity);
  void computeLastUses();
  void computeProfile();

  Block *block;
  InPlaceWrites inPlaceWrites;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> pointOf;
  SmallVector<BufferInfo> buffers;
  DenseMap<Value, BufferId> bufferOf;
  SmallVector<SmallVector<BufferId, 2>> definedAt;
  SmallVector<SmallVector<BufferId, 2>> lastUsedAt;
  SmallVector<Value> unsized;
  SmallVector<int64_t> profile;
  unsigned peakPoint = 0;
};

/// Whether `op` is a tensor view (extract_slice, collapse_shape,
/// expand_shape, cast, bitcast, reshape, tosa.reshape): its result may share
/// the buffer of its source (where InPlaceWrites lets it), and it does no
/// device work.
bool isTensorViewOp(Operation *op);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_BUFFERLIVENESS_H
