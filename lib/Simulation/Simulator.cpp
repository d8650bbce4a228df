//===- Simulator.cpp - Deterministic timeline of a scheduled function -----===//
//
// The simulator walks the body once, in block order, keeping the compute
// stream's clock. Transfers advance on their link channels, which are run
// forward lazily: up to the compute clock before each op, and up to a
// transfer's completion when compute waits for it. Compute never waits for
// anything that has not been issued yet, so this is exact.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Simulation/Simulator.h"

#include "TimelineSimulator.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Simulation/DeviceAllocator.h"
#include "hyperoffload/Simulation/LinkChannel.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <memory>
#include <set>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

llvm::StringRef ho::stringifyAllocatorKind(AllocatorKind kind) {
  switch (kind) {
  case AllocatorKind::Static:
    return "static";
  case AllocatorKind::Caching:
    return "caching";
  case AllocatorKind::Expandable:
    return "expandable";
  case AllocatorKind::Ideal:
    return "ideal";
  case AllocatorKind::Paged:
    return "paged";
  }
  llvm_unreachable("unknown allocator kind");
}

llvm::StringRef ho::stringifyExecutionMode(ExecutionMode mode) {
  switch (mode) {
  case ExecutionMode::AsWritten:
    return "as-written";
  case ExecutionMode::Reactive:
    return "reactive";
  case ExecutionMode::Paged:
    return "paged";
  }
  llvm_unreachable("unknown execution mode");
}

llvm::StringRef ho::stringifyDirection(Direction direction) {
  return direction == Direction::ToDevice ? "to-device" : "from-device";
}

/// A readable name for an op on a timeline: its location's name when it has
/// one ("layer 3 / attention"), else its kind or op name.
std::string ho::detail::describeOp(Operation *op) {
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    return named.getName().str();
  if (auto compute = dyn_cast<ComputeOp>(op))
    return compute.getKind().str();
  return op->getName().getStringRef().str();
}

/// A readable name for the value that owns a buffer: its location's name,
/// "argument #i", or its defining op.
std::string ho::detail::describeValue(Value value) {
  if (auto named = dyn_cast<NameLoc>(value.getLoc()))
    return named.getName().str();
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "argument #" + std::to_string(arg.getArgNumber());
  return describeOp(value.getDefiningOp());
}

std::string ho::detail::describeTrack(MemoryTier tier, Direction direction) {
  std::string tierName = stringifyMemoryTier(tier).str();
  return direction == Direction::ToDevice ? tierName + " -> device"
                                          : "device -> " + tierName;
}

TimelineSimulator::TimelineSimulator(Block &body, const Target &target,
                                     const SimulationOptions &options)
    : body(body), target(target), options(options),
      ownLiveness(std::in_place, body, target.device.allocationGranularity),
      liveness(*ownLiveness) {
  initialize();
}

TimelineSimulator::TimelineSimulator(Block &body,
                                     const BufferLiveness &liveness,
                                     const Target &target,
                                     const SimulationOptions &options)
    : body(body), target(target), options(options), liveness(liveness) {
  initialize();
}

void TimelineSimulator::initialize() {
  result.budget =
      options.budget > 0 ? options.budget : target.device.hbmCapacity;
  state.resize(liveness.getBuffers().size());
  result.lifetimes.resize(liveness.getBuffers().size());
}

Location TimelineSimulator::getBufferLoc(BufferId id) const {
  Value root = liveness.getBuffer(id).root;
  if (auto arg = dyn_cast<BlockArgument>(root))
    return arg.getLoc();
  return root.getDefiningOp()->getLoc();
}

//===----------------------------------------------------------------------===//
// Input checks
//===----------------------------------------------------------------------===//

LogicalResult TimelineSimulator::checkInput() {
  if (!liveness.getUnsizedValues().empty()) {
    Value value = liveness.getUnsizedValues().front();
    return emitError(value.getLoc())
           << "cannot simulate a device tensor of unknown size ("
           << value.getType() << "): give it a static shape";
  }
  for (Operation &op : body) {
    MemoryTier tier;
    if (auto offload = dyn_cast<OffloadOp>(op))
      tier = offload.getResult().getType().getTier();
    else if (auto prefetch = dyn_cast<PrefetchOp>(op))
      tier = prefetch.getSource().getType().getTier();
    else if (auto routed = dyn_cast<PrefetchRoutedOp>(op))
      tier = cast<RemoteType>(routed.getExperts().front().getType()).getTier();
    else if (auto blocks = dyn_cast<PrefetchBlocksOp>(op))
      tier = blocks.getSource().getType().getTier();
    else if (auto slice = dyn_cast<OffloadSliceOp>(op))
      tier = slice.getResult().getType().getTier();
    else
      continue;
    if (options.mode != ExecutionMode::AsWritten)
      return op.emitError()
             << stringifyExecutionMode(options.mode)
             << " mode simulates an unplanned function, but it already holds "
                "explicit transfers; simulate it as written";
    if (!target.getLink(tier))
      return op.emitError()
             << "target '" << target.name << "' has no link to the '"
             << stringifyMemoryTier(tier) << "' tier";
  }
  if (options.mode != ExecutionMode::AsWritten && !target.getDefaultTier())
    return emitError(body.getParent()->getLoc())
           << "target '" << target.name << "' has no memory tier to evict to";
  if (options.mode == ExecutionMode::Paged &&
      options.allocator != AllocatorKind::Paged)
    return emitError(body.getParent()->getLoc())
           << "paged mode moves KV caches in fixed-size blocks: simulate it "
              "with the paged allocator, not the "
           << stringifyAllocatorKind(options.allocator) << " one";
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void TimelineSimulator::recordMemory(double time, std::optional<BufferId> id,
                                     int64_t bytes) {
  result.peakLiveBytes =
      std::max(result.peakLiveBytes, allocator->getLiveBytes());
  if (options.recordTimeline)
    result.memory.push_back(
        {time, allocator->getLiveBytes(), allocator->getHighWaterMark(),
         id ? liveness.getBuffer(*id).root : Value(), bytes});
}

LogicalResult TimelineSimulator::allocate(BufferId id) {
  catchUpWithTransfers();
  const BufferInfo &buffer = liveness.getBuffer(id);
  AllocationResult placed = allocator->allocate(id, buffer.size);
  using Status = AllocationResult::Status;
  switch (placed.status) {
  case Status::MissingOffset:
    return emitError(getBufferLoc(id))
           << "the static allocator needs an offset for this buffer ("
           << buffer.size << " bytes); run ho-assign-offsets first or "
           << "simulate with allocator=caching";
  case Status::Overlap: {
    if (options.continueOnOverlap) {
      if (result.overlaps++ == 0)
        result.firstOverlapOp = currentOp;
      break;
    }
    InFlightDiagnostic diag = emitError(getBufferLoc(id))
                              << "buffer at offset " << placed.offset << " ("
                              << buffer.size
                              << " bytes) overlaps a buffer that is still live";
    diag.attachNote(getBufferLoc(placed.conflict))
        << "the live buffer (" << liveness.getBuffer(placed.conflict).size
        << " bytes) is defined here";
    return diag;
  }
  case Status::OutOfMemory:
    if (!result.outOfMemory)
      result.firstOutOfMemoryExcess =
          allocator->getLiveBytes() - allocator->getCapacity();
    noteOutOfMemory();
    break;
  case Status::Placed:
  case Status::PlacedAfterRelease:
    break;
  }
  if (placed.releasedCache) {
    double seconds = target.device.cacheReleaseOverhead +
                     placed.remappedPages * target.device.pageMapOverhead;
    ++result.allocatorStalls;
    result.allocatorStallTime += seconds;
    result.releasedBytes += placed.releasedBytes;
    result.remappedPages += placed.remappedPages;
    addEvent(TimelineEvent::Kind::AllocatorStall, "compute",
             "release cache and retry", now, now + seconds,
             placed.releasedBytes);
    now += seconds;
  }
  setResident(id, true);
  result.lifetimes[id].start = now;
  result.lifetimes[id].firstEvent = nextMemoryEvent++;
  recordMemory(now, id, buffer.size);
  return success();
}

void TimelineSimulator::noteOutOfMemory() {
  if (result.outOfMemory)
    return;
  result.outOfMemory = true;
  result.firstOutOfMemoryOp = currentOp;
}

void TimelineSimulator::release(BufferId id, double time) {
  allocator->release(id);
  setResident(id, false);
  state[id].dead = true;
  result.lifetimes[id].end = time;
  result.lifetimes[id].lastEvent = nextMemoryEvent++;
  recordMemory(time, id, 0);
}

void TimelineSimulator::setResident(BufferId id, bool resident) {
  BufferState &buffer = state[id];
  if (buffer.resident)
    residentByRecency.erase({buffer.lastTouched, id});
  buffer.resident = resident;
  if (resident)
    residentByRecency.insert({buffer.lastTouched, id});
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

LinkChannel &TimelineSimulator::getChannel(MemoryTier tier,
                                           Direction direction) {
  std::unique_ptr<LinkChannel> &channel =
      channels[static_cast<unsigned>(tier)][static_cast<unsigned>(direction)];
  if (!channel) {
    const LinkModel &link = *target.getLink(tier);
    double bandwidth = direction == Direction::ToDevice
                           ? link.bandwidthToDevice
                           : link.bandwidthFromDevice;
    channel = std::make_unique<LinkChannel>(bandwidth, link.latency,
                                            link.queuesPerDirection);
  }
  return *channel;
}

LinkChannel::TransferId TimelineSimulator::issueTransfer(MemoryTier tier,
                                                         Direction direction,
                                                         int64_t bytes,
                                                         std::string name,
                                                         double notBefore) {
  LinkChannel &channel = getChannel(tier, direction);
  LinkChannel::TransferId id = channel.issue(now, bytes, notBefore);
  LinkTraffic &traffic = result.traffic[static_cast<unsigned>(tier)]
                                       [static_cast<unsigned>(direction)];
  traffic.bytes += bytes;
  ++traffic.transfers;
  issued.push_back({&channel, id, tier, direction, std::move(name), currentOp});
  return id;
}

void TimelineSimulator::advanceChannelsTo(double time) {
  for (auto &perTier : channels)
    for (std::unique_ptr<LinkChannel> &channel : perTier)
      if (channel)
        channel->advanceTo(time);
}

void TimelineSimulator::tryRelease(BufferId id) {
  BufferState &buffer = state[id];
  double freedAt = now;
  for (auto [channel, transfer] : buffer.offloads) {
    if (!channel->isFinished(transfer)) {
      buffer.releasePending = true;
      awaitingOffload.push_back(id);
      return;
    }
    freedAt = std::max(freedAt, channel->getEndTime(transfer));
  }
  release(id, freedAt);
}

void TimelineSimulator::releaseBuffersWhoseOffloadsFinished() {
  // Free in order of completion so that the memory samples stay ordered.
  SmallVector<std::pair<double, BufferId>> done;
  llvm::erase_if(awaitingOffload, [&](BufferId id) {
    double end = 0;
    for (auto [channel, transfer] : state[id].offloads) {
      if (!channel->isFinished(transfer))
        return false;
      end = std::max(end, channel->getEndTime(transfer));
    }
    done.push_back({end, id});
    return true;
  });
  llvm::sort(done);
  for (auto [end, id] : done)
    release(id, end);
}

/// Runs every link up to the compute clock and frees the buffers whose
/// offloads completed meanwhile, so that memory changes stay in time order.
void TimelineSimulator::catchUpWithTransfers() {
  advanceChannelsTo(now);
  releaseBuffersWhoseOffloadsFinished();
}

void TimelineSimulator::waitUntil(double time, std::string reason) {
  if (time <= now)
    return;
  ++result.stallCount;
  result.stallTime += time - now;
  addEvent(TimelineEvent::Kind::Stall, "compute", std::move(reason), now, time);
  now = time;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

void TimelineSimulator::runOp(Operation *op) {
  OpCost cost = estimateOpCost(op, target);
  if (cost.source == CostSource::None)
    return;
  // A link direction that is moving bytes reads or writes HBM at the link's
  // rate, however many transfers share it: that takes its hbmContention share
  // of the bandwidth away from memory-bound kernels.
  double shareLost = 0;
  for (auto [tierIndex, perTier] : llvm::enumerate(channels)) {
    for (std::unique_ptr<LinkChannel> &channel : perTier)
      if (channel && channel->isMovingBytes())
        shareLost +=
            target.getLink(static_cast<MemoryTier>(tierIndex))->hbmContention;
  }
  // A routed kernel costs what its picks make it, not the expectation.
  if (auto routed = dyn_cast<RoutedOp>(op)) {
    const RoutedDraw &draw = routedDraws[op];
    cost = estimateRoutedCost(routed, target, draw.assignments,
                              draw.picked.size());
  }
  double seconds = cost.getSecondsUnderContention(std::min(shareLost, 0.9));
  if (options.computeJitter > 0)
    seconds *= 1 + options.computeJitter * (2 * drawUniform() - 1);
  if (TimelineEvent *event =
          addEvent(TimelineEvent::Kind::Compute, "compute", describeOp(op), now,
                   now + seconds, cost.bytes)) {
    event->op = op;
    event->flops = cost.flops;
    event->memoryBound = cost.memorySeconds > cost.computeSeconds;
  }
  result.computeTime += seconds;
  now += seconds;
}

//===----------------------------------------------------------------------===//
// As written
//===----------------------------------------------------------------------===//

LogicalResult TimelineSimulator::runAsWritten() {
  for (BufferId id : liveness.getDefinedAt(liveness.getEntryPoint()))
    if (failed(allocate(id)))
      return failure();

  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    Operation *op = liveness.getOp(point);
    currentOp = op;
    catchUpWithTransfers();
    result.issueTimes[op] = now;
    for (BufferId id : liveness.getDefinedAt(point))
      if (failed(allocate(id)))
        return failure();

    if (auto offload = dyn_cast<OffloadOp>(op)) {
      const BufferInfo *buffer = liveness.lookup(offload.getSource());
      RemoteType remote = offload.getResult().getType();
      LinkChannel::TransferId transfer =
          issueTransfer(remote.getTier(), Direction::FromDevice,
                        remote.getSizeInBytes(), "offload " + describeOp(op));
      LinkChannel *channel =
          &getChannel(remote.getTier(), Direction::FromDevice);
      offloadOf[offload.getResult()] = {channel, transfer};
      if (buffer)
        state[buffer->id].offloads.push_back({channel, transfer});
    } else if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
      RemoteType remote = prefetch.getSource().getType();
      // A runtime orders a fetch after the store it reads (an event between
      // the queues): the copy starts once the store is expected to be done.
      // A schedule that relies on this is still wrong; ho-verify-schedule
      // reports it.
      double notBefore = 0;
      auto source = offloadOf.find(prefetch.getSource());
      if (source != offloadOf.end()) {
        auto [channel, transfer] = source->second;
        if (!channel->isFinished(transfer)) {
          pendingPremature.push_back({op, prefetch.getSource().getDefiningOp(),
                                      now, channel, transfer});
          LinkChannel lookahead = *channel;
          notBefore = lookahead.finish(transfer);
        }
      }
      LinkChannel::TransferId transfer = issueTransfer(
          remote.getTier(), Direction::ToDevice, remote.getSizeInBytes(),
          "prefetch " + describeOp(op), notBefore);
      prefetchOf[prefetch.getResult()] = {
          {&getChannel(remote.getTier(), Direction::ToDevice), transfer}};
    } else if (auto prefetch = dyn_cast<PrefetchRoutedOp>(op)) {
      issueRoutedPrefetch(prefetch);
    } else if (auto prefetch = dyn_cast<PrefetchBlocksOp>(op)) {
      issueBlockPrefetch(prefetch);
    } else if (auto offload = dyn_cast<OffloadSliceOp>(op)) {
      issueSliceOffload(offload);
    } else if (auto await = dyn_cast<AwaitOp>(op)) {
      auto it = prefetchOf.find(await.getFuture());
      if (it == prefetchOf.end())
        return await.emitError()
               << "awaits a future that no ho.prefetch in this function "
                  "issued";
      double landed = now;
      for (auto [channel, transfer] : it->second)
        landed = std::max(landed, channel->finish(transfer));
      if (landed > now)
        result.awaitStalls[op] = landed - now;
      waitUntil(landed, "await " + describeOp(op));
    } else if (auto wait = dyn_cast<WaitOffloadOp>(op)) {
      // The verifier guarantees an ho.offload or ho.offload_slice, which
      // ran before.
      auto [channel, transfer] = offloadOf.lookup(wait.getRemote());
      double stored = channel->finish(transfer);
      if (stored > now)
        result.awaitStalls[op] = stored - now;
      waitUntil(stored, "wait for offload " + describeOp(op));
    } else {
      if (auto routed = dyn_cast<RoutedOp>(op))
        fetchRoutedMisses(routed);
      else if (auto gather = dyn_cast<GatherBlocksOp>(op))
        fetchMissedBlocks(gather);
      runOp(op);
    }

    catchUpWithTransfers();
    for (BufferId id : liveness.getLastUsedAt(point))
      tryRelease(id);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

TimelineEvent *TimelineSimulator::addEvent(TimelineEvent::Kind kind,
                                           std::string track, std::string name,
                                           double start, double end,
                                           int64_t bytes) {
  if (!options.recordTimeline || end <= start)
    return nullptr;
  return &result.events.emplace_back(TimelineEvent{
      kind, std::move(track), std::move(name), start, end, bytes, currentOp});
}

void TimelineSimulator::finishRun() {
  // The step ends when the last transfer has landed, too: an offloaded KV
  // cache must be in its tier before the next step may read it.
  double end = now;
  for (auto &perTier : channels)
    for (std::unique_ptr<LinkChannel> &channel : perTier)
      if (channel)
        end = std::max(end, channel->drain());
  releaseBuffersWhoseOffloadsFinished();
  currentOp = nullptr;
  waitUntil(end, "drain transfers");
  for (BufferId id : liveness.getLastUsedAt(liveness.getExitPoint()))
    if (state[id].resident)
      release(id, now);
  result.stepTime = now;
  result.peakFootprintBytes = allocator->getHighWaterMark();
  for (const PendingPremature &premature : pendingPremature)
    result.prematurePrefetches.push_back(
        {premature.prefetch, premature.offload, premature.issueTime,
         premature.channel->getEndTime(premature.transfer)});
  for (const IssuedTransfer &transfer : issued)
    result.transfers.push_back({transfer.op, transfer.tier, transfer.direction,
                                transfer.channel->getIssueTime(transfer.id),
                                transfer.channel->getStartTime(transfer.id),
                                transfer.channel->getEndTime(transfer.id)});
  // Buffers alive at the end (results) end with the step.
  for (auto [id, lifetime] : llvm::enumerate(result.lifetimes))
    if (state[id].resident) {
      lifetime.end = now;
      lifetime.lastEvent = nextMemoryEvent++;
    }

  if (!options.recordTimeline)
    return;
  for (const IssuedTransfer &transfer : issued)
    result.events.push_back(
        {TimelineEvent::Kind::Transfer,
         describeTrack(transfer.tier, transfer.direction), transfer.name,
         transfer.channel->getStartTime(transfer.id),
         transfer.channel->getEndTime(transfer.id),
         transfer.channel->getBytes(transfer.id), transfer.op});
}

double TimelineSimulator::drawUniform() {
  // splitmix64: the same sequence on every platform, unlike the standard
  // library's distributions.
  uint64_t z = (jitterState += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (z >> 11) * 0x1.0p-53;
}

FailureOr<SimulationResult> TimelineSimulator::run() {
  jitterState = options.jitterSeed;
  if (failed(checkInput()) || failed(drawRouting()) ||
      failed(drawBlockSelections()))
    return failure();

  switch (options.allocator) {
  case AllocatorKind::Static: {
    DenseMap<BufferId, int64_t> offsets;
    for (const BufferInfo &buffer : liveness.getBuffers())
      if (std::optional<int64_t> offset = getAssignedOffset(buffer.root))
        offsets[buffer.id] = *offset;
    allocator =
        std::make_unique<StaticAllocator>(result.budget, std::move(offsets));
    break;
  }
  case AllocatorKind::Caching:
  case AllocatorKind::Expandable: {
    CachingAllocator::Options cachingOptions;
    cachingOptions.expandableSegments =
        options.allocator == AllocatorKind::Expandable;
    allocator =
        std::make_unique<CachingAllocator>(result.budget, cachingOptions);
    break;
  }
  case AllocatorKind::Ideal:
    allocator = std::make_unique<IdealAllocator>(result.budget);
    break;
  case AllocatorKind::Paged:
    allocator =
        std::make_unique<BlockAllocator>(result.budget, options.blockBytes);
    break;
  }
  recordMemory(0);

  LogicalResult ran = failure();
  switch (options.mode) {
  case ExecutionMode::AsWritten:
    ran = runAsWritten();
    break;
  case ExecutionMode::Reactive:
    ran = runReactive();
    break;
  case ExecutionMode::Paged:
    ran = runPaged();
    break;
  }
  if (failed(ran))
    return failure();
  finishRun();
  return std::move(result);
}

FailureOr<SimulationResult> ho::simulate(Block &body, const Target &target,
                                         const SimulationOptions &options) {
  return TimelineSimulator(body, target, options).run();
}

FailureOr<SimulationResult> ho::simulate(Block &body,
                                         const BufferLiveness &liveness,
                                         const Target &target,
                                         const SimulationOptions &options) {
  return TimelineSimulator(body, liveness, target, options).run();
}
