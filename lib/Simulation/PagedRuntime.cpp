//===- PagedRuntime.cpp - vLLM's paged KV cache and its KV connector ------===//
//
// vLLM keeps KV caches in fixed-size blocks of a pool it sizes at start-up:
// what the budget leaves after the weights and the activations' peak (its
// profiling run). It never swaps blocks inside a forward pass. KV caches
// that do not fit the pool live in a slower tier, and a KV connector (vLLM's
// OffloadingConnector, LMCache's layer-wise mode, SGLang's HiCache) loads
// each layer's cache one layer ahead of its use, overlapped with compute,
// in large contiguous copies, and stores back only the blocks the step
// wrote. A model whose weights alone exceed the budget does not start.
// docs/CostModel.md, "The paged runtime", states the rules.
//
//===----------------------------------------------------------------------===//

#include "TimelineSimulator.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

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
  setResident(id, blocks > 0);
  recordMemory(now, id, blocks * options.blockBytes);
}

int64_t TimelineSimulator::getPeakUnpagedBlocks() const {
  const BlockAllocator &pool = static_cast<const BlockAllocator &>(*allocator);
  int64_t live = 0, peak = 0;
  for (unsigned point = liveness.getEntryPoint();
       point <= liveness.getExitPoint(); ++point) {
    for (BufferId id : liveness.getDefinedAt(point))
      if (!state[id].paged)
        live += pool.getBlocksFor(liveness.getBuffer(id).size);
    peak = std::max(peak, live);
    for (BufferId id : liveness.getLastUsedAt(point))
      if (!state[id].paged)
        live -= pool.getBlocksFor(liveness.getBuffer(id).size);
  }
  return peak;
}

void TimelineSimulator::loadCache(BufferId id) {
  BufferState &cache = state[id];
  if (cache.resident || !cache.loads.empty())
    return;
  const BufferInfo &buffer = liveness.getBuffer(id);
  setResidentBlocks(id, getBlockAllocator().getBlocksFor(buffer.size));
  for (auto [tier, share] :
       splitOverLinks(target, Direction::ToDevice, buffer.size))
    cache.loads.push_back(
        {&getChannel(tier, Direction::ToDevice),
         issueTransfer(tier, Direction::ToDevice, share,
                       "load " + describeValue(buffer.root))});
  ++result.fetches;
}

void TimelineSimulator::waitForCache(BufferId id) {
  double landed = now;
  for (auto [channel, transfer] : state[id].loads)
    landed = std::max(landed, channel->finish(transfer));
  waitUntil(landed, "wait for " + describeValue(liveness.getBuffer(id).root));
}

void TimelineSimulator::storeDirtyBlocks(BufferId id) {
  BufferState &cache = state[id];
  const BufferInfo &buffer = liveness.getBuffer(id);
  int64_t bytes = std::min(
      cache.dirtyBlocks * getBlockAllocator().getBlockBytes(), buffer.size);
  if (bytes > 0) {
    for (auto [tier, share] :
         splitOverLinks(target, Direction::FromDevice, bytes))
      cache.offloads.push_back(
          {&getChannel(tier, Direction::FromDevice),
           issueTransfer(tier, Direction::FromDevice, share,
                         "store " + describeValue(buffer.root))});
    ++result.evictions;
  }
  // The clean blocks are free at once, the dirty ones once the store has
  // read them.
  setResidentBlocks(id, cache.dirtyBlocks);
  tryRelease(id);
}

/// The bytes an op that writes a cache in place brings in: its other
/// operands. The blocks it dirties hold at most that much.
static int64_t getBytesWrittenInto(Operation *op,
                                   const BufferLiveness &liveness,
                                   BufferId cache) {
  int64_t bytes = 0;
  for (Value operand : op->getOperands())
    if (const BufferInfo *buffer = liveness.lookup(operand))
      if (buffer->id != cache)
        bytes += buffer->size;
  return bytes;
}

LogicalResult TimelineSimulator::runPaged() {
  markPagedBuffers();
  BlockAllocator &pool = getBlockAllocator();
  ArrayRef<BufferId> arguments =
      liveness.getDefinedAt(liveness.getEntryPoint());

  // The KV caches in the order the body first reads them, the last op
  // that reads each (returning a cache reads nothing), and the blocks each
  // op that writes one in place dirties: at most the bytes it brings in.
  SmallVector<BufferId> caches;
  DenseMap<BufferId, unsigned> lastOpUse;
  DenseMap<unsigned, BufferId> lastFirstUseAt;
  DenseMap<std::pair<Operation *, BufferId>, int64_t> dirtiedBy;
  int64_t mostDirty = 0;
  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    if (op->hasTrait<OpTrait::IsTerminator>())
      continue;
    for (Value operand : op->getOperands())
      if (const BufferInfo *buffer = liveness.lookup(operand))
        if (state[buffer->id].paged) {
          if (!lastOpUse.contains(buffer->id)) {
            caches.push_back(buffer->id);
            lastFirstUseAt[point] = buffer->id;
          }
          lastOpUse[buffer->id] = point;
        }
    for (OpResult opResult : op->getResults())
      if (const BufferInfo *buffer = liveness.lookup(opResult))
        if (state[buffer->id].paged) {
          int64_t &dirty = dirtiedBy[{op, buffer->id}];
          dirty = std::min(
              pool.getBlocksFor(buffer->size),
              pool.getBlocksFor(getBytesWrittenInto(op, liveness, buffer->id)));
          mostDirty = std::max(mostDirty, dirty);
        }
  }

  // Start-up: the weights first; vLLM does not start when they do not fit.
  for (BufferId id : arguments)
    if (!state[id].paged && failed(allocate(id)))
      return failure();
  if (result.outOfMemory)
    result.notRunnable = true;

  // The pool holds the caches that fit beside the activations' peak, in
  // the order they are read; with any cache left over, room for two
  // layers' caches in flight (the one in use and the one loading) and the
  // dirty blocks of the one before, still being stored.
  int64_t freeBlocks =
      pool.getCapacity() / pool.getBlockBytes() - getPeakUnpagedBlocks();
  int64_t allBlocks = 0, largest = 0;
  for (BufferId id : caches) {
    int64_t blocks = pool.getBlocksFor(liveness.getBuffer(id).size);
    allBlocks += blocks;
    largest = std::max(largest, blocks);
  }
  if (allBlocks > freeBlocks)
    freeBlocks -= 2 * largest + mostDirty;
  for (BufferId id : caches) {
    int64_t blocks = pool.getBlocksFor(liveness.getBuffer(id).size);
    result.lifetimes[id].firstEvent = nextMemoryEvent++;
    if (blocks <= freeBlocks) {
      setResidentBlocks(id, blocks);
      freeBlocks -= blocks;
    } else {
      state[id].offloaded = true;
    }
  }
  // Caches nothing reads stay where they are.
  for (BufferId id : arguments)
    if (state[id].paged && !lastOpUse.contains(id))
      result.lifetimes[id].firstEvent = nextMemoryEvent++;

  // The connector loads one layer ahead: the first cache at start-up, the
  // next as each one is first read.
  auto loadAfter = [&](size_t index) {
    for (size_t next = index; next < caches.size(); ++next)
      if (state[caches[next]].offloaded) {
        loadCache(caches[next]);
        return;
      }
  };
  loadAfter(0);

  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    currentOp = op;
    catchUpWithTransfers();
    // Past the last cache this op reads first.
    if (auto first = lastFirstUseAt.find(point); first != lastFirstUseAt.end())
      loadAfter(llvm::find(caches, first->second) - caches.begin() + 1);
    if (!op->hasTrait<OpTrait::IsTerminator>())
      for (Value operand : op->getOperands())
        if (const BufferInfo *buffer = liveness.lookup(operand))
          if (state[buffer->id].offloaded) {
            loadCache(buffer->id);
            waitForCache(buffer->id);
          }
    for (BufferId id : liveness.getDefinedAt(point))
      if (failed(allocate(id)))
        return failure();
    for (OpResult opResult : op->getResults())
      if (const BufferInfo *buffer = liveness.lookup(opResult))
        if (state[buffer->id].paged)
          state[buffer->id].dirtyBlocks =
              std::min(pool.getBlocksFor(buffer->size),
                       state[buffer->id].dirtyBlocks +
                           dirtiedBy.lookup({op, buffer->id}));

    if (auto routed = dyn_cast<RoutedOp>(op))
      countPickedExperts(routed);
    runOp(op);
    for (BufferId id : caches)
      if (state[id].offloaded && lastOpUse.lookup(id) == point)
        storeDirtyBlocks(id);
    for (BufferId id : liveness.getLastUsedAt(point))
      if (!state[id].paged && state[id].resident)
        release(id, now);
  }
  return success();
}
