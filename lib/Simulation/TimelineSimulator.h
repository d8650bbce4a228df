//===- TimelineSimulator.h - The simulator's state and steps ----*- C++ -*-===//
//
// Private to the simulation library: the state of one simulated run and the
// steps that advance it, shared by the as-written walk (Simulator.cpp) and
// the runtime models that decide transfers themselves (Runtimes.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_SIMULATION_TIMELINESIMULATOR_H
#define HYPEROFFLOAD_LIB_SIMULATION_TIMELINESIMULATOR_H

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Simulation/DeviceAllocator.h"
#include "hyperoffload/Simulation/LinkChannel.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <optional>
#include <set>

namespace mlir {
namespace ho {
namespace detail {

/// A readable name for an op on a timeline: its location's name when it has
/// one ("layer 3 / attention"), else its kind or op name.
std::string describeOp(Operation *op);
/// A readable name for the value that owns a buffer: its location's name,
/// "argument #i", or its defining op.
std::string describeValue(Value value);
std::string describeTrack(MemoryTier tier, Direction direction);

/// The links a runtime splits a copy of `bytes` over, with the bytes each
/// takes: the k fastest links for the k whose estimated time (issue
/// overheads one after the other, then the slowest share's latency and
/// bytes) is least. Shares are proportional to bandwidth, so that they end
/// together.
SmallVector<std::pair<MemoryTier, int64_t>, 3>
splitOverLinks(const Target &target, Direction direction, int64_t bytes);

/// What the simulator knows about one buffer during the run.
struct BufferState {
  bool resident = false;
  bool dead = false;
  /// As written: offloads of the buffer that may still be reading it.
  SmallVector<std::pair<LinkChannel *, LinkChannel::TransferId>, 1> offloads;
  /// As written: the last use has passed; free once the offloads are done.
  bool releasePending = false;
  /// Reactive: whether the tier holds an up-to-date copy.
  bool hasTierCopy = false;
  /// Reactive: the program point of the last op that touched the buffer.
  unsigned lastTouched = 0;
  /// Paged: a KV cache; how many of its blocks are on the device, and how
  /// many of those the step wrote. An offloaded one lives in the tier and
  /// is loaded for the step by the KV connector (`loads`).
  bool paged = false;
  bool offloaded = false;
  int64_t residentBlocks = 0;
  int64_t dirtyBlocks = 0;
  SmallVector<std::pair<LinkChannel *, LinkChannel::TransferId>, 2> loads;
};

/// A transfer in flight or done, to be put on the timeline at the end.
struct IssuedTransfer {
  LinkChannel *channel;
  LinkChannel::TransferId id;
  MemoryTier tier;
  Direction direction;
  std::string name;
  /// The op being run when it was issued; null for transfers at entry.
  Operation *op;
};

class TimelineSimulator {
public:
  TimelineSimulator(Block &body, const Target &target,
                    const SimulationOptions &options);
  /// Runs on a liveness analysis of `body` already made, which the runs of
  /// many draws of one body share.
  TimelineSimulator(Block &body, const BufferLiveness &liveness,
                    const Target &target, const SimulationOptions &options);

  FailureOr<SimulationResult> run();

private:
  void initialize();
  LogicalResult checkInput();
  LogicalResult runAsWritten();
  LogicalResult runReactive();
  LogicalResult runPaged();
  void finishRun();

  // Memory.
  LogicalResult allocate(BufferId id);
  void noteOutOfMemory();
  void release(BufferId id, double time);
  /// Records the memory after buffer `id` changed to `bytes` on the device.
  void recordMemory(double time, std::optional<BufferId> id = std::nullopt,
                    int64_t bytes = 0);
  Location getBufferLoc(BufferId id) const;

  // Transfers.
  LinkChannel &getChannel(MemoryTier tier, Direction direction);
  LinkChannel::TransferId issueTransfer(MemoryTier tier, Direction direction,
                                        int64_t bytes, std::string name,
                                        double notBefore = 0);
  void advanceChannelsTo(double time);
  void releaseBuffersWhoseOffloadsFinished();
  void catchUpWithTransfers();
  void tryRelease(BufferId id);
  void waitUntil(double time, std::string reason);

  // Routed experts.
  /// Draws the picks of every ho.routed op and what each
  /// ho.prefetch_routed fetches.
  LogicalResult drawRouting();
  /// Whether `op` reads its operand `index` in this run: not an expert its
  /// router did not pick.
  bool readsOperand(Operation *op, unsigned index) const;
  void issueRoutedPrefetch(PrefetchRoutedOp prefetch);
  /// Fetches the picked remote experts the slots lack, and counts hits.
  void fetchRoutedMisses(RoutedOp routed);
  /// Runtime modes: counts the picked experts, those on the device now as
  /// hits and the others as fetched on demand.
  void countPickedExperts(RoutedOp routed);

  // Selected blocks.
  /// Draws the picks of every ho.gather_blocks op and what each
  /// ho.prefetch_blocks fetches.
  LogicalResult drawBlockSelections();
  void issueBlockPrefetch(PrefetchBlocksOp prefetch);
  /// Fetches the picked blocks of a remote source that the staged ones
  /// lack, and counts hits.
  void fetchMissedBlocks(GatherBlocksOp gather);
  void issueSliceOffload(OffloadSliceOp offload);

  // Compute.
  void runOp(Operation *op);
  /// The next number in [0, 1) of the jitter's generator.
  double drawUniform();

  // Reactive runtime.
  void touchOperands(Operation *op, unsigned point,
                     llvm::SmallDenseSet<BufferId> &pinned);
  void makeRoom(int64_t bytes, const llvm::SmallDenseSet<BufferId> &pinned);
  void evict(BufferId id);
  /// A copy compute waits for, split over the links as splitOverLinks
  /// says, each share paying its link's host issue overhead.
  void blockingTransfer(Direction direction, int64_t bytes, std::string name);

  // Paged runtime.
  BlockAllocator &getBlockAllocator();
  void markPagedBuffers();
  void setResidentBlocks(BufferId id, int64_t blocks);
  /// The most blocks the buffers other than KV caches hold at once.
  int64_t getPeakUnpagedBlocks() const;
  /// The KV connector: loads an offloaded cache whole (once), waits for
  /// it, and stores back the blocks the step wrote, freeing the rest.
  void loadCache(BufferId id);
  void waitForCache(BufferId id);
  void storeDirtyBlocks(BufferId id);

  /// Keeps `residentByRecency` in step with the buffer's residency.
  void setResident(BufferId id, bool resident);

  /// Records an event about the op being run, when the run keeps its
  /// timeline; returns it, or null.
  TimelineEvent *addEvent(TimelineEvent::Kind kind, std::string track,
                          std::string name, double start, double end,
                          int64_t bytes = 0);

  Block &body;
  const Target &target;
  SimulationOptions options;
  /// The analysis made for this run alone, if no shared one was given.
  std::optional<BufferLiveness> ownLiveness;
  const BufferLiveness &liveness;
  std::unique_ptr<DeviceAllocator> allocator;
  std::array<std::array<std::unique_ptr<LinkChannel>, 2>, 3> channels;
  SmallVector<BufferState> state;
  /// Resident buffers, least recently touched first.
  std::set<std::pair<unsigned, BufferId>> residentByRecency;
  /// The copies behind each future: one for ho.prefetch, one per tier with
  /// picked experts (or none) for ho.prefetch_routed.
  DenseMap<Value,
           SmallVector<std::pair<LinkChannel *, LinkChannel::TransferId>, 1>>
      prefetchOf;
  std::vector<IssuedTransfer> issued;
  SmallVector<BufferId> awaitingOffload;
  SimulationResult result;
  uint64_t nextMemoryEvent = 0;
  /// The offload that produced each remote value, for its prefetches.
  DenseMap<Value, std::pair<LinkChannel *, LinkChannel::TransferId>> offloadOf;
  struct PendingPremature {
    Operation *prefetch;
    Operation *offload;
    double issueTime;
    LinkChannel *channel;
    LinkChannel::TransferId transfer;
  };
  SmallVector<PendingPremature> pendingPremature;
  /// This run's picks of a ho.routed op: global ids of this device's
  /// experts, `top` per token, and the local indices of the distinct ones.
  struct RoutedDraw {
    /// As every device sees them, and shifted to this one's experts.
    std::vector<int64_t> globalPicks;
    std::vector<int64_t> picks;
    SmallVector<unsigned> picked;
    int64_t assignments = 0;
  };
  DenseMap<Operation *, RoutedDraw> routedDraws;
  /// The global ids each ho.prefetch_routed fetches.
  DenseMap<Operation *, SmallVector<int64_t>> routedFetches;
  /// The ids in the slots each routed future fills.
  DenseMap<Value, SmallVector<int64_t>> stagedExperts;
  /// This run's picks of each ho.gather_blocks op, `k` block indices per
  /// row, and the blocks each ho.prefetch_blocks future holds, alike.
  DenseMap<Operation *, std::vector<int64_t>> blockPicks;
  DenseMap<Value, std::vector<int64_t>> blockFetches;
  Operation *currentOp = nullptr;
  double now = 0;
  uint64_t jitterState = 0;
};

} // namespace detail
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_SIMULATION_TIMELINESIMULATOR_H
