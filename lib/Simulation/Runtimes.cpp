//===- Runtimes.cpp - Runtimes that move tensors on demand ----------------===//
//
// Runs an unplanned function the way a runtime would: compute blocks while
// whatever an op needs is fetched, and memory pressure evicts what was used
// least recently. The reactive runtime moves any tensor whole; the paged one
// keeps KV caches in fixed-size blocks and moves only those.
//
//===----------------------------------------------------------------------===//

#include "TimelineSimulator.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

//===----------------------------------------------------------------------===//
// Reactive runtime
//===----------------------------------------------------------------------===//

void TimelineSimulator::blockingTransfer(MemoryTier tier, Direction direction,
                                         int64_t bytes, std::string name) {
  const LinkModel &link = *target.getLink(tier);
  double start = now;
  if (link.issueOverhead > 0) {
    addEvent(TimelineEvent::Kind::HostOverhead, "compute",
             "host issue/sync " + name, now, now + link.issueOverhead);
    now += link.issueOverhead;
    result.hostOverheadTime += link.issueOverhead;
  }
  LinkChannel::TransferId id = issueTransfer(tier, direction, bytes, name);
  double end = getChannel(tier, direction).finish(id);
  addEvent(TimelineEvent::Kind::Stall, "compute", "wait " + name, now, end);
  ++result.stallCount;
  result.stallTime += end - start;
  now = end;
}

void TimelineSimulator::evict(BufferId id) {
  const BufferInfo &buffer = liveness.getBuffer(id);
  BufferState &bufferState = state[id];
  // A buffer whose tier copy is current is dropped without a copy.
  if (!bufferState.hasTierCopy)
    blockingTransfer(*target.getDefaultTier(), Direction::FromDevice,
                     buffer.size, "evict " + describeValue(buffer.root));
  bufferState.hasTierCopy = true;
  allocator->release(id);
  setResident(id, false);
  ++result.evictions;
  recordMemory(now);
}

void TimelineSimulator::makeRoom(int64_t bytes,
                                 const llvm::SmallDenseSet<BufferId> &pinned) {
  while (allocator->getFreeBytes() < bytes) {
    // The least recently touched resident buffer that the op does not need;
    // the lower id on a tie.
    auto victim = llvm::find_if(residentByRecency, [&](auto entry) {
      return !pinned.contains(entry.second);
    });
    if (victim == residentByRecency.end())
      return; // Nothing left to evict: the allocation reports out of memory.
    evict(victim->second);
  }
}

void TimelineSimulator::touchOperands(Operation *op, unsigned point,
                                      llvm::SmallDenseSet<BufferId> &pinned) {
  for (Value operand : op->getOperands())
    if (const BufferInfo *buffer = liveness.lookup(operand))
      pinned.insert(buffer->id);
  for (BufferId id : liveness.getDefinedAt(point))
    pinned.insert(id);
  for (BufferId id : pinned) {
    bool resident = state[id].resident;
    setResident(id, false);
    state[id].lastTouched = point;
    setResident(id, resident);
  }
}

LogicalResult TimelineSimulator::runReactive() {
  // Arguments start on the device while they fit, the rest in the tier.
  for (BufferId id : liveness.getDefinedAt(liveness.getEntryPoint())) {
    state[id].hasTierCopy = true;
    if (allocator->getFreeBytes() >= liveness.getBuffer(id).size) {
      if (failed(allocate(id)))
        return failure();
    }
  }

  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    currentOp = op;
    llvm::SmallDenseSet<BufferId> pinned;
    touchOperands(op, point, pinned);

    // Fetch what the op reads, then allocate what it writes.
    for (Value operand : op->getOperands()) {
      const BufferInfo *buffer = liveness.lookup(operand);
      if (!buffer || state[buffer->id].resident || state[buffer->id].dead)
        continue;
      makeRoom(buffer->size, pinned);
      if (failed(allocate(buffer->id)))
        return failure();
      blockingTransfer(*target.getDefaultTier(), Direction::ToDevice,
                       buffer->size, "fetch " + describeValue(buffer->root));
      state[buffer->id].hasTierCopy = true;
      ++result.fetches;
    }
    for (BufferId id : liveness.getDefinedAt(point)) {
      makeRoom(liveness.getBuffer(id).size, pinned);
      if (failed(allocate(id)))
        return failure();
    }
    // Results written in place make the tier copy of their buffer stale.
    for (OpResult opResult : op->getResults())
      if (const BufferInfo *buffer = liveness.lookup(opResult))
        state[buffer->id].hasTierCopy = false;

    runOp(op);
    for (BufferId id : liveness.getLastUsedAt(point))
      if (state[id].resident)
        release(id, now);
      else
        state[id].dead = true;
  }
  return success();
}
