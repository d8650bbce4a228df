//===- OffloadPlan.h - Which tensors leave the device, and when -*- C++ -*-===//
//
// An offload plan says, for a function body, which device buffers spend
// which stretches of the step in a slower memory tier, and at which ops the
// transfers are issued and awaited. Planning policies (the HyperOffload
// planner and the baselines it is compared with) produce one; the
// ho-plan-offload pass writes it into the IR.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_PLANNING_OFFLOADPLAN_H
#define HYPEROFFLOAD_PLANNING_OFFLOADPLAN_H

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/Support/LogicalResult.h"

#include <optional>

namespace mlir {
namespace ho {

/// One stretch during which a buffer's data lives in a tier instead of on
/// the device, ending with a use that reads the fetched copy.
struct PlannedGap {
  BufferId buffer;
  /// The value whose later uses read the fetched copy, as its position in
  /// the buffer's `aliases` (so that the plan applies to a copy of the
  /// body too); none for an argument's stretch before its first use.
  std::optional<unsigned> carrier;
  MemoryTier tier;
  /// Store the data with `ho.offload` right after the op at this point:
  /// the last use before the gap, or an earlier op after the one that
  /// makes the data, so that the copy overlaps the reads in between. None
  /// when the tier already holds a current copy: a remote argument that
  /// nothing has written since it was fetched.
  std::optional<unsigned> storeAfter;
  /// Compute waits for that store right before the op at this point
  /// (`ho.wait_offload`): the budget needs the memory there before the store
  /// would complete on its own.
  std::optional<unsigned> waitBefore;
  /// The data goes back to the caller in the tier instead: the result
  /// becomes `!ho.remote`, and nothing is fetched (`nextUse` is exit).
  bool returnsRemote = false;
  /// Issue `ho.prefetch` right before the op at this point...
  unsigned prefetchBefore;
  /// ...and `ho.await` right before the op at this point, the next use.
  unsigned nextUse;
};

/// A device argument the caller keeps in a tier: it is passed as
/// `!ho.remote` and fetched before its first use; results that alias it are
/// stored back and returned as `!ho.remote` too.
struct RemoteArgument {
  unsigned index;
  MemoryTier tier;
  /// Compute waits right before the op at this point for the store that
  /// takes a returned result aliasing the argument back to the tier (the
  /// budget needs its memory there before the store would complete).
  std::optional<unsigned> storeBackWaitBefore = std::nullopt;
};

struct OffloadPlan {
  SmallVector<RemoteArgument> remoteArguments;
  /// Sorted by buffer, then by next use.
  SmallVector<PlannedGap> gaps;
  /// The planner's own estimate of the peak live bytes with the plan, and
  /// where it is (a program point of the unplanned body).
  int64_t estimatedPeak = 0;
  unsigned estimatedPeakPoint = 0;

  /// Whether the plan moves nothing.
  bool isEmpty() const { return remoteArguments.empty() && gaps.empty(); }
};

enum class OffloadPolicy {
  /// The HyperOffload planner: cost-model timing on link timelines, tiers
  /// by cost, only as much offload as the budget needs.
  HyperOffload,
  /// Always offload every eligible tensor, prefetching right before use.
  Naive,
  /// MindSpore's shipped heuristic: distances counted in ops.
  Distance,
  /// ZeRO-Infinity's parameter prefetch: the weights of the next few layers
  /// are fetched when a layer starts, whatever they cost.
  Window,
  /// PyTorch's compiled activation offloading: activations saved for the
  /// backward pass leave after their last forward use and come back just
  /// early enough by one scalar bandwidth.
  PT2,
  /// The fastest plan that fits, searched on the simulator (ExactPlan.h):
  /// for small functions, and as the planner's oracle.
  Exact,
};

llvm::StringRef stringifyOffloadPolicy(OffloadPolicy policy);

/// How far the exact search goes (ExactPlan.h).
struct ExactSearchLimits {
  /// Functions with more gaps than this are not searched.
  unsigned maxGaps = 24;
  /// The search stops after simulating this many plans (a count rather than
  /// a clock, so that a result is the same on every machine).
  uint64_t maxSimulations = 50000;
  /// Cut partial plans by the search's bounds. Off, every plan is
  /// enumerated: how tests check that the bounds never cut the optimum.
  bool prune = true;
};

struct PlannerOptions {
  OffloadPolicy policy = OffloadPolicy::HyperOffload;
  /// Device bytes the plan must fit in.
  int64_t budget = 0;
  /// Distance policy knobs (MindSpore's defaults).
  unsigned distanceMinGap = 100;
  unsigned distanceMaxTensors = 100;
  unsigned distancePrefetchLead = 50;
  /// Window policy: fetch a layer's weights when the layer this many layers
  /// before it starts.
  unsigned windowLayers = 2;
  /// Window policy as ZeRO-3 partitions parameters: every weight lives in
  /// the tier, whether an op reads it this step or not (one that none
  /// reads stays there), except weights of fewer than
  /// `windowPersistenceThreshold` elements, which stay on the device
  /// (DeepSpeed's stage3_param_persistence_threshold, 1e5 by default).
  bool windowPartitionAll = false;
  /// PT2 policy: hoist each reload until the compute before its use covers
  /// the copy (activation_reload_prefetch), and copy on a stream of their
  /// own (activation_offload_separate_stream). PyTorch ships both off: each
  /// offload and reload then runs on the compute stream and blocks it.
  bool pt2ReloadPrefetch = true;
  /// HyperOffload policy: while its plan stalls, also plan the rewritten
  /// programs (argument updates moved early, weights in column blocks).
  /// Without, it only schedules the program as written.
  bool allowRewrites = true;
  /// HyperOffload policy: while its plan stalls, also try the plans one
  /// decision away on the simulator, and keep the fastest that fits
  /// (PlanSelection.h).
  bool localSearch = true;
  /// Baselines (naive, distance, window, pt2): spread their copies over
  /// every link the target has, each on the link where it would complete
  /// first, instead of the fastest link alone as their systems do.
  bool everyLink = false;
  bool pt2SeparateStream = true;
  int64_t windowPersistenceThreshold = 100000;
  /// Window policy, as the HyperOffload planner uses it: the weights first
  /// used in this many leading layers stay on the device, and each fetch is
  /// issued as early as the budget allows. ZeRO-Infinity streams every
  /// layer at the window (0, false).
  unsigned windowResidentLayers = 0;
  bool windowHoistFetches = false;
  /// Window policy, as the planner uses it: the resident layers spread
  /// evenly over the step, the first included, rather than the leading
  /// ones. A link that fetches ahead while a resident layer runs then holds
  /// one stretch's worth of early copies at a time, not all of them at
  /// once, which leaves room for more resident layers.
  bool windowSpreadResidents = false;
  /// Window policy: issue each fetch right before its use instead of at a
  /// layer's start (before any hoisting), so that only the tensor in use
  /// needs room, not its whole layer.
  bool windowFetchAtUse = false;
  /// Window policy, with `windowHoistFetches`: issue each fetch at the last
  /// op before its link would run out of work, in the order of use on each
  /// link, rather than as early as the budget allows. A fetch queued behind
  /// others holds its buffer while it waits; pacing leaves that room to
  /// resident layers when the links, not compute, bound the step.
  bool windowPaceFetches = false;
  /// HyperOffload policy: a gap that must wait for its store waits before
  /// the first op in the gap over the budget, not only before the peak.
  bool earlyStoreWaits = true;
  /// HyperOffload policy: an argument's first stretch may be timed apart
  /// from the peak with every choice that allows stalls, not only as a last
  /// resort. Moves more weights on slow links; ho-plan-offload tries it as
  /// an alternative.
  bool retimeLeadingStretches = false;
  /// HyperOffload policy, as a last resort: the plan with the least device
  /// memory, whatever it costs in time. Every gap is offloaded to the
  /// fastest tier, stored right after its use, and fetched right before
  /// the next use. Compute waits for a store before the first op its
  /// estimate puts over the budget, or, with `waitAfterEveryStore`, before
  /// the very next op: then each op has little more than what it reads and
  /// writes on the device, whatever the timing. ho-plan-offload takes it
  /// when no other plan fits the budget.
  bool leastMemory = false;
  /// With `leastMemory`: wait for every store before the next op.
  bool waitAfterEveryStore = false;
  /// Exact policy: how far the search goes.
  ExactSearchLimits exactLimits;
};

/// Plans `body` (a function body) under `options`, for every policy but
/// the exact one, which is searched on the simulator (ExactPlan.h).
OffloadPlan planOffload(Block &body, const Target &target,
                        const PlannerOptions &options);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_OFFLOADPLAN_H
