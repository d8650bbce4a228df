//===- OrderConstraints.cpp - Which ops of a body may swap places ---------===//

#include "hyperoffload/Analysis/OrderConstraints.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::ho;

static Mobility getMobility(Operation *op) {
  if (isa<OffloadOp, PrefetchOp, AwaitOp, WaitOffloadOp>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return Mobility::Fixed;
  return isMemoryEffectFree(op) ? Mobility::Movable : Mobility::Barrier;
}

/// Records `value` as used by `access` when it is defined in `body`.
static void addUse(OpAccess &access, Value value, Block &body,
                   const BufferLiveness &liveness) {
  if (const BufferInfo *buffer = liveness.lookup(value))
    if (!llvm::is_contained(access.reads, buffer->id))
      access.reads.push_back(buffer->id);
  Operation *producer = value.getDefiningOp();
  if (producer && producer->getBlock() == &body &&
      !llvm::is_contained(access.producers, producer))
    access.producers.push_back(producer);
}

static OpAccess analyseOp(Operation &op, Block &body,
                          const BufferLiveness &liveness) {
  OpAccess access;
  access.mobility = getMobility(&op);
  // Values used inside the op's regions count as its own uses.
  op.walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      addUse(access, operand, body, liveness);
  });
  if (isTensorViewOp(&op))
    return access;
  for (OpResult result : op.getResults()) {
    Value source = liveness.getAliasedSource(result);
    if (!source || isa<AwaitOp>(op))
      continue;
    if (const BufferInfo *buffer = liveness.lookup(source))
      access.writes.push_back(buffer->id);
  }
  return access;
}

OrderConstraints::OrderConstraints(Block &body,
                                   const BufferLiveness &liveness) {
  for (Operation &op : body)
    accesses.try_emplace(&op, analyseOp(op, body, liveness));
}

/// Whether one of `first` and `second` writes a buffer the other touches.
static bool conflict(const OpAccess &first, const OpAccess &second) {
  auto writesAny = [](const OpAccess &writer, ArrayRef<BufferId> buffers) {
    return llvm::any_of(writer.writes, [&](BufferId id) {
      return llvm::is_contained(buffers, id);
    });
  };
  return writesAny(first, second.reads) || writesAny(first, second.writes) ||
         writesAny(second, first.reads);
}

bool OrderConstraints::maySwap(Operation *earlier, Operation *later) const {
  const OpAccess &first = getAccess(earlier);
  const OpAccess &second = getAccess(later);
  if (first.mobility == Mobility::Barrier ||
      second.mobility == Mobility::Barrier ||
      (first.mobility == Mobility::Fixed && second.mobility == Mobility::Fixed))
    return false;
  return !llvm::is_contained(second.producers, earlier) &&
         !conflict(first, second);
}

HoistScan::HoistScan(const OrderConstraints &constraints, Operation *anchor)
    : constraints(constraints) {
  stay(anchor);
}

void HoistScan::stay(Operation *op) {
  const OpAccess &access = constraints.getAccess(op);
  staying.insert(op);
  touched.insert(access.reads.begin(), access.reads.end());
  touched.insert(access.writes.begin(), access.writes.end());
  written.insert(access.writes.begin(), access.writes.end());
  blocked |= access.mobility == Mobility::Barrier;
}

bool HoistScan::offer(Operation *op) {
  const OpAccess &access = constraints.getAccess(op);
  bool hoistable =
      !blocked && access.mobility == Mobility::Movable &&
      llvm::none_of(access.producers,
                    [&](Operation *p) { return staying.contains(p); }) &&
      llvm::none_of(access.writes,
                    [&](BufferId id) { return touched.contains(id); }) &&
      llvm::none_of(access.reads,
                    [&](BufferId id) { return written.contains(id); });
  if (!hoistable)
    stay(op);
  return hoistable;
}
