//===- ExactPlan.cpp - The fastest plan that fits, proven -----------------===//

#include "hyperoffload/Planning/ExactPlan.h"

#include "PlanningContext.h"
#include "hyperoffload/Planning/PlanWriter.h"
#include "hyperoffload/Planning/StaticPlan.h"
#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::ho;

StringRef ho::stringifyExactStatus(ExactStatus status) {
  switch (status) {
  case ExactStatus::Optimal:
    return "optimal";
  case ExactStatus::Infeasible:
    return "infeasible";
  case ExactStatus::GaveUp:
    return "gave up";
  case ExactStatus::NotSearched:
    return "not searched";
  }
  llvm_unreachable("unknown exact status");
}

namespace {

/// Points [first, last) at which a decision keeps a buffer off the device,
/// as the memory bound assumes: every store completes at once.
struct PointRange {
  unsigned first = 0;
  unsigned last = 0;
};

/// One way to plan a gap: not taken, or taken with these transfers.
struct GapOption {
  bool taken = false;
  MemoryTier tier = MemoryTier::pool;
  unsigned prefetchBefore = 0;
  /// The store is issued after the op at this point (none: after the last
  /// use before the gap, or no store at all).
  std::optional<unsigned> storeAfter;
  std::optional<unsigned> waitBefore;
  bool returnsRemote = false;
  SmallVector<PointRange, 2> relief;
  /// An argument's first stretch: compute waits for the store-back of its
  /// returned result before the op at this point.
  std::optional<unsigned> storeBackWait;
};

struct SearchedGap {
  GapCandidate gap;
  int64_t size = 0;
  /// Whether the gap is an argument's stretch before its first use (or its
  /// whole step, when nothing reads it): taking it makes the argument
  /// remote.
  bool leading = false;
  /// For an argument's later gap: the position of its first stretch in the
  /// search order, which comes before it.
  std::optional<unsigned> leadingIndex;
  /// An argument's first stretch that its later gaps need: every option is
  /// kept, whatever it relieves.
  bool keepAllOptions = false;
  /// The first option is "not taken".
  SmallVector<GapOption> options;
  /// The points any option keeps the buffer off the device.
  SmallVector<PointRange, 2> maxRelief;
};

/// Where a run first went over the budget, as a point of the unplanned
/// body, and by how many bytes.
struct Overflow {
  unsigned point;
  int64_t bytes;
};

/// How a plan ran on the simulator.
struct Evaluation {
  bool valid = false;
  double stepTime = 0;
  /// No live byte over the budget and no prefetch before its store.
  bool fitsLive = false;
  FailureOr<SimulationResult> result = failure();
  OwningOpRef<func::FuncOp> planned;
  std::optional<Overflow> overflow;
};

/// How the plan decided so far ran.
struct PartialRun {
  double stepTime = 0;
  std::optional<Overflow> overflow;
};

class ExactSearch {
public:
  ExactSearch(func::FuncOp function, const Target &target, int64_t budget,
              const ExactSearchLimits &limits)
      : function(function), target(target), budget(budget), limits(limits),
        context(function.getBody().front(), target, budget) {}

  ExactPlanResult run();

private:
  void collectGaps();
  /// Searches the plans with every gap's options, or with only those that
  /// relieve a point over the budget (`lean`); false, searching nothing,
  /// when there are more gaps than the limit.
  bool searchSpace(bool lean);
  void addOptions(SearchedGap &searched, MemoryTier tier) const;
  Evaluation evaluate(const OffloadPlan &plan);
  /// Whether `evaluation`'s static offsets fit the budget too.
  bool fitsArena(Evaluation &evaluation) const;
  OffloadPlan makePlan() const;
  void offer(const OffloadPlan &plan, Evaluation evaluation);
  /// Decides the gaps still undecided; the plan decided so far ran as
  /// `partial`.
  void search(const PartialRun &partial);
  /// The undecided gap to decide next: where the plan so far goes over the
  /// budget, one that relieves that point (the largest); else the next in
  /// order. An argument's later gap waits for its first stretch.
  std::optional<unsigned> pickGap(const PartialRun &partial) const;
  void decide(unsigned index, std::optional<unsigned> option);
  void undecide(unsigned index);
  /// Whether some point stays over the budget even if every undecided gap
  /// kept its buffer off the device as long as it could and every store
  /// completed at once.
  bool memoryCannotFit() const;
  /// Whether a plan that went over the budget as `overflow` stays over it
  /// whatever the undecided gaps do, with `moreRelief` more bytes off the
  /// device there. Undecided gaps relieve the point by at most their bytes
  /// there. They could also delay compute until a decided store has freed
  /// its buffer, but a sibling plan that waits for that store right before
  /// the point (every store has such an option) is no slower, so the cut
  /// loses no optimum.
  bool cannotRelieve(const Overflow &overflow, int64_t moreRelief) const;
  static void addRelief(SmallVectorImpl<int64_t> &bytesAt,
                        ArrayRef<PointRange> ranges, int64_t bytes);

  func::FuncOp function;
  const Target &target;
  int64_t budget;
  ExactSearchLimits limits;
  PlanningContext context;

  /// Whether options that keep a buffer off no point over the budget, and
  /// waits before ops within it, are left out: they cannot bring the live
  /// bytes under the budget, only help the static arena pack.
  bool leanOptions = true;
  std::vector<SearchedGap> gaps;
  /// The option taken for each gap decided so far (0: not taken).
  SmallVector<std::optional<unsigned>> decisions;
  /// Live bytes per point before any decision, the bytes the decisions so
  /// far keep off the device, and the most the undecided gaps could.
  SmallVector<int64_t> baseLive;
  /// The points whose live bytes before any decision exceed the budget:
  /// the only ones a decision needs to relieve.
  SmallVector<bool> overBudget;
  SmallVector<int64_t> relief;
  SmallVector<int64_t> undecidedRelief;

  uint64_t simulations = 0;
  bool limitReached = false;
  std::optional<OffloadPlan> best;
  double bestTime = std::numeric_limits<double>::infinity();
};

} // namespace

/// Whether `ranges` hold a point of `overBudget`.
static bool coversAny(ArrayRef<PointRange> ranges, ArrayRef<bool> overBudget) {
  return llvm::any_of(ranges, [&](PointRange range) {
    for (unsigned point = range.first;
         point < std::min<size_t>(range.last, overBudget.size()); ++point)
      if (overBudget[point])
        return true;
    return false;
  });
}

void ExactSearch::addOptions(SearchedGap &searched, MemoryTier tier) const {
  const GapCandidate &gap = searched.gap;
  unsigned exit = context.getLiveness().getExitPoint();
  // With the cuts on, an option that keeps the buffer off no point over
  // the budget is left out: not taking the gap fits as well and moves less.
  auto add = [&](unsigned prefetchBefore, std::optional<unsigned> waitBefore,
                 SmallVector<PointRange, 2> relief, bool returnsRemote,
                 std::optional<unsigned> storeAfter = std::nullopt,
                 std::optional<unsigned> storeBackWait = std::nullopt) {
    if (leanOptions && !searched.keepAllOptions &&
        !coversAny(relief, overBudget))
      return;
    GapOption option;
    option.taken = true;
    option.tier = tier;
    option.prefetchBefore = prefetchBefore;
    option.waitBefore = waitBefore;
    option.storeAfter = storeAfter;
    option.returnsRemote = returnsRemote;
    option.relief = std::move(relief);
    option.storeBackWait = storeBackWait;
    searched.options.push_back(std::move(option));
  };
  // The store is issued after any op from the one that makes the data to
  // the last use before the gap, and compute may wait for it before any op
  // in [first, last) that it should free. With the cuts on, only before an
  // op over the budget: a wait before another op delays compute sooner and
  // frees nothing that the wait before the next op over the budget does
  // not.
  unsigned storeReady = context.getStoreReadyPoint(gap.buffer, gap.lastUse);
  auto addWithWaits = [&](unsigned prefetchBefore, unsigned first,
                          unsigned last, bool returnsRemote) {
    SmallVector<PointRange, 2> relief = {{first, last}};
    if (gap.clean) {
      add(prefetchBefore, std::nullopt, relief, returnsRemote);
      return;
    }
    for (unsigned store = storeReady; store <= gap.lastUse; ++store) {
      add(prefetchBefore, std::nullopt, relief, returnsRemote, store);
      for (unsigned wait = first;
           wait < std::min<size_t>(last, overBudget.size()); ++wait)
        if (!leanOptions || overBudget[wait])
          add(prefetchBefore, wait, relief, returnsRemote, store);
    }
  };
  if (searched.leading) {
    // Off the device from entry until the fetch, and again after the last
    // use (the fetched copy dies there; the caller keeps the argument).
    SmallVector<PointRange, 1> trailing;
    unsigned lastUse = context.getLastUseInBody(gap.buffer);
    if (lastUse < exit)
      trailing.push_back({lastUse + 1, exit + 1});
    if (gap.nextUse == GapCandidate::kUnused) {
      add(exit + 1, std::nullopt, {{0, exit + 1}}, false);
      return;
    }
    // A result that aliases the argument is stored back after the last
    // use; compute may wait for that store where the budget needs it.
    bool storedBack = context.isReturned(gap.buffer) && lastUse < exit;
    for (unsigned prefetch = 1; prefetch <= gap.nextUse; ++prefetch) {
      SmallVector<PointRange, 2> ranges(trailing.begin(), trailing.end());
      ranges.push_back({0, prefetch});
      add(prefetch, std::nullopt, ranges, false);
      if (!storedBack)
        continue;
      for (unsigned wait = lastUse + 1; wait <= exit; ++wait)
        if (!leanOptions || overBudget[wait])
          add(prefetch, std::nullopt, ranges, false, std::nullopt, wait);
    }
    return;
  }
  unsigned firstFree = gap.lastUse + 1;
  if (context.endsAtReturn(gap)) {
    addWithWaits(gap.nextUse + 1, firstFree, exit + 1, /*returnsRemote=*/true);
    return;
  }
  // A fetch issued right after the use frees nothing.
  for (unsigned prefetch = firstFree + 1; prefetch <= gap.nextUse; ++prefetch)
    addWithWaits(prefetch, firstFree, prefetch, /*returnsRemote=*/false);
}

void ExactSearch::collectGaps() {
  const BufferLiveness &liveness = context.getLiveness();
  unsigned exit = liveness.getExitPoint();
  for (const GapCandidate &gap : context.enumerateGaps()) {
    SearchedGap searched;
    searched.gap = gap;
    const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
    searched.size = buffer.size;
    searched.leading = buffer.isArgument() && gap.lastUse == 0;
    searched.options.emplace_back();
    if (searched.leading) {
      unsigned lastUse = context.getLastUseInBody(gap.buffer);
      unsigned fetchedBy =
          gap.nextUse == GapCandidate::kUnused ? exit + 1 : gap.nextUse;
      searched.maxRelief.push_back({0, fetchedBy});
      if (lastUse < exit && gap.nextUse != GapCandidate::kUnused)
        searched.maxRelief.push_back({lastUse + 1, exit + 1});
    } else {
      unsigned last =
          context.endsAtReturn(gap) ? exit + 1 : context.getReliefEnd(gap);
      searched.maxRelief.push_back({gap.lastUse + 1, last});
    }
    gaps.push_back(std::move(searched));
  }
  // An argument's first stretch is needed by its later gaps even where it
  // relieves nothing over the budget itself.
  DenseSet<BufferId> withLaterGaps;
  for (const SearchedGap &searched : gaps)
    if (!searched.leading &&
        liveness.getBuffer(searched.gap.buffer).isArgument())
      withLaterGaps.insert(searched.gap.buffer);
  for (SearchedGap &searched : gaps) {
    searched.keepAllOptions =
        searched.leading && withLaterGaps.contains(searched.gap.buffer);
    for (MemoryTier tier : context.getTiers())
      addOptions(searched, tier);
  }
  // A gap with no way to be taken only lengthens the search.
  llvm::erase_if(gaps, [](const SearchedGap &searched) {
    return searched.options.size() == 1;
  });
  // The largest buffers first: they decide most of what fits. An
  // argument's first stretch (lastUse 0) comes before its later gaps.
  llvm::stable_sort(gaps, [](const SearchedGap &a, const SearchedGap &b) {
    return std::make_tuple(-a.size, a.gap.buffer, a.gap.lastUse) <
           std::make_tuple(-b.size, b.gap.buffer, b.gap.lastUse);
  });
  DenseMap<BufferId, unsigned> leadingOf;
  for (auto [index, searched] : llvm::enumerate(gaps))
    if (searched.leading)
      leadingOf[searched.gap.buffer] = index;
  for (SearchedGap &searched : gaps)
    if (!searched.leading &&
        liveness.getBuffer(searched.gap.buffer).isArgument()) {
      auto leading = leadingOf.find(searched.gap.buffer);
      if (leading != leadingOf.end())
        searched.leadingIndex = leading->second;
      else { // Its first stretch is never taken: neither is it.
        searched.options.resize(1);
        searched.maxRelief.clear();
      }
    }
}

OffloadPlan ExactSearch::makePlan() const {
  const BufferLiveness &liveness = context.getLiveness();
  OffloadPlan plan;
  for (auto [index, decision] : llvm::enumerate(decisions)) {
    if (!decision)
      continue;
    const SearchedGap &searched = gaps[index];
    const GapOption &option = searched.options[*decision];
    if (!option.taken)
      continue;
    const GapCandidate &gap = searched.gap;
    const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
    if (searched.leading)
      plan.remoteArguments.push_back(
          {cast<BlockArgument>(buffer.root).getArgNumber(), option.tier,
           option.storeBackWait});
    if (gap.nextUse == GapCandidate::kUnused)
      continue;
    GapWindow window;
    window.tier = option.tier;
    window.storeAfter = option.storeAfter;
    window.waitBefore = option.waitBefore;
    window.returnsRemote = option.returnsRemote;
    window.prefetchBefore = option.prefetchBefore;
    plan.gaps.push_back(context.makePlannedGap(gap, window));
  }
  llvm::sort(plan.remoteArguments,
             [](const auto &a, const auto &b) { return a.index < b.index; });
  llvm::sort(plan.gaps, [](const PlannedGap &a, const PlannedGap &b) {
    return std::make_pair(a.buffer, a.nextUse) <
           std::make_pair(b.buffer, b.nextUse);
  });
  return plan;
}

Evaluation ExactSearch::evaluate(const OffloadPlan &plan) {
  ++simulations;
  Evaluation evaluation;
  IRMapping mapping;
  evaluation.planned = function.clone(mapping);
  func::FuncOp copy = *evaluation.planned;
  Block &body = copy.getBody().front();
  PlanWriter(copy, BufferLiveness(body, target.device.allocationGranularity))
      .write(plan);
  if (failed(verify(copy)))
    return evaluation;
  SimulationOptions simulation;
  simulation.allocator = AllocatorKind::Ideal;
  simulation.budget = budget;
  simulation.recordTimeline = false;
  evaluation.result = simulate(body, target, simulation);
  if (failed(evaluation.result))
    return evaluation;
  evaluation.valid = true;
  evaluation.stepTime = evaluation.result->stepTime;
  evaluation.fitsLive = !evaluation.result->outOfMemory &&
                        evaluation.result->prematurePrefetches.empty();
  if (Operation *overflow = evaluation.result->firstOutOfMemoryOp) {
    // A transfer the plan inserted allocates for the op after it.
    DenseMap<Operation *, Operation *> original;
    for (auto [from, to] : mapping.getOperationMap())
      original[to] = from;
    for (Operation *op = overflow; op; op = op->getNextNode())
      if (Operation *from = original.lookup(op)) {
        const BufferLiveness &liveness = context.getLiveness();
        unsigned point = from->hasTrait<OpTrait::IsTerminator>()
                             ? liveness.getExitPoint()
                             : liveness.getPoint(from);
        evaluation.overflow =
            Overflow{point, evaluation.result->firstOutOfMemoryExcess};
        break;
      }
  }
  return evaluation;
}

bool ExactSearch::fitsArena(Evaluation &evaluation) const {
  return fitsStaticPlan(evaluation.planned->getBody().front(), target,
                        *evaluation.result, budget);
}

void ExactSearch::offer(const OffloadPlan &plan, Evaluation evaluation) {
  if (!evaluation.valid || !evaluation.fitsLive ||
      evaluation.stepTime >= bestTime || !fitsArena(evaluation))
    return;
  best = plan;
  bestTime = evaluation.stepTime;
}

void ExactSearch::addRelief(SmallVectorImpl<int64_t> &bytesAt,
                            ArrayRef<PointRange> ranges, int64_t bytes) {
  for (PointRange range : ranges)
    for (unsigned point = range.first;
         point < std::min<size_t>(range.last, bytesAt.size()); ++point)
      bytesAt[point] += bytes;
}

void ExactSearch::decide(unsigned index, std::optional<unsigned> option) {
  const SearchedGap &searched = gaps[index];
  decisions[index] = option;
  addRelief(undecidedRelief, searched.maxRelief, -searched.size);
  addRelief(relief, searched.options[*option].relief, searched.size);
}

void ExactSearch::undecide(unsigned index) {
  const SearchedGap &searched = gaps[index];
  const GapOption &option = searched.options[*decisions[index]];
  addRelief(relief, option.relief, -searched.size);
  addRelief(undecidedRelief, searched.maxRelief, searched.size);
  decisions[index] = std::nullopt;
}

bool ExactSearch::memoryCannotFit() const {
  for (auto [point, live] : llvm::enumerate(baseLive))
    if (live - relief[point] - undecidedRelief[point] > budget)
      return true;
  return false;
}

/// Whether `ranges` hold `point`.
static bool covers(ArrayRef<PointRange> ranges, unsigned point) {
  return llvm::any_of(ranges, [&](PointRange range) {
    return range.first <= point && point < range.last;
  });
}

bool ExactSearch::cannotRelieve(const Overflow &overflow,
                                int64_t moreRelief) const {
  return overflow.bytes > moreRelief + undecidedRelief[overflow.point];
}

std::optional<unsigned> ExactSearch::pickGap(const PartialRun &partial) const {
  std::optional<unsigned> picked;
  for (auto [index, searched] : llvm::enumerate(gaps)) {
    if (decisions[index])
      continue;
    if (!limits.prune || !partial.overflow ||
        covers(searched.maxRelief, partial.overflow->point)) {
      picked = index;
      break;
    }
  }
  if (picked && gaps[*picked].leadingIndex &&
      !decisions[*gaps[*picked].leadingIndex])
    return gaps[*picked].leadingIndex;
  return picked;
}

void ExactSearch::search(const PartialRun &partial) {
  if (limitReached)
    return;
  if (limits.prune &&
      (partial.stepTime >= bestTime || memoryCannotFit() ||
       (partial.overflow && cannotRelieve(*partial.overflow, 0))))
    return;
  std::optional<unsigned> index = pickGap(partial);
  if (!index)
    return;
  const SearchedGap &searched = gaps[*index];
  // An argument's later gap comes with its first stretch, in its tier.
  const GapOption *leading = nullptr;
  if (searched.leadingIndex)
    leading = &gaps[*searched.leadingIndex]
                   .options[*decisions[*searched.leadingIndex]];
  for (auto [optionIndex, option] : llvm::enumerate(searched.options)) {
    if (option.taken && leading &&
        (!leading->taken || leading->tier != option.tier))
      continue;
    decide(*index, optionIndex);
    // The plan so far went over the budget: an option that does not relieve
    // that point by enough, with the undecided gaps, need not be simulated.
    bool cannotFit =
        option.taken && limits.prune && partial.overflow &&
        cannotRelieve(
            *partial.overflow,
            covers(option.relief, partial.overflow->point) ? searched.size : 0);
    if (!option.taken) {
      search(partial);
    } else if (!cannotFit && simulations >= limits.maxSimulations) {
      limitReached = true;
    } else if (!cannotFit) {
      OffloadPlan plan = makePlan();
      Evaluation evaluation = evaluate(plan);
      if (evaluation.valid) {
        PartialRun run{evaluation.stepTime, evaluation.overflow};
        // Deciding every other gap "not taken" leaves this very plan.
        offer(plan, std::move(evaluation));
        search(run);
      }
    }
    undecide(*index);
    if (limitReached)
      return;
  }
}

bool ExactSearch::searchSpace(bool lean) {
  leanOptions = lean;
  gaps.clear();
  collectGaps();
  if (gaps.size() > limits.maxGaps)
    return false;
  relief.assign(baseLive.size(), 0);
  undecidedRelief.assign(baseLive.size(), 0);
  for (const SearchedGap &searched : gaps)
    addRelief(undecidedRelief, searched.maxRelief, searched.size);
  decisions.assign(gaps.size(), std::nullopt);

  // The planner's own plans give a first bound to cut by.
  Block &body = function.getBody().front();
  for (bool leastMemory : {false, true}) {
    PlannerOptions options;
    options.budget = budget;
    options.leastMemory = leastMemory;
    OffloadPlan plan = planOffload(body, target, options);
    offer(plan, evaluate(plan));
  }
  Evaluation unplanned = evaluate(OffloadPlan());
  if (unplanned.valid) {
    PartialRun run{unplanned.stepTime, unplanned.overflow};
    offer(OffloadPlan(), std::move(unplanned));
    search(run);
  }
  return true;
}

ExactPlanResult ExactSearch::run() {
  ExactPlanResult result;
  Block &body = function.getBody().front();
  if (hasRunTimeSelections(body)) {
    result.reason = "its routed experts or gathered blocks are picked at run "
                    "time, which the exact search does not cover";
    return result;
  }
  const BufferLiveness &liveness = context.getLiveness();
  baseLive.assign(liveness.getProfile().begin(), liveness.getProfile().end());
  for (int64_t live : baseLive)
    overBudget.push_back(live > budget);
  // First the plans whose every move relieves a point over the budget.
  // Where none fits, the static arena's packing may need the others too:
  // then every plan is searched, so that "infeasible" holds for them all.
  bool searched = searchSpace(/*lean=*/limits.prune);
  if (searched && limits.prune && !best && !limitReached)
    searched = searchSpace(/*lean=*/false);
  result.gaps = gaps.size();
  if (!searched) {
    result.reason = llvm::formatv("it has {0} gaps{1}, more than the {2} "
                                  "the exact search takes (exact-max-gaps)",
                                  gaps.size(),
                                  leanOptions ? " that can relieve a point "
                                                "over the budget"
                                              : "",
                                  limits.maxGaps)
                        .str();
    return result;
  }
  result.simulations = simulations;
  result.plan = best;
  result.stepTime = best ? bestTime : 0;
  result.status = limitReached ? ExactStatus::GaveUp
                  : best       ? ExactStatus::Optimal
                               : ExactStatus::Infeasible;
  return result;
}

ExactPlanResult ho::searchExactPlan(func::FuncOp function, const Target &target,
                                    int64_t budget,
                                    const ExactSearchLimits &limits) {
  return ExactSearch(function, target, budget, limits).run();
}
