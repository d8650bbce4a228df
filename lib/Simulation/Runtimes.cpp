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
#include "mlir/Interfaces/FunctionInterfaces.h"

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
  while (allocator->getFreeBytes() < allocator->getFootprint(bytes)) {
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

//===----------------------------------------------------------------------===//
// Paged runtime
//===----------------------------------------------------------------------===//

BlockAllocator &TimelineSimulator::getBlockAllocator() {
  // checkInput makes paged mode run on the paged allocator only.
  return static_cast<BlockAllocator &>(*allocator);
}

void TimelineSimulator::markPagedBuffers() {
  auto function = dyn_cast<FunctionOpInterface>(body.getParentOp());
  if (!function)
    return;
  for (BlockArgument arg : body.getArguments()) {
    auto role = function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      kRoleAttrName);
    if (!role || role.getValue() != "kv_cache")
      continue;
    if (const BufferInfo *buffer = liveness.lookup(arg))
      state[buffer->id].paged = true;
  }
}

void TimelineSimulator::setResidentBlocks(BufferId id, int64_t blocks) {
  if (getBlockAllocator().resize(id, blocks).status ==
      AllocationResult::Status::OutOfMemory)
    noteOutOfMemory();
  state[id].residentBlocks = blocks;
  state[id].dirtyBlocks = std::min(state[id].dirtyBlocks, blocks);
  setResident(id, blocks > 0);
  recordMemory(now);
}

void TimelineSimulator::makeRoomInBlocks(
    int64_t blocks, const llvm::SmallDenseSet<BufferId> &pinned) {
  BlockAllocator &pool = getBlockAllocator();
  while (pool.getFreeBlocks() < blocks) {
    // Blocks of the least recently touched KV cache that the op does not
    // need; the lower id on a tie.
    auto victim = llvm::find_if(pagedByRecency, [&](auto entry) {
      return !pinned.contains(entry.second);
    });
    if (victim == pagedByRecency.end())
      return; // Only what the op needs is left: it reports out of memory.
    BufferId id = victim->second;
    BufferState &cache = state[id];
    int64_t evicted =
        std::min(blocks - pool.getFreeBlocks(), cache.residentBlocks);
    // Blocks the tier holds a current copy of are dropped first, for free.
    int64_t clean = cache.residentBlocks - cache.dirtyBlocks;
    int64_t written = std::max<int64_t>(0, evicted - clean);
    if (written > 0)
      blockingTransfer(*target.getDefaultTier(), Direction::FromDevice,
                       written * pool.getBlockBytes(),
                       "swap out " +
                           describeValue(liveness.getBuffer(id).root));
    cache.dirtyBlocks -= written;
    setResidentBlocks(id, cache.residentBlocks - evicted);
    ++result.evictions;
  }
}

void TimelineSimulator::fetchMissingBlocks(
    BufferId id, const llvm::SmallDenseSet<BufferId> &pinned) {
  BlockAllocator &pool = getBlockAllocator();
  const BufferInfo &buffer = liveness.getBuffer(id);
  int64_t total = pool.getBlocksFor(buffer.size);
  int64_t missing = total - state[id].residentBlocks;
  if (missing <= 0)
    return;
  makeRoomInBlocks(missing, pinned);
  // The last block may be partly filled: only its bytes cross the link.
  int64_t bytes = std::min(missing * pool.getBlockBytes(), buffer.size);
  setResidentBlocks(id, total);
  blockingTransfer(*target.getDefaultTier(), Direction::ToDevice, bytes,
                   "swap in " + describeValue(buffer.root));
  ++result.fetches;
}

LogicalResult TimelineSimulator::runPaged() {
  markPagedBuffers();
  BlockAllocator &pool = getBlockAllocator();
  // Everything but the KV caches is on the device from the start; the caches
  // take the blocks left, in argument order, and keep the rest in the tier.
  ArrayRef<BufferId> arguments =
      liveness.getDefinedAt(liveness.getEntryPoint());
  for (BufferId id : arguments)
    if (!state[id].paged && failed(allocate(id)))
      return failure();
  for (BufferId id : arguments) {
    if (!state[id].paged)
      continue;
    result.lifetimes[id].firstEvent = nextMemoryEvent++;
    int64_t total = pool.getBlocksFor(liveness.getBuffer(id).size);
    setResidentBlocks(id, std::min(total, pool.getFreeBlocks()));
  }

  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    currentOp = op;
    llvm::SmallDenseSet<BufferId> pinned;
    touchOperands(op, point, pinned);

    // Swap in the missing blocks of the caches the op reads, then allocate
    // what it writes, swapping out cache blocks it does not need. Returning
    // a cache reads nothing: its blocks stay where they are for the next
    // step.
    for (Value operand : op->getOperands()) {
      if (op->hasTrait<OpTrait::IsTerminator>())
        break;
      const BufferInfo *buffer = liveness.lookup(operand);
      if (buffer && state[buffer->id].paged && !state[buffer->id].dead)
        fetchMissingBlocks(buffer->id, pinned);
    }
    for (BufferId id : liveness.getDefinedAt(point)) {
      makeRoomInBlocks(pool.getBlocksFor(liveness.getBuffer(id).size), pinned);
      if (failed(allocate(id)))
        return failure();
    }
    // A cache written in place has no current copy in the tier any more.
    for (OpResult opResult : op->getResults())
      if (const BufferInfo *buffer = liveness.lookup(opResult))
        if (state[buffer->id].paged)
          state[buffer->id].dirtyBlocks = state[buffer->id].residentBlocks;

    runOp(op);
    for (BufferId id : liveness.getLastUsedAt(point))
      if (state[id].resident)
        release(id, now);
      else
        state[id].dead = true;
  }
  return success();
}
