//===- Runtimes.cpp - Runtimes that move tensors on demand ----------------===//
//
// Runs an unplanned function the way a runtime would: compute blocks while
// whatever an op needs is fetched, and memory pressure evicts what was used
// least recently. Runtimes may use every link the target has, as a plan
// does: a copy is split over the fastest links in proportion to their
// bandwidth when that is quicker than one link, issue overheads included
// (the paged runtime, PagedRuntime.cpp, splits its copies the same way).
//
//===----------------------------------------------------------------------===//

#include "TimelineSimulator.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

//===----------------------------------------------------------------------===//
// Reactive runtime
//===----------------------------------------------------------------------===//

SmallVector<std::pair<MemoryTier, int64_t>, 3>
mlir::ho::detail::splitOverLinks(const Target &target, Direction direction,
                                 int64_t bytes) {
  auto bandwidthOf = [&](MemoryTier tier) {
    const LinkModel &link = *target.getLink(tier);
    return direction == Direction::ToDevice ? link.bandwidthToDevice
                                            : link.bandwidthFromDevice;
  };
  SmallVector<MemoryTier, 3> tiers;
  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (target.getLink(tier))
      tiers.push_back(tier);
  llvm::stable_sort(tiers, [&](MemoryTier a, MemoryTier b) {
    return bandwidthOf(a) > bandwidthOf(b);
  });

  SmallVector<std::pair<MemoryTier, int64_t>, 3> best;
  double bestTime = 0;
  for (size_t count = 1; count <= tiers.size(); ++count) {
    double total = 0, overhead = 0, latency = 0;
    for (size_t i = 0; i < count; ++i) {
      total += bandwidthOf(tiers[i]);
      overhead += target.getLink(tiers[i])->issueOverhead;
      latency = std::max(latency, target.getLink(tiers[i])->latency);
    }
    double time = overhead + latency + bytes / total;
    if (!best.empty() && time >= bestTime)
      continue;
    best.clear();
    bestTime = time;
    int64_t assigned = 0;
    for (size_t i = 0; i < count; ++i) {
      int64_t share =
          i + 1 == count
              ? bytes - assigned
              : static_cast<int64_t>(bytes * (bandwidthOf(tiers[i]) / total));
      assigned += share;
      if (share > 0)
        best.push_back({tiers[i], share});
    }
  }
  return best;
}

void TimelineSimulator::blockingTransfer(Direction direction, int64_t bytes,
                                         std::string name) {
  double start = now;
  SmallVector<std::pair<LinkChannel *, LinkChannel::TransferId>, 3> copies;
  for (auto [tier, share] : splitOverLinks(target, direction, bytes)) {
    double overhead = target.getLink(tier)->issueOverhead;
    if (overhead > 0) {
      addEvent(TimelineEvent::Kind::HostOverhead, "compute",
               "host issue/sync " + name, now, now + overhead);
      now += overhead;
      result.hostOverheadTime += overhead;
    }
    copies.push_back({&getChannel(tier, direction),
                      issueTransfer(tier, direction, share, name)});
  }
  double end = now;
  for (auto [channel, id] : copies)
    end = std::max(end, channel->finish(id));
  addEvent(TimelineEvent::Kind::Stall, "compute", "wait " + name, now, end);
  ++result.stallCount;
  result.stallTime += end - start;
  now = end;
}

void TimelineSimulator::evict(BufferId id) {
  const BufferInfo &buffer = liveness.getBuffer(id);
  BufferState &bufferState = state[id];
  // A buffer whose tier copy is current is dropped without a copy.
  bool copy = !bufferState.hasTierCopy;
  result.runtimeMoves.push_back(
      {copy ? RuntimeMove::Kind::Evict : RuntimeMove::Kind::Drop, currentOp,
       id});
  if (copy)
    blockingTransfer(Direction::FromDevice, buffer.size,
                     "evict " + describeValue(buffer.root));
  bufferState.hasTierCopy = true;
  allocator->release(id);
  setResident(id, false);
  ++result.evictions;
  recordMemory(now, id, 0);
}

void TimelineSimulator::makeRoom(int64_t bytes,
                                 const llvm::SmallDenseSet<BufferId> &pinned) {
  // The caching allocator may fail a request although enough bytes are
  // free: the runtime evicts until the allocator can place it.
  while (!allocator->canAllocate(bytes)) {
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
  for (OpOperand &operand : op->getOpOperands())
    if (const BufferInfo *buffer = liveness.lookup(operand.get());
        buffer && readsOperand(op, operand.getOperandNumber()))
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
    if (allocator->canAllocate(liveness.getBuffer(id).size)) {
      if (failed(allocate(id)))
        return failure();
      result.runtimeMoves.push_back(
          {RuntimeMove::Kind::StartResident, nullptr, id});
    }
  }

  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    currentOp = op;
    llvm::SmallDenseSet<BufferId> pinned;
    touchOperands(op, point, pinned);

    if (auto routed = dyn_cast<RoutedOp>(op))
      countPickedExperts(routed);
    // Fetch what the op reads, then allocate what it writes.
    for (OpOperand &operand : op->getOpOperands()) {
      const BufferInfo *buffer = liveness.lookup(operand.get());
      if (!buffer || state[buffer->id].resident || state[buffer->id].dead ||
          !readsOperand(op, operand.getOperandNumber()))
        continue;
      makeRoom(buffer->size, pinned);
      if (failed(allocate(buffer->id)))
        return failure();
      result.runtimeMoves.push_back({RuntimeMove::Kind::Fetch, op, buffer->id});
      blockingTransfer(Direction::ToDevice, buffer->size,
                       "fetch " + describeValue(buffer->root));
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
