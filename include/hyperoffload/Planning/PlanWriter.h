//===- PlanWriter.h - Write an offload plan into a function -----*- C++ -*-===//
//
// Turns an offload plan (OffloadPlan.h) into IR: transfers at the
// planned points, later uses switched to the fetched copies, and remote
// arguments and results in the function type.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_PLANNING_PLANWRITER_H
#define HYPEROFFLOAD_PLANNING_PLANWRITER_H

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Planning/OffloadPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace ho {

/// Gives every use of `value` that does not touch its buffer (an init the
/// op never reads, such as a fill's) a tensor.empty of its type instead:
/// what such a use needs once the value's contents move to a tier.
void replaceUnreadUsesWithEmpty(Value value, const BufferLiveness &liveness,
                                OpBuilder &builder);

/// An op of `function` that overwrites in place a buffer whose store is
/// still in flight would race the copy: one that does not read the bytes it
/// overwrites (a destination it only writes) gets a fresh tensor.empty, any
/// other waits for the store first.
void separateWritesFromStores(func::FuncOp function);

/// Writes one function's plan. Ops are addressed by their program point in
/// the unplanned body, so that inserted transfers do not shift them.
class PlanWriter {
public:
  PlanWriter(func::FuncOp function, const BufferLiveness &liveness)
      : function(function), liveness(liveness), builder(function.getContext()) {
    for (unsigned point = 1; point < liveness.getExitPoint(); ++point)
      ops.push_back(liveness.getOp(point));
  }

  /// Writes all of `plan`.
  void write(const OffloadPlan &plan) {
    makeArgumentsRemote(plan.remoteArguments);
    writeGaps(plan.gaps);
    storeRemoteResults();
    updateFunctionType();
    eraseDeadViews(plan);
    separateWritesFromStores(function);
  }

private:
  void makeArgumentsRemote(ArrayRef<RemoteArgument> arguments);
  void writeGaps(ArrayRef<PlannedGap> gaps);
  /// Writes the gaps `carrier` carries across, sorted by next use.
  void writeCarriedGaps(ArrayRef<PlannedGap> gaps, Value carrier);
  /// The views `carrier` is made by from a whole buffer, outermost last,
  /// when the runtime cannot move `carrier` itself: it has no static size,
  /// or it is part of its buffer (a slice). Empty when it can.
  SmallVector<Operation *> getViewsToRemake(Value carrier) const;
  /// `views` cloned in order onto `whole`, sharing the clones `remade`
  /// already holds; returns the last.
  Value remakeViews(Value whole, ArrayRef<Operation *> views,
                    IRMapping &remade);
  /// The value that later uses of `value` read: itself, or the copy (or
  /// view of a copy) the last gap written so far switched them to.
  Value getCurrent(Value value) const;
  /// The buffer `value` lives in: the analysed one, or the one whose
  /// fetched copy it is.
  std::optional<BufferId> getBufferId(Value value) const;
  /// `value`, or, when it is a slice with a buffer of its own, an explicit
  /// copy of it right after the slice, which then replaces it.
  Value materializeSlice(Value value);
  /// Writes the store (if any), prefetch and await of `gap`, whose data is
  /// in `value` on the device; returns the fetched copy.
  Value writeTransfers(const PlannedGap &gap, const BufferInfo &buffer,
                       Value value);
  void storeRemoteResults();
  void updateFunctionType();
  /// Erases the views of the buffers `plan` moves that nothing reads (those
  /// whose reads all switched to views remade on fetched copies, among
  /// others), and the views only they read.
  void eraseDeadViews(const OffloadPlan &plan);

  Operation *opAt(unsigned point) const {
    return point < liveness.getExitPoint()
               ? ops[point - 1]
               : function.getBody().front().getTerminator();
  }
  /// The program point of `user` in the unplanned body; 0 for ops the
  /// plan inserted.
  unsigned pointOf(Operation *user) const {
    Operation *owner = function.getBody().front().findAncestorOpInBlock(*user);
    if (!owner)
      return 0;
    if (owner->hasTrait<OpTrait::ReturnLike>())
      return liveness.getExitPoint();
    return liveness.getPoint(owner);
  }

  mutable func::FuncOp function;
  const BufferLiveness &liveness;
  OpBuilder builder;
  SmallVector<Operation *> ops;
  /// Remote arguments by buffer, with their tier.
  DenseMap<BufferId, MemoryTier> remoteTier;
  /// Where compute waits for a remote argument's store-back.
  DenseMap<BufferId, unsigned> storeBackWaits;
  /// The buffer whose data each copy fetched for the body holds.
  DenseMap<Value, BufferId> fetchedBuffer;
  /// What the uses after the last written gap of a value read instead.
  DenseMap<Value, Value> currentValue;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_PLANWRITER_H
