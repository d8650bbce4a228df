//===- PlanSelection.cpp - Which plan ho-plan-offload writes --------------===//

#include "hyperoffload/Planning/PlanSelection.h"

#include "BlockStaging.h"
#include "ColumnBlocks.h"
#include "EagerUpdates.h"
#include "PlanNeighbours.h"
#include "PlanningContext.h"
#include "RoutedStaging.h"
#include "StarvedPrefetches.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Planning/PlanWriter.h"
#include "hyperoffload/Planning/StaticPlan.h"

using namespace mlir;
using namespace mlir::ho;

/// Column blocks of at most this fraction of the budget: a block needs room
/// while it streams, so smaller blocks leave more for resident weights, but
/// each block's matmul pays a launch. The blocks are kept only when the
/// plan with them is faster.
static constexpr int64_t kBudgetPerColumnBlock = 512;

PlanSelector::ChosenPlan PlanSelector::choose(func::FuncOp function,
                                              const Target &target,
                                              const PlannerOptions &options) {
  if (policy == OffloadPolicy::Exact)
    return chooseExact(function, target, options);
  if (policy != OffloadPolicy::HyperOffload)
    return {fitPlanToBudget(function, target, options).plan, std::nullopt};
  if (leastMemory)
    return chooseLeastMemoryPlan(function, target, options);
  ChosenPlan best = chooseInBodyOrder(function, target, options);
  std::optional<PlanScore> bestScore =
      best.trial ? scoreTrial(*best.trial, options.budget) : std::nullopt;

  // Rewritten copies of the function, each planned while the best plan so
  // far stalls: reordering and splitting leave the compute as it is, so
  // only stalls can shrink. A copy's plan is kept when it fits and is
  // faster; it is only ever written through its trial, which holds the
  // rewritten body.
  auto stalls = [&] { return !bestScore || bestScore->stallTime > 0; };
  auto tryCopy = [&](func::FuncOp copy) {
    return replaceIfFaster(chooseInBodyOrder(copy, target, options), target,
                           options.budget, best, bestScore);
  };
  // Experts that routers pick at run time (RoutedStaging.h): every one
  // resident, as above, or hot sets with the others fetched on the
  // router's picks or on a prediction. This is placement, not a rewrite of
  // the program.
  // KV caches read in picked blocks (BlockStaging.h) likewise: on the
  // device, as above, or in a tier with only the picked blocks fetched.
  std::optional<BlockStaging> blockStaging;
  OwningOpRef<func::FuncOp> blocks;
  if (stalls())
    blocks = chooseBlockStaging(function, target, options, std::nullopt, best,
                                bestScore, blockStaging);
  func::FuncOp base = blocks ? *blocks : function;
  std::optional<RoutedStaging> expertStaging;
  OwningOpRef<func::FuncOp> staged;
  if (stalls())
    staged = chooseRoutedStaging(base, target, options, best, bestScore,
                                 expertStaging);
  // The blocks were placed with every expert resident. With experts
  // fetched as well the links are busier, and the other block placement
  // can win (fetching blocks on the selection itself, where the prediction
  // won alone, on DeepSeek-V3 at six layers).
  if (blocks && staged && stalls())
    if (OwningOpRef<func::FuncOp> restaged =
            chooseBlockStaging(function, target, options, expertStaging, best,
                               bestScore, blockStaging))
      staged = std::move(restaged);
  if (staged)
    base = *staged;

  // The caller's state updated as soon as it can be (EagerUpdates.h).
  OwningOpRef<func::FuncOp> eager;
  if (options.allowRewrites && stalls()) {
    OwningOpRef<func::FuncOp> copy = base.clone();
    if (scheduleUpdatesEagerly(copy->getBody().front()) && tryCopy(*copy))
      eager = std::move(copy);
  }
  // Large weights streamed in column blocks (ColumnBlocks.h), in the order
  // chosen so far.
  if (options.allowRewrites && stalls()) {
    OwningOpRef<func::FuncOp> copy = eager ? eager->clone() : base.clone();
    if (splitWeightsIntoColumnBlocks(*copy,
                                     options.budget / kBudgetPerColumnBlock))
      tryCopy(*copy);
  }
  // A plan that fits can still lose time to links that fall idle.
  finish(best, target, options.budget);
  return best;
}

std::optional<PlanSelector::PlanScore>
PlanSelector::finish(ChosenPlan &chosen, const Target &target, int64_t budget) {
  if (!chosen.trial)
    return std::nullopt;
  std::optional<PlanScore> score = scoreTrial(*chosen.trial, budget);
  if (chosen.finished || !score || score->stallTime == 0) {
    chosen.finished = true;
    return score;
  }
  chosen.finished = true;
  issueStarvedPrefetchesEarlier(chosen, target, budget);
  return scoreTrial(*chosen.trial, budget);
}

bool PlanSelector::replaceIfFaster(ChosenPlan candidate, const Target &target,
                                   int64_t budget, ChosenPlan &best,
                                   std::optional<PlanScore> &bestScore) {
  // The last repair can take more from one plan than from another (the
  // plan with every expert resident gains 6% on DeepSeek-V3 at 44 GB, one
  // that fetches predicted experts nothing), so plans are compared as they
  // will be written.
  std::optional<PlanScore> score = finish(candidate, target, budget);
  if (!score)
    return false;
  if (bestScore)
    bestScore = finish(best, target, budget);
  if (bestScore && score->stepTime >= bestScore->stepTime)
    return false;
  best = std::move(candidate);
  bestScore = score;
  return true;
}

PlanSelector::ChosenPlan
PlanSelector::chooseExact(func::FuncOp function, const Target &target,
                          const PlannerOptions &options) {
  ExactPlanResult exact =
      searchExactPlan(function, target, options.budget, options.exactLimits);
  ChosenPlan chosen{exact.plan.value_or(OffloadPlan()), std::nullopt, exact};
  // The plan fits as written: the trial's repairs change nothing.
  if (exact.plan)
    chosen.trial = runTrial(function, target, options.budget, *exact.plan);
  return chosen;
}

OwningOpRef<func::FuncOp> PlanSelector::chooseBlockStaging(
    func::FuncOp function, const Target &target, const PlannerOptions &options,
    const std::optional<RoutedStaging> &experts, ChosenPlan &best,
    std::optional<PlanScore> &bestScore, std::optional<BlockStaging> &taken) {
  std::optional<MemoryTier> tier = target.getDefaultTier();
  if (!tier || !hasStageableBlocks(function))
    return nullptr;
  // Both placements get the full search: the planner's own plans of the two
  // differ by a percent where the full searches differ by a quarter.
  OwningOpRef<func::FuncOp> takenCopy;
  std::optional<BlockStaging> tried = taken;
  for (bool predicted : {false, true}) {
    if (predicted && !isPredictionWorthTrying())
      continue;
    BlockStaging staging{predicted, *tier};
    if (tried && tried->predicted == predicted)
      continue;
    OwningOpRef<func::FuncOp> copy = function.clone();
    stageSelectedBlocks(*copy, staging);
    if (experts)
      stageRoutedExperts(*copy, *experts);
    if (OwningOpRef<func::FuncOp> kept =
            takeIfFaster(std::move(copy), target, options, best, bestScore)) {
      takenCopy = std::move(kept);
      taken = staging;
    }
  }
  return takenCopy;
}

OwningOpRef<func::FuncOp> PlanSelector::chooseRoutedStaging(
    func::FuncOp function, const Target &target, const PlannerOptions &options,
    ChosenPlan &best, std::optional<PlanScore> &bestScore,
    std::optional<RoutedStaging> &taken) {
  auto routedOps = function.getBody().front().getOps<RoutedOp>();
  if (routedOps.empty())
    return nullptr;
  std::optional<MemoryTier> tier = target.getDefaultTier();
  if (!tier)
    return nullptr;
  unsigned experts = (*routedOps.begin()).getExperts().size();
  // How many experts stay resident is chosen on the planner's own plan of
  // each count (the group placements chooseInBodyOrder also tries cost many
  // plans each).
  std::optional<RoutedStaging> fastest;
  std::optional<PlanScore> fastestScore;
  auto tryStaging = [&](RoutedStaging staging) {
    staging.tier = *tier;
    OwningOpRef<func::FuncOp> copy = function.clone();
    if (!stageRoutedExperts(*copy, staging))
      return false;
    std::optional<PlanScore> score = scoreFitted(*copy, target, options);
    if (score && (!fastestScore || score->stepTime < fastestScore->stepTime)) {
      fastest = staging;
      fastestScore = score;
    }
    return score.has_value();
  };
  // A resident expert saves its fetches, so more resident experts are
  // faster while the rest still fits: a hot half, then three quarters if
  // that fits, else none, fetched on a prediction (the earliest).
  unsigned resident = experts / 2;
  if (tryStaging({resident, /*predicted=*/true})) {
    if (tryStaging({experts * 3 / 4, true}))
      resident = experts * 3 / 4;
  } else if (tryStaging({0, true})) {
    resident = 0;
  } else {
    return nullptr;
  }
  // The most that fit fetched on the router's picks, and the fastest count
  // fetched on a prediction, each get the full search: which of the two
  // wins is not told by the planner's own plans (on DeepSeek-V3 at six
  // layers, 13.74 against 13.89 ms for the prediction became 9.49 against
  // 7.41 ms).
  OwningOpRef<func::FuncOp> takenCopy;
  SmallVector<RoutedStaging, 2> finalists = {{resident, false, *tier}};
  if (isPredictionWorthTrying())
    finalists.push_back(*fastest);
  for (const RoutedStaging &staging : finalists) {
    OwningOpRef<func::FuncOp> copy = function.clone();
    stageRoutedExperts(*copy, staging);
    if (OwningOpRef<func::FuncOp> kept =
            takeIfFaster(std::move(copy), target, options, best, bestScore)) {
      takenCopy = std::move(kept);
      taken = staging;
    }
  }
  return takenCopy;
}

bool PlanSelector::isPredictionWorthTrying() const {
  // A guess that is always wrong fetches what nothing reads, then the
  // picks on demand.
  return routing.predictorAccuracy > 0;
}

std::optional<PlanSelector::PlanScore>
PlanSelector::scoreFitted(func::FuncOp function, const Target &target,
                          const PlannerOptions &options) {
  ChosenPlan candidate = chooseFitted(function, target, options);
  return candidate.trial ? scoreTrial(*candidate.trial, options.budget)
                         : std::nullopt;
}

OwningOpRef<func::FuncOp>
PlanSelector::takeIfFaster(OwningOpRef<func::FuncOp> copy, const Target &target,
                           const PlannerOptions &options, ChosenPlan &best,
                           std::optional<PlanScore> &bestScore) {
  if (!replaceIfFaster(chooseInBodyOrder(*copy, target, options), target,
                       options.budget, best, bestScore))
    return nullptr;
  return copy;
}

PlanSelector::FittedPlan
PlanSelector::fitInBodyOrder(func::FuncOp function, const Target &target,
                             const PlannerOptions &options) {
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
  return fitted;
}

PlanSelector::ChosenPlan
PlanSelector::chooseFitted(func::FuncOp function, const Target &target,
                           const PlannerOptions &options) {
  FittedPlan fitted = fitInBodyOrder(function, target, options);
  ChosenPlan chosen{std::move(fitted.plan), std::move(fitted.trial)};
  if (!chosen.trial)
    chosen.trial = runTrial(function, target, options.budget, chosen.plan);
  return chosen;
}

PlanSelector::ChosenPlan
PlanSelector::chooseInBodyOrder(func::FuncOp function, const Target &target,
                                const PlannerOptions &options) {
  ChosenPlan chosen = preferFasterGroupPlacement(
      function, target, options, fitInBodyOrder(function, target, options));
  improveLocally(function, target, options, chosen);
  return chosen;
}

/// Trials the local search runs at most per function: this many ops
/// simulated over all trials, and no more than kMaxLocalSearchTrials. A
/// trial simulates the function a few times and lays out its arena, so its
/// cost grows with the ops. A function that would get fewer than
/// kMinLocalSearchTrials (more than 128 ops) is not searched: so few
/// trials do not get through one turn of its neighbours.
static constexpr unsigned kLocalSearchOps = 4096;
static constexpr unsigned kMaxLocalSearchTrials = 256;
static constexpr unsigned kMinLocalSearchTrials = 32;
/// Neighbours that would be faster but do not fit, paired each round with
/// the changes of theirs that keep a buffer off the device longer.
static constexpr unsigned kMaxPairedNeighbours = 4;

void PlanSelector::improveLocally(func::FuncOp function, const Target &target,
                                  const PlannerOptions &options,
                                  ChosenPlan &chosen) {
  if (!chosen.trial || !options.localSearch)
    return;
  Block &body = function.getBody().front();
  unsigned maxTrials = std::min<size_t>(
      kMaxLocalSearchTrials, kLocalSearchOps / body.getOperations().size());
  if (maxTrials < kMinLocalSearchTrials || hasRunTimeSelections(body))
    return;
  std::optional<PlanScore> score = scoreTrial(*chosen.trial, options.budget);
  if (!score || score->stallTime == 0)
    return;
  PlanningContext context(body, target, options.budget);
  unsigned trials = 0;
  descend(function, target, options.budget, context, chosen, trials, maxTrials);
  if (scoreTrial(*chosen.trial, options.budget)->stallTime == 0)
    return;
  // From the other end too: every gap offloaded, then only what pays.
  ChosenPlan least = chooseLeastMemoryPlan(function, target, options);
  descend(function, target, options.budget, context, least, trials, maxTrials);
  std::optional<PlanScore> leastScore =
      scoreTrial(*least.trial, options.budget);
  if (leastScore && leastScore->stepTime <
                        scoreTrial(*chosen.trial, options.budget)->stepTime)
    chosen = std::move(least);
}

void PlanSelector::descend(func::FuncOp function, const Target &target,
                           int64_t budget, const PlanningContext &context,
                           ChosenPlan &chosen, unsigned &trials,
                           unsigned maxTrials) {
  std::optional<PlanScore> score = scoreTrial(*chosen.trial, budget);
  if (!score)
    return;
  // Tries `plan`: takes it as `chosen` if it fits and is faster; returns
  // its step time when it would be faster but does not fit.
  auto tryPlan = [&](OffloadPlan plan, bool &taken) -> std::optional<double> {
    ++trials;
    Trial trial = runTrial(function, target, budget, plan);
    std::optional<PlanScore> planScore = scoreTrial(trial, budget);
    if (planScore && planScore->stepTime < score->stepTime) {
      score = planScore;
      chosen = ChosenPlan{std::move(plan), std::move(trial)};
      taken = true;
    }
    if (planScore || failed(trial.result) ||
        trial.result->stepTime >= score->stepTime)
      return std::nullopt;
    return trial.result->stepTime;
  };
  // First improvement: the neighbours are tried in turn, from where the
  // last change was found, and the first faster one is taken, until a
  // whole turn finds none. A change that frees time often needs memory
  // another change saves (dropping a store, then fetching another buffer
  // one op later, or taking another gap): then the most promising changes
  // that did not fit are tried with each of those.
  size_t next = 0;
  while (score->stallTime > 0 && trials < maxTrials) {
    std::vector<NeighbourPlan> neighbours =
        getNeighbourPlans(chosen.plan, context);
    bool taken = false;
    SmallVector<std::pair<double, OffloadPlan>> unfit;
    for (size_t tried = 0;
         tried < neighbours.size() && !taken && trials < maxTrials; ++tried) {
      next = (next + (tried ? 1 : 0)) % neighbours.size();
      if (!neighbours[next].alone)
        continue;
      std::optional<double> unfitTime = tryPlan(neighbours[next].plan, taken);
      if (unfitTime && *unfitTime < score->stepTime)
        unfit.emplace_back(*unfitTime, std::move(neighbours[next].plan));
    }
    if (taken)
      continue;
    llvm::stable_sort(
        unfit, [](const auto &a, const auto &b) { return a.first < b.first; });
    if (unfit.size() > kMaxPairedNeighbours)
      unfit.resize(kMaxPairedNeighbours);
    for (auto &[unfitTime, plan] : unfit)
      for (NeighbourPlan &paired : getNeighbourPlans(plan, context))
        if (!taken && paired.savesMemory && trials < maxTrials)
          tryPlan(std::move(paired.plan), taken);
    // Where nothing else helps, a store issued earlier or later.
    for (NeighbourPlan &moved : getStoreMoves(chosen.plan, context))
      if (!taken && trials < maxTrials)
        tryPlan(std::move(moved.plan), taken);
    if (!taken)
      return;
  }
}

bool PlanSelector::write(func::FuncOp function, const Target &target,
                         int64_t budget, ChosenPlan chosen) {
  bool fits;
  if (chosen.trial && succeeded(chosen.trial->result)) {
    // The trial wrote and repaired the plan on a copy already.
    func::FuncOp planned = *chosen.trial->planned;
    function.getBody().takeBody(planned.getBody());
    function.setFunctionType(planned.getFunctionType());
    // A rewritten copy may have other arguments (column blocks).
    function.setAllArgAttrs(planned.getAllArgAttrs());
    fits = !chosen.trial->result->outOfMemory;
  } else {
    PlanWriter(function, BufferLiveness(function.getBody().front(),
                                        target.device.allocationGranularity))
        .write(chosen.plan);
    delayPrematurePrefetches(function, target, budget);
    // The baselines are scored as their sources place transfers. The plan
    // waits for its stores where the run would overflow.
    fits = policy == OffloadPolicy::HyperOffload &&
           waitForStoresAtOverflows(function, target, budget);
  }
  separateWritesFromStores(function);
  return fits;
}

/// How plans are tried: the live bytes, on the ideal allocator, in the
/// budget, without a timeline.
SimulationOptions PlanSelector::getTrialSimulation(int64_t budget) const {
  SimulationOptions simulation;
  simulation.allocator = AllocatorKind::Ideal;
  simulation.budget = budget;
  simulation.recordTimeline = false;
  simulation.routing = routing;
  return simulation;
}

/// Steps a trial of a function with routed ops is scored over, each on
/// every device of its expert-parallel group (the slowest ends a step, and
/// a plan that fetches picked experts varies more from device to device):
/// enough that the mean settles, few enough to try several placements.
static constexpr unsigned kScoringSteps = 2;

/// How many times delayPrematurePrefetches simulates at most. A plan that
/// offloads after every use (naive) can drop one gap per layer and round
/// until its gaps are long enough: a dozen rounds on DeepSeek-V3 at long
/// contexts.
static constexpr unsigned kMaxPrefetchRounds = 16;

void PlanSelector::delayPrematurePrefetches(func::FuncOp function,
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

void PlanSelector::issueStarvedPrefetchesEarlier(ChosenPlan &chosen,
                                                 const Target &target,
                                                 int64_t budget) {
  SimulationOptions simulation = getTrialSimulation(budget);
  OwningOpRef<func::FuncOp> faster = ho::issueStarvedPrefetchesEarlier(
      *chosen.trial->planned, target, simulation);
  if (!faster)
    return;
  // The result refers to the ops it ran: run the copy that is kept.
  Block &body = faster->getBody().front();
  FailureOr<SimulationResult> run = simulate(body, target, simulation);
  if (failed(run))
    return;
  std::optional<StepStatistics> steps;
  if (chosen.trial->steps) {
    FailureOr<StepStatistics> drawn =
        simulateSteps(body, target, simulation, kScoringSteps);
    if (failed(drawn))
      return;
    steps = *drawn;
  }
  chosen.trial->arena =
      assignOffsets(BufferLiveness(body, target.device.allocationGranularity),
                    *run, budget)
          .getArenaSize();
  chosen.trial->planned = std::move(faster);
  chosen.trial->result = std::move(run);
  chosen.trial->steps = std::move(steps);
}

/// How many times waitForStoresAtOverflows simulates at most.
static constexpr unsigned kMaxOverflowRounds = 16;

bool PlanSelector::waitForStoresAtOverflows(func::FuncOp function,
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

PlanSelector::Trial PlanSelector::runTrial(func::FuncOp function,
                                           const Target &target, int64_t budget,
                                           const OffloadPlan &plan) {
  Trial trial{function.clone(), failure()};
  func::FuncOp copy = *trial.planned;
  Block &body = copy.getBody().front();
  PlanWriter(copy, BufferLiveness(body, target.device.allocationGranularity))
      .write(plan);
  delayPrematurePrefetches(copy, target, budget);
  SimulationOptions simulation = getTrialSimulation(budget);
  // The run and the static memory plan read one liveness analysis.
  std::optional<BufferLiveness> planned;
  auto simulatePlanned = [&] {
    planned.emplace(body, target.device.allocationGranularity);
    return simulate(body, *planned, target, simulation);
  };
  trial.result = simulatePlanned();
  if (succeeded(trial.result) && trial.result->outOfMemory) {
    waitForStoresAtOverflows(copy, target, budget);
    trial.result = simulatePlanned();
  }
  if (succeeded(trial.result)) {
    // The static memory plan the pipeline will assign must fit, not just
    // the live bytes.
    trial.arena = assignOffsets(*planned, *trial.result, budget).getArenaSize();
    if (hasRunTimeSelections(body)) {
      FailureOr<StepStatistics> steps =
          simulateSteps(body, target, simulation, kScoringSteps);
      if (succeeded(steps))
        trial.steps = *steps;
      else
        trial.result = failure();
    }
  }
  return trial;
}

PlanSelector::FittedPlan PlanSelector::fitPlanToBudget(func::FuncOp function,
                                                       const Target &target,
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

std::optional<PlanSelector::PlanScore>
PlanSelector::scoreTrial(const Trial &trial, int64_t budget) {
  if (failed(trial.result) || !trial.result->prematurePrefetches.empty() ||
      trial.arena > budget)
    return std::nullopt;
  if (trial.steps)
    return PlanScore{trial.steps->mean, trial.steps->deviceStallMean};
  return PlanScore{trial.result->stepTime, trial.result->stallTime};
}

/// The most leading layers whose weights a streamed placement keeps on the
/// device; a bound for the bisection, above any model's depth.
static constexpr unsigned kMaxResidentLayers = 1024;

PlanSelector::ChosenPlan PlanSelector::preferFasterGroupPlacement(
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
  // Takes `candidate` when it fits and is faster.
  auto offer = [&](ChosenPlan &candidate) {
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
    ChosenPlan candidate{std::move(other), std::move(trial)};
    offer(candidate);
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
    bool paceFetches;
  };
  for (Streaming streaming :
       {Streaming{options.windowLayers, false, false, false},
        Streaming{0, true, false, false}, Streaming{0, true, true, false},
        Streaming{0, true, true, true}}) {
    alternative.windowLayers = streaming.windowLayers;
    alternative.windowHoistFetches = true;
    alternative.windowSpreadResidents = streaming.spreadResidents;
    alternative.windowFetchAtUse = streaming.fetchAtUse;
    alternative.windowPaceFetches = streaming.paceFetches;
    if (std::optional<ChosenPlan> streamed =
            chooseResidentLayers(function, target, options.budget, alternative))
      offer(*streamed);
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

std::optional<PlanSelector::ChosenPlan>
PlanSelector::chooseResidentLayers(func::FuncOp function, const Target &target,
                                   int64_t budget, PlannerOptions streaming) {
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

PlanSelector::ChosenPlan
PlanSelector::chooseLeastMemoryPlan(func::FuncOp function, const Target &target,
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
