//===- OrderConstraints.h - Which ops of a body may swap places -*- C++ -*-===//
//
// Reordering a function body must not change what it computes. Two ops keep
// their relative order when one uses a value the other defines, when one
// writes a device buffer the other reads or writes (in-place results,
// destination-style inits), when either has side effects the analysis does
// not understand, and when both are transfers (a link's queue order is part
// of the schedule). Everything else may swap.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_ORDERCONSTRAINTS_H
#define HYPEROFFLOAD_ANALYSIS_ORDERCONSTRAINTS_H

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace ho {

/// How freely an op may move within its block.
enum class Mobility {
  /// Free of side effects beyond the buffers it reads and writes.
  Movable,
  /// Stays in place relative to other fixed ops, but others may pass it:
  /// transfers and the terminator.
  Fixed,
  /// Unknown side effects: nothing moves across it.
  Barrier,
};

/// What one op of the body depends on.
struct OpAccess {
  Mobility mobility = Mobility::Barrier;
  /// Ops of the body whose results it uses, inside its regions included.
  SmallVector<Operation *, 4> producers;
  /// Device buffers it reads, and those it overwrites in place.
  SmallVector<BufferId, 4> reads;
  SmallVector<BufferId, 2> writes;
};

/// The accesses of every op of a body. Buffer identities do not depend on
/// the order of the ops, so the analysis stays valid while they move.
class OrderConstraints {
public:
  OrderConstraints(Block &body, const BufferLiveness &liveness);

  const OpAccess &getAccess(Operation *op) const { return accesses.at(op); }

  /// Whether `earlier` may move to right after `later`, which follows it.
  bool maySwap(Operation *earlier, Operation *later) const;

private:
  DenseMap<Operation *, OpAccess> accesses;
};

/// The ops that may move from after an anchor op to right before it. Feed
/// it the ops that follow the anchor in order: each is either hoistable
/// past everything seen so far that stays, or it stays too.
class HoistScan {
public:
  HoistScan(const OrderConstraints &constraints, Operation *anchor);

  /// Whether `op`, the next op after those already offered, may move before
  /// the anchor. When it may not, it stays, and later ops must not pass it.
  bool offer(Operation *op);
  /// Whether a barrier has been offered: no later op can move.
  bool isBlocked() const { return blocked; }

private:
  void stay(Operation *op);

  const OrderConstraints &constraints;
  llvm::DenseSet<Operation *> staying;
  /// Buffers the staying ops read or write, and those they write.
  llvm::DenseSet<BufferId> touched;
  llvm::DenseSet<BufferId> written;
  bool blocked = false;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_ORDERCONSTRAINTS_H
