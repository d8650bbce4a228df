//===- Simulator.h - Deterministic timeline of a scheduled function -*- C++
//-*-===//
//
// Scores a function body on a target: one compute stream runs the ops in
// block order, transfers run on the queues of their link, `ho.await` stalls
// compute until its prefetch has landed, and an allocator model places every
// device buffer. The same input always gives the same numbers, so policies
// compare exactly. docs/CostModel.md states the semantics in full.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_SIMULATOR_H
#define HYPEROFFLOAD_SIMULATION_SIMULATOR_H

#include "hyperoffload/Simulation/Routing.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Block.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

class BufferLiveness;

enum class AllocatorKind {
  /// Offsets assigned by a plan (`ho.offsets` / `ho.offset` attributes).
  Static,
  /// PyTorch's caching allocator as it ships: best fit within cached
  /// segments, never moves a live tensor, releases its cache and retries
  /// when a request fails, then runs out of memory.
  Caching,
  /// The caching allocator with expandable segments: physical pages mapped
  /// on demand and remapped after a release, as a VMM pool (MindSpore's)
  /// defragments.
  Expandable,
  /// No fragmentation: a request fits whenever enough bytes are free. The
  /// bound every real allocator is measured against.
  Ideal,
  /// Fixed-size blocks, any of which serves any request (vLLM's paged KV
  /// cache): no fragmentation outside a block, each buffer rounded up to
  /// whole blocks.
  Paged,
};

enum class ExecutionMode {
  /// Run the IR as written: its transfers are the schedule.
  AsWritten,
  /// No plan: a runtime fetches tensors on demand and evicts the least
  /// recently used ones under memory pressure, blocking compute each time.
  Reactive,
  /// No plan, vLLM's PagedAttention: KV caches (arguments with role
  /// kv_cache) in a block pool sized beside the weights and the
  /// activations' peak; caches that do not fit are loaded layer-wise ahead
  /// of use by a KV connector and only written blocks go back. Needs the
  /// paged allocator.
  Paged,
};

struct SimulationOptions {
  AllocatorKind allocator = AllocatorKind::Caching;
  ExecutionMode mode = ExecutionMode::AsWritten;
  /// Device bytes the run may use; 0 means the target's HBM capacity.
  int64_t budget = 0;
  /// Keep every op, transfer and memory change for traces and plots.
  bool recordTimeline = true;
  /// The block size of the paged allocator: 16 tokens of one LLaMA3-8B
  /// layer's keys and values by default, vLLM's default block.
  int64_t blockBytes = 64 * 1024;
  /// Each op's time is scaled by 1 + u, u drawn uniformly from
  /// [-computeJitter, computeJitter] by a generator seeded with
  /// `jitterSeed`, one draw per op in block order: the same seed gives the
  /// same run.
  double computeJitter = 0;
  uint64_t jitterSeed = 1;
  /// Static plans: count a buffer placed over a live one (a plan whose
  /// arena reuse relied on a copy finishing in time) and go on, rather than
  /// fail with an error at the buffer.
  bool continueOnOverlap = false;
  /// Which experts each `ho.routed` op picks in this run, and how well an
  /// early prediction guesses them.
  RoutingOptions routing;
};

enum class Direction { ToDevice = 0, FromDevice = 1 };

/// One interval on a track of the timeline.
struct TimelineEvent {
  enum class Kind { Compute, Stall, AllocatorStall, Transfer, HostOverhead };
  Kind kind;
  /// "compute", or the link direction such as "pool -> device".
  std::string track;
  std::string name;
  double start;
  double end;
  int64_t bytes = 0;
  /// The op it is about: the one computed or waiting, or the one that
  /// issued a transfer; null at entry and exit.
  Operation *op = nullptr;
  /// Compute: the op's FLOPs, and whether its bytes took longer than its
  /// FLOPs at the roofline.
  int64_t flops = 0;
  bool memoryBound = false;
};

/// Device memory at one instant, just after one buffer changed.
struct MemorySample {
  double time;
  /// Bytes of live buffers.
  int64_t liveBytes;
  /// The allocator's high-water mark so far: live bytes plus fragmentation.
  int64_t footprintBytes;
  /// The value that defines the buffer that changed, and the bytes of it
  /// now on the device (0 once released or evicted); null at entry.
  Value buffer;
  int64_t bufferBytes = 0;
};

struct LinkTraffic {
  int64_t bytes = 0;
  unsigned transfers = 0;
};

/// When one buffer was allocated and released. `firstEvent` and `lastEvent`
/// number the allocations and releases of the run in order, so that two
/// buffers are live at the same time exactly when their event intervals
/// intersect.
struct BufferLifetime {
  double start = 0;
  double end = 0;
  uint64_t firstEvent = 0;
  uint64_t lastEvent = 0;
};

/// A prefetch issued while the offload that produced its source was still
/// copying: it would read a copy that has not arrived.
struct PrematurePrefetch {
  Operation *prefetch;
  Operation *offload;
  double issueTime;
  double offloadEnd;
};

/// One copy over a link, as it ran.
struct TransferRecord {
  /// The `ho.offload` or `ho.prefetch` that issued it, or the op a runtime
  /// policy was running; null for copies at entry.
  Operation *op;
  MemoryTier tier;
  Direction direction;
  double issueTime;
  /// When it got one of the link's queues, and when its last byte landed.
  double startTime;
  double endTime;
};

/// One move of the reactive runtime: what it did with a buffer before an op
/// ran (or, for `StartResident`, at entry).
struct RuntimeMove {
  enum class Kind {
    /// An argument placed on the device at entry.
    StartResident,
    /// A blocking copy of a buffer back to the device.
    Fetch,
    /// A blocking copy out to the tier, then the buffer released.
    Evict,
    /// The buffer released without a copy: its tier copy is current.
    Drop,
  };
  Kind kind;
  /// The op about to run; null at entry.
  Operation *before;
  /// In a BufferLiveness of the simulated block at the target's allocation
  /// granularity.
  unsigned buffer;
};

struct SimulationResult {
  /// From the first op to the end of the last op or transfer, in seconds.
  double stepTime = 0;
  /// Time the compute stream spent running ops.
  double computeTime = 0;
  /// Compute waiting for transfers: awaits, and a runtime's blocking copies
  /// and their host overhead; plus the tail when transfers outlast compute.
  double stallTime = 0;
  unsigned stallCount = 0;
  /// Of the stall time, host-side issue and synchronise overhead.
  double hostOverheadTime = 0;
  /// Requests a runtime allocator served only after releasing its cache
  /// (and remapping pages); compute waits for each.
  unsigned allocatorStalls = 0;
  double allocatorStallTime = 0;
  /// Cached bytes released to the driver, and pages mapped again.
  int64_t releasedBytes = 0;
  int64_t remappedPages = 0;
  /// Runtime modes: the reactive runtime's evictions and fetches, the paged
  /// connector's stores and loads.
  unsigned evictions = 0;
  unsigned fetches = 0;
  /// Reactive mode: every move of the runtime, in the order it made them.
  std::vector<RuntimeMove> runtimeMoves;

  int64_t budget = 0;
  /// Peak bytes of live buffers.
  int64_t peakLiveBytes = 0;
  /// Peak device memory the allocator needed, fragmentation included.
  int64_t peakFootprintBytes = 0;
  /// Whether some allocation did not fit in the budget, and the first op
  /// where that happened (null for function arguments).
  bool outOfMemory = false;
  Operation *firstOutOfMemoryOp = nullptr;
  /// With the ideal allocator, which places it anyway: how many live bytes
  /// that first allocation left over the budget.
  int64_t firstOutOfMemoryExcess = 0;
  /// With continueOnOverlap: buffers a static plan placed over a live one,
  /// and the op that defines the first.
  unsigned overlaps = 0;
  Operation *firstOverlapOp = nullptr;
  /// Paged mode: the weights and other non-KV arguments alone exceed the
  /// budget, so vLLM would not start (the run goes on to report its peak).
  bool notRunnable = false;
  /// `ho.routed` ops: experts picked on this device, how many of them were
  /// on the device when the kernel started (resident, or staged by a
  /// prefetch), and how many compute waited for.
  unsigned expertsPicked = 0;
  unsigned expertsHit = 0;
  unsigned expertsFetchedOnDemand = 0;
  /// `ho.gather_blocks` ops: blocks picked, how many were on the device when
  /// the gather started, and how many compute waited for.
  unsigned blocksSelected = 0;
  unsigned blocksHit = 0;
  unsigned blocksFetchedOnDemand = 0;

  /// Traffic per tier (indexed by MemoryTier) and direction.
  std::array<std::array<LinkTraffic, 2>, 3> traffic;

  std::vector<TimelineEvent> events;
  std::vector<MemorySample> memory;
  /// Indexed by BufferId of the BufferLiveness of the simulated block.
  std::vector<BufferLifetime> lifetimes;
  std::vector<PrematurePrefetch> prematurePrefetches;
  /// Every copy over a link, in the order they were issued.
  std::vector<TransferRecord> transfers;
  /// When each op of the body was issued on the compute stream.
  llvm::DenseMap<Operation *, double> issueTimes;
  /// How long compute waited at each `ho.await` or `ho.wait_offload` that
  /// stalled.
  llvm::DenseMap<Operation *, double> awaitStalls;

  const LinkTraffic &getTraffic(MemoryTier tier, Direction direction) const {
    return traffic[static_cast<unsigned>(tier)]
                  [static_cast<unsigned>(direction)];
  }
};

/// Simulates `body` (a function body: one block) on `target`. Emits an error
/// at the offending op and fails when the input cannot be simulated: device
/// tensors of unknown size, a transfer to a tier the target lacks, a static
/// plan with a missing or overlapping offset, explicit transfers in a
/// runtime mode, or paged mode on another allocator.
FailureOr<SimulationResult> simulate(Block &body, const Target &target,
                                     const SimulationOptions &options);
/// The same on a liveness analysis of `body` already made at the target's
/// allocation granularity, for a caller that also lays out the run's
/// buffers from it.
FailureOr<SimulationResult> simulate(Block &body,
                                     const BufferLiveness &liveness,
                                     const Target &target,
                                     const SimulationOptions &options);

llvm::StringRef stringifyAllocatorKind(AllocatorKind kind);
llvm::StringRef stringifyExecutionMode(ExecutionMode mode);
llvm::StringRef stringifyDirection(Direction direction);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_SIMULATOR_H
