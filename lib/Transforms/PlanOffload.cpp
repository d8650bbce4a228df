//===- PlanOffload.cpp - Write an offload plan into the IR ----------------===//
//
// Plans come from the analysis (planOffload); PlanWriter turns one into IR:
// transfers at the planned points, later uses switched to the fetched
// copies, and remote arguments and results in the function type.
//
// The pass also checks plans on the simulator before it keeps one (refit to
// the budget, delay prefetches past their stores, compare group
// placements). That selection belongs in a planning library above the
// simulator; it lives here because the simulator depends on the analyses.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "StaticPlan.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::ho {
#define GEN_PASS_DEF_PLANOFFLOAD
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
struct PlanOffloadPass : public ho::impl::PlanOffloadBase<PlanOffloadPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// `plan` written into a copy of a function as the pass writes it, and
  /// simulated in a budget on the ideal allocator, with the arena its static
  /// memory plan needs.
  struct Trial {
    OwningOpRef<func::FuncOp> planned;
    FailureOr<SimulationResult> result;
    int64_t arena = 0;
  };
  Trial runTrial(func::FuncOp function, const Target &target, int64_t budget,
                 const OffloadPlan &plan);

  struct FittedPlan {
    /// What it was planned with: the budget may be lowered.
    PlannerOptions options;
    OffloadPlan plan;
    /// The trial of `plan` itself in the original budget, when one ran.
    std::optional<Trial> trial;
  };
  FittedPlan fitPlanToBudget(func::FuncOp function, const Target &target,
                             PlannerOptions options);
  struct ChosenPlan {
    OffloadPlan plan;
    /// Its trial, when one ran: the planned copy is what the pass writes.
    std::optional<Trial> trial;
  };
  /// The fastest plan of the window policy in `streaming` with some
  /// layers' weights resident, that fits `budget`.
  std::optional<ChosenPlan> chooseResidentLayers(func::FuncOp function,
                                                 const Target &target,
                                                 int64_t budget,
                                                 PlannerOptions streaming);
  /// The fastest variant of the least-memory plan that fits, else the one
  /// with the least memory.
  ChosenPlan chooseLeastMemoryPlan(func::FuncOp function, const Target &target,
                                   const PlannerOptions &options);
  /// The plan the pass writes for `function` under its options.
  ChosenPlan choosePlan(func::FuncOp function, const Target &target,
                        const PlannerOptions &options);
  /// Writes `chosen` into `function`; returns whether the simulated run
  /// fits the budget (always false for the baselines, which do not check).
  bool writeChosenPlan(func::FuncOp function, const Target &target,
                       int64_t budget, ChosenPlan chosen);
  void delayPrematurePrefetches(func::FuncOp function, const Target &target,
                                int64_t budget);
  /// Makes compute wait for the stores still copying where the run first
  /// overflows the budget, and repeats; returns whether the run then fits.
  bool waitForStoresAtOverflows(func::FuncOp function, const Target &target,
                                int64_t budget);
  struct PlanScore {
    double stepTime;
    double stallTime;
  };
  /// How a trial ran, when its static memory plan fits `budget` and no
  /// prefetch starts before its store completes.
  static std::optional<PlanScore> scoreTrial(const Trial &trial,
                                             int64_t budget);
  ChosenPlan preferFasterGroupPlacement(func::FuncOp function,
                                        const Target &target,
                                        PlannerOptions options,
                                        FittedPlan fitted);
};

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
  }

  void makeArgumentsRemote(ArrayRef<RemoteArgument> arguments);
  void writeGaps(ArrayRef<PlannedGap> gaps);
  /// Writes the gaps `carrier` carries across, sorted by next use.
  void writeCarriedGaps(ArrayRef<PlannedGap> gaps, Value carrier);
  /// Writes the store (if any), prefetch and await of `gap`, whose data is
  /// in `value` on the device; returns the fetched copy.
  Value writeTransfers(const PlannedGap &gap, const BufferInfo &buffer,
                       Value value);
  void storeRemoteResults();
  void updateFunctionType();

private:
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
  /// The buffer whose data each copy fetched for the body holds.
  DenseMap<Value, BufferId> fetchedBuffer;
};
} // namespace

void PlanWriter::makeArgumentsRemote(ArrayRef<RemoteArgument> arguments) {
  for (const RemoteArgument &remote : arguments) {
    BlockArgument arg = function.getArgument(remote.index);
    auto tensor = cast<TensorType>(arg.getType());
    arg.setType(RemoteType::get(tensor, remote.tier));
    remoteTier[liveness.lookup(arg)->id] = remote.tier;
  }
}

void PlanWriter::writeGaps(ArrayRef<PlannedGap> gaps) {
  // Sorted by buffer, then by next use: a buffer's gaps come together, and
  // those a value carries follow each other.
  while (!gaps.empty()) {
    const PlannedGap &first = gaps.front();
    // An argument's stretch before its first use goes with the gaps the
    // argument itself (its root, alias 0) carries.
    unsigned carrier = first.carrier.value_or(0);
    size_t count = llvm::find_if(gaps,
                                 [&](const PlannedGap &gap) {
                                   return gap.buffer != first.buffer ||
                                          gap.carrier.value_or(0) != carrier;
                                 }) -
                   gaps.begin();
    writeCarriedGaps(gaps.take_front(count),
                     liveness.getBuffer(first.buffer).aliases[carrier]);
    gaps = gaps.drop_front(count);
  }
}

void PlanWriter::writeCarriedGaps(ArrayRef<PlannedGap> gaps, Value carrier) {
  const BufferInfo &buffer = liveness.getBuffer(gaps.front().buffer);
  // Every use of the data reads the copy the last gap before it fetched.
  // Sorting the uses once, by point, hands each gap its own without looking
  // at the others again.
  SmallVector<std::pair<unsigned, OpOperand *>> uses;
  for (OpOperand &use : carrier.getUses())
    uses.push_back({pointOf(use.getOwner()), &use});
  llvm::stable_sort(uses, llvm::less_first());
  auto firstUseAt = [&](unsigned point) {
    return llvm::partition_point(
        uses, [&](const auto &use) { return use.first < point; });
  };

  // The device value the next gap starts from; for a remote argument, the
  // remote value itself until its first fetch.
  Value value = carrier;
  for (auto [index, gap] : llvm::enumerate(gaps)) {
    Value fetched = writeTransfers(gap, buffer, value);
    auto end = index + 1 < gaps.size() ? firstUseAt(gaps[index + 1].nextUse)
                                       : uses.end();
    for (auto use = firstUseAt(gap.nextUse); use != end; ++use)
      use->second->set(fetched);
    // A copy fetched for the return itself is what the caller gets.
    if (gap.nextUse != liveness.getExitPoint())
      fetchedBuffer[fetched] = buffer.id;
    value = fetched;
  }
}

Value PlanWriter::writeTransfers(const PlannedGap &gap,
                                 const BufferInfo &buffer, Value value) {
  Location loc = opAt(gap.nextUse)->getLoc();
  // The data to fetch: a fresh store of the device value, or the copy the
  // tier already holds (a remote argument nothing has written since).
  Value source = buffer.root;
  if (gap.storeAfter) {
    Operation *last = gap.storeAfter == 0 ? nullptr : opAt(*gap.storeAfter);
    if (last)
      builder.setInsertionPointAfter(last);
    else
      builder.setInsertionPointToStart(&function.getBody().front());
    source = OffloadOp::create(builder, value.getLoc(), value, gap.tier);
    if (gap.waitBefore) {
      // Ahead of the prefetches and awaits already placed before that op:
      // the memory the store frees is what their copies land in.
      Operation *needy = opAt(*gap.waitBefore);
      Operation *before = needy;
      while (isa_and_nonnull<AwaitOp, PrefetchOp>(before->getPrevNode()))
        before = before->getPrevNode();
      builder.setInsertionPoint(before);
      WaitOffloadOp::create(builder, needy->getLoc(), source);
    }
  }
  // The caller gets the stored copy itself.
  if (gap.returnsRemote)
    return source;
  // Ahead of the awaits already placed before that op: a prefetch issued
  // after another transfer's await would wait for it for nothing.
  Operation *before = opAt(gap.prefetchBefore);
  while (isa_and_nonnull<AwaitOp>(before->getPrevNode()))
    before = before->getPrevNode();
  builder.setInsertionPoint(before);
  Value future = PrefetchOp::create(builder, loc, source);
  builder.setInsertionPoint(opAt(gap.nextUse));
  return AwaitOp::create(builder, loc, future);
}

void PlanWriter::storeRemoteResults() {
  // A result that aliases a remote argument goes back to the argument's
  // tier, right after its last use in the body.
  Operation *terminator = function.getBody().front().getTerminator();
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value value = operand.get();
    if (!isa<TensorType>(value.getType()))
      continue;
    std::optional<BufferId> buffer;
    if (const BufferInfo *info = liveness.lookup(value))
      buffer = info->id;
    else if (auto fetched = fetchedBuffer.find(value);
             fetched != fetchedBuffer.end())
      buffer = fetched->second;
    if (!buffer)
      continue;
    auto tier = remoteTier.find(*buffer);
    if (tier == remoteTier.end())
      continue;
    // Uses inside a region count where their op is in the body.
    Block &body = function.getBody().front();
    Operation *last = value.getDefiningOp();
    for (Operation *user : value.getUsers()) {
      Operation *owner = body.findAncestorOpInBlock(*user);
      if (owner && owner != terminator &&
          (!last || last->isBeforeInBlock(owner)))
        last = owner;
    }
    if (last)
      builder.setInsertionPointAfter(last);
    else
      builder.setInsertionPointToStart(&function.getBody().front());
    operand.set(
        OffloadOp::create(builder, value.getLoc(), value, tier->second));
  }
}

void PlanWriter::updateFunctionType() {
  Block &body = function.getBody().front();
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
}

void PlanOffloadPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PassTargetAndBudget> loaded =
      loadPassTargetAndBudget(module, hw, hwOverrides, budget);
  if (failed(loaded))
    return signalPassFailure();
  const Target &target = loaded->target;
  if (leastMemory && policy != OffloadPolicy::HyperOffload) {
    module.emitError() << "least-memory is a plan of policy=hyperoffload, not "
                       << stringifyOffloadPolicy(policy);
    return signalPassFailure();
  }
  PlannerOptions options;
  options.policy = policy;
  options.budget = loaded->budget;
  options.distanceMinGap = distanceMinGap;
  options.distanceMaxTensors = distanceMaxTensors;
  options.distancePrefetchLead = distancePrefetchLead;
  options.windowLayers = windowLayers;

  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    // A budget below what one op needs at once has no schedule at all.
    if (failed(checkBudgetFits(computeLowerBounds(function.getBody().front(),
                                                  target, options.budget)))) {
      signalPassFailure();
      continue;
    }
    ChosenPlan chosen = choosePlan(function, target, options);
    OffloadPlan plan = chosen.plan;
    // Where the peak is, in the unplanned body.
    Block &body = function.getBody().front();
    BufferLiveness liveness(body, target.device.allocationGranularity);
    bool atExit = plan.estimatedPeakPoint == liveness.getExitPoint();
    Operation *peakOp =
        atExit ? body.getTerminator() : liveness.getOp(plan.estimatedPeakPoint);
    Location peakLoc = peakOp ? peakOp->getLoc() : function.getLoc();
    // A plan that fits when simulated is not over the budget, whatever its
    // estimate said.
    bool fits =
        writeChosenPlan(function, target, options.budget, std::move(chosen));
    if (!fits && plan.estimatedPeak > options.budget) {
      emitWarning(peakLoc) << "the " << stringifyOffloadPolicy(policy)
                           << " plan leaves an estimated " << plan.estimatedPeak
                           << " bytes live "
                           << (atExit   ? "when the function returns"
                               : peakOp ? "here"
                                        : "at function entry")
                           << ", over the budget of " << options.budget
                           << " bytes";
    }
  }
}

PlanOffloadPass::ChosenPlan
PlanOffloadPass::choosePlan(func::FuncOp function, const Target &target,
                            const PlannerOptions &options) {
  if (policy != OffloadPolicy::HyperOffload)
    return {fitPlanToBudget(function, target, options).plan, std::nullopt};
  if (leastMemory)
    return chooseLeastMemoryPlan(function, target, options);
  FittedPlan fitted = fitPlanToBudget(function, target, options);
  // Early waits for stores relieve more ops at once but can leave the
  // static arena fragmented beyond the budget; then wait only at peaks.
  if (!fitted.trial) {
    PlannerOptions lateWaits = options;
    lateWaits.earlyStoreWaits = false;
    FittedPlan other = fitPlanToBudget(function, target, lateWaits);
    if (other.trial)
      fitted = std::move(other);
  }
  return preferFasterGroupPlacement(function, target, options,
                                    std::move(fitted));
}

bool PlanOffloadPass::writeChosenPlan(func::FuncOp function,
                                      const Target &target, int64_t budget,
                                      ChosenPlan chosen) {
  Block *body = &function.getBody().front();
  bool fits;
  if (chosen.trial && succeeded(chosen.trial->result)) {
    // The trial wrote and repaired the plan on a copy already.
    func::FuncOp planned = *chosen.trial->planned;
    function.getBody().takeBody(planned.getBody());
    function.setFunctionType(planned.getFunctionType());
    body = &function.getBody().front();
    fits = !chosen.trial->result->outOfMemory;
  } else {
    PlanWriter(function,
               BufferLiveness(*body, target.device.allocationGranularity))
        .write(chosen.plan);
    delayPrematurePrefetches(function, target, budget);
    // The baselines are scored as their sources place transfers. The plan
    // waits for its stores where the run would overflow.
    fits = policy == OffloadPolicy::HyperOffload &&
           waitForStoresAtOverflows(function, target, budget);
  }
  for (BlockArgument arg : body->getArguments())
    numRemoteArguments += isa<RemoteType>(arg.getType());
  for (Operation &op : *body) {
    numOffloads += isa<OffloadOp>(op);
    numPrefetches += isa<PrefetchOp>(op);
  }
  return fits;
}

/// How plans are tried: the live bytes, on the ideal allocator, in the
/// budget, without a timeline.
static SimulationOptions getTrialSimulation(int64_t budget) {
  SimulationOptions simulation;
  simulation.allocator = AllocatorKind::Ideal;
  simulation.budget = budget;
  simulation.recordTimeline = false;
  return simulation;
}

/// How many times delayPrematurePrefetches simulates at most. A plan that
/// offloads after every use (naive) can drop one gap per layer and round
/// until its gaps are long enough: a dozen rounds on DeepSeek-V3 at long
/// contexts.
static constexpr unsigned kMaxPrefetchRounds = 16;

void PlanOffloadPass::delayPrematurePrefetches(func::FuncOp function,
                                               const Target &target,
                                               int64_t budget) {
  // Under contention a store can finish later than the planner's timeline
  // said, and a prefetch of its copy would then start too early. Issue such
  // a prefetch before the first op that starts after the store completes
  // (at the latest right before its await); that only shortens how long it
  // holds memory. When even the await comes too early, the gap is not
  // offloaded after all.
  //
  // Moving some prefetches delays other stores, so a prefetch can be early
  // again; then it goes right before its await, and if that is still
  // early, its gap is dropped.
  SimulationOptions simulation = getTrialSimulation(budget);
  llvm::DenseSet<Operation *> delayedBefore;
  for (unsigned attempt = 0; attempt < kMaxPrefetchRounds; ++attempt) {
    FailureOr<SimulationResult> result =
        simulate(function.getBody().front(), target, simulation);
    if (failed(result) || result->prematurePrefetches.empty())
      return;
    for (const PrematurePrefetch &premature : result->prematurePrefetches) {
      auto prefetch = cast<PrefetchOp>(premature.prefetch);
      Operation *await = *prefetch.getResult().getUsers().begin();
      Operation *target = await;
      bool again = !delayedBefore.insert(prefetch).second;
      for (Operation *op = prefetch->getNextNode(); op && op != await;
           op = op->getNextNode()) {
        auto issued = result->issueTimes.find(op);
        if (issued != result->issueTimes.end() &&
            issued->second >= premature.offloadEnd) {
          target = op;
          break;
        }
      }
      if (target != await) {
        prefetch->moveBefore(again ? await : target);
        continue;
      }
      // The next use comes before the store can complete: keep the data on
      // the device over this gap instead.
      auto offload = cast<OffloadOp>(premature.offload);
      await->getResult(0).replaceAllUsesWith(offload.getSource());
      await->erase();
      prefetch->erase();
      // Waiting for the store would free nothing now.
      for (Operation *user : llvm::make_early_inc_range(offload->getUsers()))
        if (isa<WaitOffloadOp>(user))
          user->erase();
      if (offload->use_empty())
        offload->erase();
    }
  }
}

/// How many times waitForStoresAtOverflows simulates at most.
static constexpr unsigned kMaxOverflowRounds = 16;

bool PlanOffloadPass::waitForStoresAtOverflows(func::FuncOp function,
                                               const Target &target,
                                               int64_t budget) {
  // The planning timeline frees a stored buffer when its copy should have
  // landed; where compute runs ahead of that timeline, or the link is
  // slower than it, an op can need that memory while the copy is still in
  // flight, and the run overflows. Waiting for the store right before that
  // op keeps the budget at the cost of a stall: the store that lands first
  // each time, until the run fits.
  SimulationOptions simulation = getTrialSimulation(budget);
  Block &body = function.getBody().front();
  for (unsigned round = 0; round <= kMaxOverflowRounds; ++round) {
    FailureOr<SimulationResult> run = simulate(body, target, simulation);
    if (failed(run))
      return false;
    if (!run->outOfMemory)
      return true;
    // Arguments that do not fit at entry have no store to wait for.
    if (!run->firstOutOfMemoryOp || round == kMaxOverflowRounds)
      return false;
    Operation *overflow = body.findAncestorOpInBlock(*run->firstOutOfMemoryOp);
    double time = run->issueTimes.lookup(overflow);
    BufferLiveness liveness(body, target.device.allocationGranularity);
    OffloadOp first;
    double firstEnd = 0;
    for (Operation &op : body) {
      if (&op == overflow)
        break;
      auto offload = dyn_cast<OffloadOp>(op);
      const BufferInfo *buffer =
          offload ? liveness.lookup(offload.getSource()) : nullptr;
      if (!buffer)
        continue;
      // Still allocated, and freed by this store: no use of the buffer on
      // the device from the overflowing op on, that op included.
      double end = run->lifetimes[buffer->id].end;
      if (end <= time || llvm::any_of(buffer->aliases, [&](Value alias) {
            return llvm::any_of(alias.getUsers(), [&](Operation *user) {
              Operation *owner = body.findAncestorOpInBlock(*user);
              return owner && !owner->isBeforeInBlock(overflow) &&
                     !isa<OffloadOp>(owner);
            });
          }))
        continue;
      if (!first || end < firstEnd) {
        first = offload;
        firstEnd = end;
      }
    }
    if (!first)
      return false;
    OpBuilder builder(overflow);
    WaitOffloadOp::create(builder, overflow->getLoc(), first.getResult());
  }
  return false;
}

PlanOffloadPass::Trial PlanOffloadPass::runTrial(func::FuncOp function,
                                                 const Target &target,
                                                 int64_t budget,
                                                 const OffloadPlan &plan) {
  Trial trial{function.clone(), failure()};
  func::FuncOp copy = *trial.planned;
  Block &body = copy.getBody().front();
  PlanWriter(copy, BufferLiveness(body, target.device.allocationGranularity))
      .write(plan);
  delayPrematurePrefetches(copy, target, budget);
  SimulationOptions simulation = getTrialSimulation(budget);
  trial.result = simulate(body, target, simulation);
  if (succeeded(trial.result) && trial.result->outOfMemory) {
    waitForStoresAtOverflows(copy, target, budget);
    trial.result = simulate(body, target, simulation);
  }
  if (succeeded(trial.result)) {
    // The static memory plan the pipeline will assign must fit, not just
    // the live bytes.
    BufferLiveness planned(body, target.device.allocationGranularity);
    trial.arena = assignOffsets(planned, *trial.result, budget).getArenaSize();
  }
  return trial;
}

PlanOffloadPass::FittedPlan
PlanOffloadPass::fitPlanToBudget(func::FuncOp function, const Target &target,
                                 PlannerOptions options) {
  // The planner's timeline is an estimate: a store may take longer under
  // contention and keep its buffer a little longer, and a static memory
  // plan adds some fragmentation. A policy that honours the budget is
  // checked on the simulator and the offsets it leads to, and replanned
  // against a budget lowered by the excess, a few times at most.
  Block &original = function.getBody().front();
  OffloadPlan plan = planOffload(original, target, options);
  bool honoursBudget =
      options.policy == OffloadPolicy::HyperOffload ||
      (options.policy == OffloadPolicy::Window && options.windowHoistFetches);
  if (!honoursBudget)
    return {options, plan, std::nullopt};
  int64_t budget = options.budget;
  for (unsigned attempt = 1;; ++attempt) {
    if (plan.estimatedPeak > options.budget)
      return {options, plan, std::nullopt};
    Trial trial = runTrial(function, target, budget, plan);
    if (failed(trial.result) || trial.arena <= budget)
      return {options, plan, std::move(trial)};
    // Ask for the excess below what this plan reached, not below the
    // previous target: a plan that already met that target would otherwise
    // come back unchanged.
    options.budget =
        std::min(options.budget, plan.estimatedPeak) - (trial.arena - budget);
    plan = planOffload(original, target, options);
    if (attempt == 4)
      return {options, plan, std::nullopt};
  }
}

std::optional<PlanOffloadPass::PlanScore>
PlanOffloadPass::scoreTrial(const Trial &trial, int64_t budget) {
  if (failed(trial.result) || !trial.result->prematurePrefetches.empty() ||
      trial.arena > budget)
    return std::nullopt;
  return PlanScore{trial.result->stepTime, trial.result->stallTime};
}

/// The most leading layers whose weights a streamed placement keeps on the
/// device; a bound for the bisection, above any model's depth.
static constexpr unsigned kMaxResidentLayers = 1024;

PlanOffloadPass::ChosenPlan PlanOffloadPass::preferFasterGroupPlacement(
    func::FuncOp function, const Target &target, PlannerOptions options,
    FittedPlan fitted) {
  // When the links cannot hide what must move, placing whole groups at
  // once can keep a link busier than timing gaps one by one: all saved
  // activations out and back (pt2), whole layers of weights a few layers
  // ahead (window), every KV cache and optimizer state (naive), or every
  // long gap (distance). The simulator decides: such a placement that fits
  // the budget and is faster replaces the plan, so the plan is never worse
  // than a compiled baseline on its static memory plan.
  // Fitting the plan may have run its trial already.
  ChosenPlan chosen{std::move(fitted.plan), std::move(fitted.trial)};
  if (!chosen.trial)
    chosen.trial = runTrial(function, target, options.budget, chosen.plan);
  std::optional<PlanScore> best = scoreTrial(*chosen.trial, options.budget);
  // Nothing to gain when compute never waits.
  if (best && best->stallTime == 0)
    return chosen;
  auto offer = [&](ChosenPlan candidate) {
    std::optional<PlanScore> score =
        scoreTrial(*candidate.trial, options.budget);
    if (score && (!best || score->stepTime < best->stepTime)) {
      best = score;
      chosen = std::move(candidate);
    }
  };
  auto tryPlan = [&](OffloadPlan other) {
    if (other.isEmpty())
      return;
    Trial trial = runTrial(function, target, options.budget, other);
    offer({std::move(other), std::move(trial)});
  };
  auto consider = [&](const PlannerOptions &alternative) {
    tryPlan(fitPlanToBudget(function, target, alternative).plan);
  };
  PlannerOptions alternative = options;
  alternative.retimeLeadingStretches = true;
  consider(alternative);
  alternative.retimeLeadingStretches = false;
  for (OffloadPolicy policy :
       {OffloadPolicy::PT2, OffloadPolicy::Naive, OffloadPolicy::Distance}) {
    alternative.policy = policy;
    consider(alternative);
  }
  alternative.policy = OffloadPolicy::Window;
  for (unsigned layers : {1u, 2u, 3u}) {
    alternative.windowLayers = layers;
    consider(alternative);
  }
  // Streaming every layer moves more than the budget needs: keep some
  // layers' weights on the device and stream the rest, each fetched as
  // early as memory allows. How much room a streamed layer needs decides
  // how many can stay: fetched a window ahead (as ZeRO-Infinity does), as
  // its layer starts, or right before each use (least room, if the
  // hoisting then finds the time); and the leading layers resident, or
  // layers spread over the step.
  struct Streaming {
    unsigned windowLayers;
    bool spreadResidents;
    bool fetchAtUse;
  };
  for (Streaming streaming :
       {Streaming{options.windowLayers, false, false},
        Streaming{0, true, false}, Streaming{0, true, true}}) {
    alternative.windowLayers = streaming.windowLayers;
    alternative.windowHoistFetches = true;
    alternative.windowSpreadResidents = streaming.spreadResidents;
    alternative.windowFetchAtUse = streaming.fetchAtUse;
    if (std::optional<ChosenPlan> streamed =
            chooseResidentLayers(function, target, options.budget, alternative))
      offer(std::move(*streamed));
  }
  // When nothing else fits, the plan with the least memory may: each op
  // then holds about its own working set, the memory lower bound.
  if (!best) {
    ChosenPlan least = chooseLeastMemoryPlan(function, target, options);
    if (scoreTrial(*least.trial, options.budget))
      chosen = std::move(least);
  }
  return chosen;
}

std::optional<PlanOffloadPass::ChosenPlan>
PlanOffloadPass::chooseResidentLayers(func::FuncOp function,
                                      const Target &target, int64_t budget,
                                      PlannerOptions streaming) {
  std::optional<ChosenPlan> fastest;
  double fastestTime = 0;
  llvm::DenseMap<unsigned, double> stepTimes;
  // Whether the plan with `residentLayers` fits; keeps the fastest.
  auto fits = [&](unsigned residentLayers) {
    streaming.windowResidentLayers = residentLayers;
    OffloadPlan plan = fitPlanToBudget(function, target, streaming).plan;
    if (plan.isEmpty())
      return false;
    Trial trial = runTrial(function, target, budget, plan);
    std::optional<PlanScore> score = scoreTrial(trial, budget);
    if (!score)
      return false;
    if (!fastest || score->stepTime < fastestTime) {
      fastest = ChosenPlan{std::move(plan), std::move(trial)};
      fastestTime = score->stepTime;
    }
    stepTimes[residentLayers] = score->stepTime;
    return true;
  };
  // Fewer resident layers need less memory: the most that fit, by
  // bisection.
  if (!fits(0))
    return std::nullopt;
  unsigned low = 0, high = kMaxResidentLayers;
  while (high - low > 1) {
    unsigned middle = low + (high - low) / 2;
    (fits(middle) ? low : high) = middle;
  }
  // Each resident layer moves a layer less but leaves less room to fetch
  // ahead: step down from the most while that is faster.
  for (unsigned layers = low; layers > 0; --layers) {
    if (!stepTimes.contains(layers - 1) && !fits(layers - 1))
      break;
    if (stepTimes[layers - 1] >= stepTimes[layers])
      break;
  }
  return fastest;
}

PlanOffloadPass::ChosenPlan
PlanOffloadPass::chooseLeastMemoryPlan(func::FuncOp function,
                                       const Target &target,
                                       const PlannerOptions &options) {
  // Waiting only where the estimate overflows is faster; waiting after
  // every store fits whatever the timing.
  PlannerOptions least = options;
  least.leastMemory = true;
  ChosenPlan chosen;
  for (bool waitAfterEveryStore : {false, true}) {
    least.waitAfterEveryStore = waitAfterEveryStore;
    chosen.plan = planOffload(function.getBody().front(), target, least);
    chosen.trial = runTrial(function, target, options.budget, chosen.plan);
    if (scoreTrial(*chosen.trial, options.budget))
      break;
  }
  return chosen;
}
