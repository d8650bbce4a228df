//===- OffloadPlanner.cpp - Offload policies ------------------------------===//
//
// Every policy picks gaps to offload and times their transfers; they differ
// in which gaps and how they time them. docs/Planning.md describes each.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Planning/OffloadPlan.h"

#include "GapClasses.h"
#include "PlanningContext.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ho;

llvm::StringRef ho::stringifyOffloadPolicy(OffloadPolicy policy) {
  switch (policy) {
  case OffloadPolicy::HyperOffload:
    return "hyperoffload";
  case OffloadPolicy::Naive:
    return "naive";
  case OffloadPolicy::Distance:
    return "distance";
  case OffloadPolicy::Window:
    return "window";
  case OffloadPolicy::PT2:
    return "pt2";
  case OffloadPolicy::Exact:
    return "exact";
  }
  llvm_unreachable("unknown policy");
}

namespace {
using Decision = std::pair<GapCandidate, GapWindow>;

/// What a transfer costs at least, whatever its size: about what it takes
/// to set up one DMA copy.
constexpr double kTransferSetupSeconds = 1e-6;

//===----------------------------------------------------------------------===//
// HyperOffload
//===----------------------------------------------------------------------===//

/// Which gap classes may cover a program point: a segment tree over the
/// points whose nodes list the classes with a range spanning the node.
/// A lookup walks from the root to the point's leaf.
class CoverageIndex {
public:
  explicit CoverageIndex(unsigned numPoints)
      : numPoints(numPoints), lists(2 * llvm::bit_ceil(numPoints)) {}

  /// Records that class `cls` may cover the points in [first, last).
  void insert(unsigned cls, unsigned first, unsigned last) {
    last = std::min(last, numPoints);
    if (first < last)
      insert(1, 0, numPoints, first, last, cls);
  }

  /// The classes recorded at `point`, each once, without those `isTaken`
  /// rejects; these are dropped for good.
  SmallVector<unsigned> lookup(unsigned point,
                               llvm::function_ref<bool(unsigned)> isTaken) {
    SmallVector<unsigned> found;
    unsigned node = 1, first = 0, last = numPoints;
    while (true) {
      llvm::erase_if(lists[node], isTaken);
      llvm::append_range(found, lists[node]);
      if (last - first == 1)
        break;
      unsigned middle = (first + last) / 2;
      node = 2 * node + (point >= middle);
      (point < middle ? last : first) = middle;
    }
    llvm::sort(found);
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

private:
  void insert(unsigned node, unsigned first, unsigned last, unsigned from,
              unsigned to, unsigned cls) {
    if (to <= first || last <= from)
      return;
    if (from <= first && last <= to) {
      lists[node].push_back(cls);
      return;
    }
    unsigned middle = (first + last) / 2;
    insert(2 * node, first, middle, from, to, cls);
    insert(2 * node + 1, middle, last, from, to, cls);
  }

  unsigned numPoints;
  std::vector<SmallVector<unsigned, 0>> lists;
};

/// Lowers the peak below the budget one decision at a time. At the current
/// peak, every gap whose off-device window would cover it is timed on every
/// reachable tier against the link traffic committed so far; the one that
/// removes the most over-budget memory per second of transfer wins. It stops
/// as soon as the budget holds, so that no more crosses the links than
/// needed.
class HyperOffloadPolicy {
public:
  /// With `exposeStoreTails`, a store that would land after the compute
  /// has ended counts as a stall of that length: the step waits for it.
  /// With `retimeLeading`, every choice that allows stalls may time an
  /// argument's first stretch apart from the peak, not only the last one.
  HyperOffloadPolicy(PlanningContext &context, bool exposeStoreTails,
                     bool retimeLeading)
      : context(context), exposeStoreTails(exposeStoreTails),
        retimeLeading(retimeLeading) {}

  SmallVector<Decision> run();

private:
  struct Choice {
    size_t candidate;
    GapWindow window;
    double score;
    double linkBusy;
    /// An argument's stretch before its first use, taken together with a
    /// later gap: dropping the fetched copy between uses relies on the tier
    /// holding the argument, so the caller must keep it there from entry.
    std::optional<size_t> leading;
    GapWindow leadingWindow;
  };

  /// Scores taking `gap` (and `leading`, if any) on `tier` at the peak.
  /// With `retimeLeading`, a leading stretch that cannot be timed around
  /// the peak is timed hidden, or with its fetch right before its use.
  std::optional<Choice> evaluate(size_t index, std::optional<size_t> leading,
                                 MemoryTier tier, unsigned peak,
                                 bool allowStalls, bool retimeLeading);

  /// The most `evaluate` can score for the same arguments: every over-budget
  /// point the gaps could relieve, at the least their transfers cost. Each
  /// term bounds the one `evaluate` adds, in the same order, so that the
  /// bound holds after rounding too.
  double getScoreBound(size_t index, std::optional<size_t> leading,
                       MemoryTier tier, bool allowStalls) const;

  std::optional<Choice> choose(unsigned peak, bool allowStalls,
                               bool retimeLeading = false);
  /// Among the decisions whose store lands after `peak`, inside their gap,
  /// makes compute wait at the peak for the one that frees the most bytes
  /// per second of waiting; false when there is none.
  bool waitForCommittedStore(unsigned peak, SmallVector<Decision> &decisions);
  /// Among the decisions whose buffer comes back before `peak` but is used
  /// only after it, issues the prefetch of the one that frees the most
  /// bytes per second of added waiting after the peak; false when there is
  /// none.
  bool delayCommittedPrefetch(unsigned peak, SmallVector<Decision> &decisions);
  /// Records where each class's windows may lie, so that `choose` times
  /// only the candidates that may relieve the peak.
  void indexCoverage();
  /// Records the points an argument's first stretch may cover as points
  /// class `cls` may cover.
  void indexLeadingCoverage(unsigned cls, const GapCandidate &leading);
  /// The untaken members of `cls` that `choose` must time: the first one,
  /// and for gaps between uses of arguments, the first one of each
  /// placement (not placed, or placed in a tier), as the placement decides
  /// what it may be taken with and where.
  void appendContenders(unsigned cls, SmallVectorImpl<size_t> &contenders);
  void take(size_t index) { classes->take(index); }
  bool isLeadingStretch(const GapCandidate &gap) const {
    return gap.lastUse == 0 &&
           context.getLiveness().getBuffer(gap.buffer).isArgument();
  }
  int64_t countOverflowPoints(unsigned first, unsigned last) const {
    return context.countOverBudget(first, last);
  }

  PlanningContext &context;
  bool exposeStoreTails;
  bool retimeLeading;
  std::vector<GapCandidate> candidates;
  /// Candidates that time alike (GapClasses.h): only the first untaken one
  /// of a class can win a choice, as ties go to the first candidate.
  std::optional<GapClasses> classes;
  /// The tier each argument was placed in, once its first gap is taken.
  DenseMap<BufferId, MemoryTier> argumentTier;
  /// Each argument's stretch before its first use, by buffer.
  DenseMap<BufferId, size_t> leadingGap;
  CoverageIndex coverage{context.getNumPoints()};
};

void HyperOffloadPolicy::indexCoverage() {
  // Members of a class cover the same points.
  for (unsigned cls : llvm::seq(classes->getNumClasses())) {
    const GapCandidate &gap = candidates[classes->getUntaken(cls).front()];
    if (isLeadingStretch(gap)) {
      indexLeadingCoverage(cls, gap);
      continue;
    }
    // Off the device strictly between the uses (and at the return, for a
    // result handed over in the tier)...
    coverage.insert(cls, gap.lastUse + 1, context.getReliefEnd(gap));
    // ...and, for an argument, possibly wherever its first stretch is.
    if (context.getLiveness().getBuffer(gap.buffer).isArgument())
      indexLeadingCoverage(cls, candidates[leadingGap.at(gap.buffer)]);
  }
}

void HyperOffloadPolicy::indexLeadingCoverage(unsigned cls,
                                              const GapCandidate &leading) {
  unsigned numPoints = context.getNumPoints();
  if (leading.nextUse == GapCandidate::kUnused) {
    coverage.insert(cls, 0, numPoints);
    return;
  }
  // Before the first use, and after the last use in the body, once the
  // fetched copy is dropped or stored back.
  coverage.insert(cls, 0, leading.nextUse);
  coverage.insert(cls, context.getLastUseInBody(leading.buffer) + 1, numPoints);
}

void HyperOffloadPolicy::appendContenders(unsigned cls,
                                          SmallVectorImpl<size_t> &contenders) {
  ArrayRef<size_t> untaken = classes->getUntaken(cls);
  const GapCandidate &first = candidates[untaken.front()];
  if (isLeadingStretch(first) ||
      !context.getLiveness().getBuffer(first.buffer).isArgument()) {
    contenders.push_back(untaken.front());
    return;
  }
  SmallVector<std::optional<MemoryTier>, 4> placements;
  size_t numPlacements = context.getTiers().size() + 1;
  for (size_t index : untaken) {
    auto placed = argumentTier.find(candidates[index].buffer);
    std::optional<MemoryTier> placement;
    if (placed != argumentTier.end())
      placement = placed->second;
    if (llvm::is_contained(placements, placement))
      continue;
    placements.push_back(placement);
    contenders.push_back(index);
    if (placements.size() == numPlacements)
      return;
  }
}

std::optional<HyperOffloadPolicy::Choice>
HyperOffloadPolicy::evaluate(size_t index, std::optional<size_t> leading,
                             MemoryTier tier, unsigned peak, bool allowStalls,
                             bool retimeLeading) {
  std::optional<unsigned> exposedAt;
  if (allowStalls)
    exposedAt = peak;
  int64_t size = context.getLiveness().getBuffer(candidates[index].buffer).size;
  Choice choice{index, {}, 0, context.getLinkBusyTime(tier), leading, {}};
  double transfer = 0, stall = 0, overflowPoints = 0;
  bool covers = false;
  // Sums what each gap of the choice relieves and costs.
  auto add = [&](size_t gapIndex, GapWindow &window,
                 std::optional<unsigned> exposed) {
    const GapCandidate &gap = candidates[gapIndex];
    std::optional<GapWindow> timed = context.timeGap(gap, tier, exposed);
    if (!timed)
      return false;
    window = *timed;
    covers |= window.covers(peak);
    if (gap.nextUse != GapCandidate::kUnused && !window.returnsRemote)
      transfer += *context.getTransferTime(tier, true, size);
    stall += window.stall + window.storeWait;
    // The step is over only when its stores have landed: what outlasts the
    // compute is exposed.
    double storeEnd = 0;
    if (window.storeStart) {
      transfer += *context.getTransferTime(tier, false, size);
      storeEnd = window.storeEnd;
    }
    if (window.trailingStoreStart) {
      transfer += window.trailingStoreEnd - *window.trailingStoreStart;
      storeEnd = std::max(storeEnd, window.trailingStoreEnd);
    }
    double tail = exposeStoreTails ? storeEnd - context.getComputeEnd() : 0;
    if (tail > 0 && !allowStalls)
      return false;
    stall += std::max(0.0, tail);
    overflowPoints += countOverflowPoints(
        window.firstFree, std::max(window.firstFree, window.prefetchBefore));
    if (window.trailingFree != 0)
      overflowPoints +=
          countOverflowPoints(window.trailingFree, context.getNumPoints());
    return true;
  };
  if (!add(index, choice.window, exposedAt))
    return std::nullopt;
  if (leading) {
    // The first stretch need not relieve the peak, the later gap does: when
    // it cannot be timed around the peak (the peak comes after the first
    // use), it may be timed hidden, or else with its fetch right before
    // that use.
    unsigned firstUse = candidates[*leading].nextUse;
    SmallVector<std::optional<unsigned>, 3> exposures = {exposedAt};
    if (exposedAt && retimeLeading) {
      exposures.push_back(std::nullopt);
      if (firstUse > 0 && firstUse != GapCandidate::kUnused)
        exposures.push_back(firstUse - 1);
    }
    auto before = std::make_tuple(transfer, stall, overflowPoints, covers);
    bool timed = false;
    for (std::optional<unsigned> exposed : exposures) {
      std::tie(transfer, stall, overflowPoints, covers) = before;
      if ((timed = add(*leading, choice.leadingWindow, exposed)))
        break;
    }
    if (!timed)
      return std::nullopt;
  }
  if (!covers)
    return std::nullopt;
  // The most relief per second of transfer; hidden transfers cost link
  // time, exposed ones mostly the wait. No transfer is free, however small:
  // each one is a copy to set up and an op in the schedule.
  double cost = allowStalls ? stall + 0.1 * transfer : transfer;
  cost = std::max(cost, kTransferSetupSeconds);
  choice.score = static_cast<double>(size) * overflowPoints / cost;
  return choice;
}

double HyperOffloadPolicy::getScoreBound(size_t index,
                                         std::optional<size_t> leading,
                                         MemoryTier tier,
                                         bool allowStalls) const {
  int64_t size = context.getLiveness().getBuffer(candidates[index].buffer).size;
  unsigned numPoints = context.getNumPoints();
  double transfer = 0, overflowPoints = 0;
  auto add = [&](const GapCandidate &gap) {
    bool unused = gap.nextUse == GapCandidate::kUnused;
    if (!unused && !context.endsAtReturn(gap))
      transfer += *context.getTransferTime(tier, true, size);
    if (isLeadingStretch(gap)) {
      // Off the device before the first use, and after the last one.
      overflowPoints +=
          countOverflowPoints(0, unused ? numPoints : gap.nextUse);
      if (!unused)
        overflowPoints += countOverflowPoints(
            context.getLastUseInBody(gap.buffer) + 1, numPoints);
      return;
    }
    if (!gap.clean)
      transfer += *context.getTransferTime(tier, false, size);
    overflowPoints +=
        countOverflowPoints(gap.lastUse + 1, context.getReliefEnd(gap));
  };
  add(candidates[index]);
  if (leading)
    add(candidates[*leading]);
  double cost = allowStalls ? 0.1 * transfer : transfer;
  cost = std::max(cost, kTransferSetupSeconds);
  return static_cast<double>(size) * overflowPoints / cost;
}

std::optional<HyperOffloadPolicy::Choice>
HyperOffloadPolicy::choose(unsigned peak, bool allowStalls,
                           bool retimeLeading) {
  const BufferLiveness &liveness = context.getLiveness();
  // What may be taken at the peak, in candidate and tier order.
  struct Option {
    size_t index;
    std::optional<size_t> leading;
    MemoryTier tier;
    double scoreBound;
  };
  SmallVector<Option> options;
  // The others' windows cannot cover the peak.
  SmallVector<size_t> contenders;
  for (unsigned cls : coverage.lookup(
           peak, [&](unsigned cls) { return classes->isExhausted(cls); }))
    appendContenders(cls, contenders);
  llvm::sort(contenders);
  for (size_t index : contenders) {
    const GapCandidate &gap = candidates[index];
    // An argument is fetched from the tier the caller keeps it in: a later
    // gap goes to the same tier, or comes with its first stretch.
    std::optional<size_t> leading;
    auto placed = argumentTier.find(gap.buffer);
    if (liveness.getBuffer(gap.buffer).isArgument() && gap.lastUse != 0 &&
        placed == argumentTier.end())
      leading = leadingGap.lookup(gap.buffer);
    // A gap between uses relieves only the points strictly inside it; an
    // argument's first stretch may cover any point.
    if (gap.lastUse != 0 && !leading &&
        (peak <= gap.lastUse || peak >= context.getReliefEnd(gap)))
      continue;
    for (MemoryTier tier : context.getTiers()) {
      if (placed != argumentTier.end() && placed->second != tier)
        continue;
      options.push_back({index, leading, tier,
                         getScoreBound(index, leading, tier, allowStalls)});
    }
  }
  // The highest score wins; on a tie the less busy link, so that traffic
  // spreads over tiers, and then the first option. Options are timed in
  // the order of what they can score at most, until none can reach the
  // best: timing is most of the planner's work.
  SmallVector<unsigned> order =
      llvm::to_vector(llvm::seq<unsigned>(0, options.size()));
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return options[a].scoreBound > options[b].scoreBound;
  });
  std::optional<Choice> best;
  int64_t bestPosition = 0;
  for (int64_t position : order) {
    const Option &option = options[position];
    if (best && option.scoreBound < best->score)
      break;
    std::optional<Choice> choice =
        evaluate(option.index, option.leading, option.tier, peak, allowStalls,
                 retimeLeading);
    if (choice &&
        (!best ||
         std::make_tuple(choice->score, -choice->linkBusy, -position) >
             std::make_tuple(best->score, -best->linkBusy, -bestPosition))) {
      best = choice;
      bestPosition = position;
    }
  }
  return best;
}

bool HyperOffloadPolicy::waitForCommittedStore(
    unsigned peak, SmallVector<Decision> &decisions) {
  Decision *best = nullptr;
  double bestScore = 0;
  for (Decision &decision : decisions) {
    auto &[gap, window] = decision;
    // What addStoreWait accepts, timed the same way.
    GapWindow waited = window;
    if ((window.waitBefore && *window.waitBefore <= peak) ||
        peak >= window.firstFree || peak >= window.prefetchBefore ||
        !context.waitForStore(waited, gap, peak))
      continue;
    int64_t size = context.getLiveness().getBuffer(gap.buffer).size;
    double score = static_cast<double>(size) /
                   std::max(waited.storeWait, kTransferSetupSeconds);
    if (!best || score > bestScore) {
      best = &decision;
      bestScore = score;
    }
  }
  return best && context.addStoreWait(best->first, best->second, peak);
}

bool HyperOffloadPolicy::delayCommittedPrefetch(
    unsigned peak, SmallVector<Decision> &decisions) {
  Decision *best = nullptr;
  double bestScore = 0;
  for (Decision &decision : decisions) {
    std::optional<double> added = context.delayPrefetchPast(
        decision.first, decision.second, peak, /*apply=*/false);
    if (!added)
      continue;
    int64_t size = context.getLiveness().getBuffer(decision.first.buffer).size;
    double score =
        static_cast<double>(size) / std::max(*added, kTransferSetupSeconds);
    if (!best || score > bestScore) {
      best = &decision;
      bestScore = score;
    }
  }
  return best && context.delayPrefetchPast(best->first, best->second, peak,
                                           /*apply=*/true);
}

SmallVector<Decision> HyperOffloadPolicy::run() {
  candidates = context.enumerateGaps();
  classes.emplace(context, candidates);
  for (auto [index, gap] : llvm::enumerate(candidates))
    if (isLeadingStretch(gap))
      leadingGap[gap.buffer] = index;
  indexCoverage();
  SmallVector<Decision> decisions;
  // Arguments nothing reads cost nothing to keep in the tier and relieve
  // every point alike: take the largest first, as many as the budget needs,
  // before weighing anything that moves.
  SmallVector<size_t> unused;
  for (auto [index, gap] : llvm::enumerate(candidates))
    if (gap.nextUse == GapCandidate::kUnused)
      unused.push_back(index);
  llvm::stable_sort(unused, [&](size_t a, size_t b) {
    return context.getLiveness().getBuffer(candidates[a].buffer).size >
           context.getLiveness().getBuffer(candidates[b].buffer).size;
  });
  for (size_t index : unused) {
    if (context.getLive(context.getPeakPoint()) <= context.getBudget())
      break;
    const GapCandidate &gap = candidates[index];
    MemoryTier tier = context.getTiers().front();
    std::optional<GapWindow> window = context.timeGap(gap, tier);
    take(index);
    argumentTier.try_emplace(gap.buffer, tier);
    context.commit(gap, *window);
    decisions.push_back({gap, *window});
  }
  while (true) {
    unsigned peak = context.getPeakPoint();
    if (context.getLive(peak) <= context.getBudget())
      break;
    // Hidden transfers first; when none relieves the peak, the budget still
    // comes first: take the one that makes compute wait the least.
    std::optional<Choice> choice = choose(peak, /*allowStalls=*/false);
    if (!choice)
      choice = choose(peak, /*allowStalls=*/true, retimeLeading);
    // An argument's first stretch timed apart from the peak: a last resort,
    // as it tends to make compute wait more than the choices above.
    if (!choice)
      choice = choose(peak, /*allowStalls=*/true, /*retimeLeading=*/true);
    if (!choice) {
      // A buffer already taken may be freed too late for this peak: its
      // store was timed for an earlier one. Waiting for it here still
      // relieves the peak.
      if (waitForCommittedStore(peak, decisions) ||
          delayCommittedPrefetch(peak, decisions))
        continue;
      break; // Nothing more can be moved out at the peak.
    }
    if (choice->leading) {
      const GapCandidate &leading = candidates[*choice->leading];
      take(*choice->leading);
      context.commit(leading, choice->leadingWindow);
      decisions.push_back({leading, choice->leadingWindow});
    }
    const GapCandidate &gap = candidates[choice->candidate];
    take(choice->candidate);
    if (context.getLiveness().getBuffer(gap.buffer).isArgument())
      argumentTier.try_emplace(gap.buffer, choice->window.tier);
    context.commit(gap, choice->window);
    decisions.push_back({gap, choice->window});
  }
  // Where the links cannot hide everything, memory left under the budget
  // is better spent fetching early: issue the prefetches that would stall
  // as early as the budget allows, the earliest use first.
  SmallVector<Decision *> exposed;
  for (Decision &decision : decisions)
    if (decision.second.stall > 0)
      exposed.push_back(&decision);
  llvm::stable_sort(exposed, [](Decision *a, Decision *b) {
    return a->first.nextUse < b->first.nextUse;
  });
  for (Decision *decision : exposed)
    context.hoistIntoSlack(decision->first, decision->second);
  return decisions;
}

//===----------------------------------------------------------------------===//
// Baselines
//===----------------------------------------------------------------------===//

/// The role the workload builders give an argument, if any.
static llvm::StringRef getArgumentRole(Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg)
    return "";
  auto function =
      dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!function)
    return "";
  auto role =
      function.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kRoleAttrName);
  return role ? role.getValue() : "";
}

/// `place(tier)` on the link where its copies, queued behind those already
/// committed, complete first; the fastest link on a tie. How a baseline
/// that may use every link the target has spreads its copies over them.
template <typename Place>
static GapWindow placeOnLinkDoneFirst(const PlanningContext &context,
                                      const PlannerOptions &options,
                                      Place place) {
  if (!options.everyLink)
    return place(context.getTiers().front());
  std::optional<GapWindow> best;
  double bestCompletion = 0;
  for (MemoryTier tier : context.getTiers()) {
    GapWindow window = place(tier);
    double completion = context.getQueuedCompletion(window);
    if (!best || completion < bestCompletion) {
      best = window;
      bestCompletion = completion;
    }
  }
  return *best;
}

/// Always offload: the KV caches, the optimizer states and every activation
/// with an op between two uses leave right after a use and are fetched
/// right before the next one, with no lookahead and no regard for the
/// budget.
SmallVector<Decision> runNaive(PlanningContext &context,
                               const PlannerOptions &options) {
  SmallVector<Decision> decisions;
  for (const GapCandidate &gap : context.enumerateGaps()) {
    const BufferInfo &buffer = context.getLiveness().getBuffer(gap.buffer);
    if (buffer.isArgument()) {
      llvm::StringRef role = getArgumentRole(buffer.root);
      bool eligible = role == "kv_cache" || role == "optimizer_state" ||
                      role == "master_weight" ||
                      (role.empty() && context.isReturned(gap.buffer) &&
                       context.isWrittenInPlace(gap.buffer));
      if (!eligible || gap.lastUse != 0)
        continue;
    }
    GapWindow window =
        placeOnLinkDoneFirst(context, options, [&](MemoryTier tier) {
          return context.placeByDistance(gap, tier, /*lead=*/0);
        });
    context.commit(gap, window);
    decisions.push_back({gap, window});
  }
  return decisions;
}

/// Every gap out and back (computed results only out): the plan of
/// PlannerOptions::leastMemory.
SmallVector<Decision> runLeastMemory(PlanningContext &context,
                                     bool waitAfterEveryStore) {
  MemoryTier tier = context.getTiers().front();
  SmallVector<Decision> decisions;
  unsigned exit = context.getLiveness().getExitPoint();
  for (const GapCandidate &gap : context.enumerateGaps()) {
    // A remote argument returned updated goes back to its tier after its
    // last use in the body (its trailing stretch), not fetched for exit.
    if (gap.nextUse == exit &&
        context.getLiveness().getBuffer(gap.buffer).isArgument())
      continue;
    GapWindow window = context.placeByDistance(gap, tier, /*lead=*/0);
    // The caller gets a computed result in the tier.
    if (context.endsAtReturn(gap)) {
      window.returnsRemote = true;
      window.prefetchBefore = gap.nextUse + 1;
    }
    context.commit(gap, window);
    decisions.push_back({gap, window});
  }
  // Compute waits for a store where the memory it frees is needed: before
  // the first op over the budget, or before the very next op.
  for (auto &[gap, window] : decisions) {
    if (!window.storeStart || window.firstFree <= gap.lastUse + 1)
      continue;
    unsigned point = waitAfterEveryStore
                         ? gap.lastUse + 1
                         : context.getFirstPointOverBudget(gap.lastUse + 1,
                                                           window.firstFree);
    if (point < window.firstFree)
      context.addStoreWait(gap, window, point);
  }
  return decisions;
}

/// MindSpore's shipped heuristic: gaps of at least `minGap` ops, the
/// `maxTensors` largest of them, prefetched `lead` ops before the next use
/// and stored right after the last one. Distances are counted in ops.
SmallVector<Decision> runDistance(PlanningContext &context,
                                  const PlannerOptions &options) {
  std::vector<GapCandidate> selected;
  for (const GapCandidate &gap : context.enumerateGaps()) {
    bool argument = context.getLiveness().getBuffer(gap.buffer).isArgument();
    if (argument && gap.lastUse != 0)
      continue; // One decision per argument: where the caller keeps it.
    if (gap.nextUse - gap.lastUse >= options.distanceMinGap)
      selected.push_back(gap);
  }
  llvm::stable_sort(selected,
                    [&](const GapCandidate &a, const GapCandidate &b) {
                      return context.getLiveness().getBuffer(a.buffer).size >
                             context.getLiveness().getBuffer(b.buffer).size;
                    });
  if (selected.size() > options.distanceMaxTensors)
    selected.resize(options.distanceMaxTensors);

  SmallVector<Decision> decisions;
  for (const GapCandidate &gap : selected) {
    GapWindow window =
        placeOnLinkDoneFirst(context, options, [&](MemoryTier tier) {
          return context.placeByDistance(gap, tier,
                                         options.distancePrefetchLead);
        });
    context.commit(gap, window);
    decisions.push_back({gap, window});
  }
  return decisions;
}
/// The layer an op belongs to by its name, with the pass it runs in:
/// "layer 3" or "backward / layer 3"; empty when it names none.
static std::string getLayerKey(Operation *op) {
  auto named = dyn_cast<NameLoc>(op->getLoc());
  if (!named)
    return "";
  llvm::StringRef name = named.getName().getValue();
  size_t layer = name.find("layer ");
  if (layer == llvm::StringRef::npos)
    return "";
  size_t end = name.find(" /", layer);
  return name.substr(0, end).str();
}

/// Issues the fetches of `decisions`, on a compute timeline that waits for
/// them, each at the last op before its link would run out of work (or at
/// its current place, the latest), in the order of use on each link. A link
/// moves one copy at a time at full bandwidth, so a fetch issued earlier
/// would only wait in its queue, holding its buffer.
static void paceFetches(PlanningContext &context,
                        MutableArrayRef<Decision> decisions) {
  const BufferLiveness &liveness = context.getLiveness();
  // Each link's fetches in the order of their use.
  std::array<SmallVector<Decision *>, 3> queues;
  DenseMap<unsigned, SmallVector<Decision *, 2>> usedAt;
  for (Decision &decision : decisions) {
    queues[static_cast<unsigned>(decision.second.tier)].push_back(&decision);
    usedAt[decision.first.nextUse].push_back(&decision);
  }
  for (SmallVector<Decision *> &queue : queues)
    llvm::stable_sort(queue, [](Decision *a, Decision *b) {
      return a->first.nextUse < b->first.nextUse;
    });
  std::array<size_t, 3> next = {0, 0, 0};
  std::array<double, 3> linkFree = {0, 0, 0};
  DenseMap<Decision *, double> landed;
  double now = 0;
  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    // The op waits for what it reads; the next chance to issue is after it.
    auto reads = usedAt.find(point);
    OpCost cost = estimateOpCost(liveness.getOp(point), context.getTarget());
    auto nextChance = [&] {
      double start = now;
      if (reads != usedAt.end())
        for (Decision *decision : reads->second)
          start = std::max(start, landed.lookup(decision));
      // Links that are moving bytes slow memory-bound ops down.
      double shareLost = 0;
      for (auto [tierIndex, free] : llvm::enumerate(linkFree))
        if (free > start)
          shareLost += context.getTarget()
                           .getLink(static_cast<MemoryTier>(tierIndex))
                           ->hbmContention;
      return start + cost.getSecondsUnderContention(std::min(shareLost, 0.9));
    };
    for (auto [tierIndex, queue] : llvm::enumerate(queues)) {
      auto tier = static_cast<MemoryTier>(tierIndex);
      while (next[tierIndex] < queue.size()) {
        auto &[gap, window] = *queue[next[tierIndex]];
        // Issue when the link would idle before the next chance, and at its
        // place in the program at the latest.
        bool due = window.prefetchBefore <= point;
        if (!due && (linkFree[tierIndex] >= nextChance() ||
                     !context.issuePrefetchEarlier(gap, window, point)))
          break;
        int64_t size = liveness.getBuffer(gap.buffer).size;
        double start = std::max(now, linkFree[tierIndex]);
        linkFree[tierIndex] =
            start + *context.getTransferTime(tier, /*toDevice=*/true, size);
        landed[queue[next[tierIndex]]] = linkFree[tierIndex];
        ++next[tierIndex];
      }
    }
    now = nextChance();
  }
}

/// ZeRO-Infinity-style parameter prefetch: layers are the stretches of ops
/// named after one layer, in execution order (the backward pass visits them
/// again, in reverse); every weight argument stays in the tier and is
/// fetched when the layer `windowLayers` before the one that uses it
/// starts. No cost model and no budget: the window is the knob. (The
/// HyperOffload planner also tries a variant that keeps the leading layers'
/// weights resident and issues each fetch as early as the budget allows.)
SmallVector<Decision> runWindow(PlanningContext &context,
                                const PlannerOptions &options) {
  const BufferLiveness &liveness = context.getLiveness();
  // The first point of every layer stretch, and the stretch of each point.
  SmallVector<unsigned> stretchStart;
  SmallVector<unsigned> stretchOf(liveness.getExitPoint() + 1, 0);
  std::string current;
  for (unsigned point = 1; point < liveness.getExitPoint(); ++point) {
    std::string key = getLayerKey(liveness.getOp(point));
    if (!key.empty() && key != current) {
      stretchStart.push_back(point);
      current = key;
    }
    stretchOf[point] = stretchStart.empty() ? 0 : stretchStart.size() - 1;
  }
  stretchOf[liveness.getExitPoint()] = stretchOf[liveness.getExitPoint() - 1];
  // Which layers keep their weights on the device.
  uint64_t numStretches = std::max<size_t>(stretchStart.size(), 1);
  uint64_t numResident =
      std::min<uint64_t>(options.windowResidentLayers, numStretches);
  auto isResident = [&](uint64_t stretch) {
    if (!options.windowSpreadResidents)
      return stretch < numResident;
    // Evenly spaced from the first: layer floor(m * numStretches /
    // numResident) for each m < numResident, where [stretch, stretch + 1)
    // scaled by numResident / numStretches holds an integer.
    return llvm::divideCeil((stretch + 1) * numResident, numStretches) >
           llvm::divideCeil(stretch * numResident, numStretches);
  };

  SmallVector<Decision> decisions;
  // Weights the caller keeps in a tier, and which: only those can be
  // dropped and fetched again between uses, from the same tier.
  DenseMap<BufferId, MemoryTier> remote;
  // ZeRO-Infinity configures one offload tier; as a baseline that may use
  // every link, and in the planner's variant, each weight
  // goes on the link that would be done with it first, among the links it
  // would keep moving bytes at least half the time it holds them.
  auto pickTier = [&](BufferId id) {
    auto placed = remote.find(id);
    if (placed != remote.end())
      return placed->second;
    ArrayRef<MemoryTier> tiers = context.getTiers();
    if (!options.windowHoistFetches && !options.everyLink)
      return tiers.front();
    int64_t size = liveness.getBuffer(id).size;
    auto doneBy = [&](MemoryTier tier) {
      return context.getLinkBusyTime(tier) +
             *context.getTransferTime(tier, /*toDevice=*/true, size);
    };
    // What a copy holds its link for: its bytes, and its latency shared
    // with the copies in the link's other queues.
    auto moving = [&](MemoryTier tier) {
      return size / context.getTarget().getLink(tier)->bandwidthToDevice;
    };
    auto waiting = [&](MemoryTier tier) {
      const LinkModel *link = context.getTarget().getLink(tier);
      return link->latency / link->queuesPerDirection;
    };
    SmallVector<MemoryTier> efficient = llvm::to_vector(llvm::make_filter_range(
        tiers, [&](MemoryTier tier) { return moving(tier) >= waiting(tier); }));
    // A copy that mostly waits on every link (a norm's weights) takes the
    // one it holds least: on a slow link with one queue it would hold up
    // the large copies behind it.
    if (efficient.empty())
      return *llvm::min_element(tiers, [&](MemoryTier a, MemoryTier b) {
        return moving(a) + waiting(a) < moving(b) + waiting(b);
      });
    return *llvm::min_element(efficient, [&](MemoryTier a, MemoryTier b) {
      return doneBy(a) < doneBy(b);
    });
  };
  for (const GapCandidate &gap : context.enumerateGaps()) {
    const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
    if (gap.lastUse != 0 && !remote.contains(gap.buffer))
      continue;
    if (!buffer.isArgument() || getArgumentRole(buffer.root) != "weight")
      continue;
    if (options.windowPartitionAll) {
      // ZeRO-3 partitions every parameter but the small ones, and fetches
      // one only when an op reads it.
      auto type = dyn_cast<ShapedType>(buffer.root.getType());
      if (type && type.hasStaticShape() &&
          type.getNumElements() < options.windowPersistenceThreshold)
        continue;
      if (gap.nextUse == GapCandidate::kUnused) {
        MemoryTier tier = pickTier(gap.buffer);
        std::optional<GapWindow> window = context.timeGap(gap, tier);
        if (!window)
          continue;
        context.commit(gap, *window);
        decisions.push_back({gap, *window});
        remote.try_emplace(gap.buffer, tier);
        continue;
      }
    } else if (gap.nextUse == GapCandidate::kUnused ||
               getLayerKey(liveness.getOp(std::min(
                               gap.nextUse, liveness.getExitPoint() - 1)))
                   .empty()) {
      continue;
    }
    unsigned stretch = stretchOf[gap.nextUse];
    if (!remote.contains(gap.buffer) && isResident(stretch))
      continue;
    unsigned issue = stretch >= options.windowLayers
                         ? stretchStart[stretch - options.windowLayers]
                         : 1;
    if (options.windowFetchAtUse)
      issue = gap.nextUse;
    MemoryTier tier = pickTier(gap.buffer);
    GapWindow window = context.placeBefore(gap, tier, issue);
    context.commit(gap, window);
    decisions.push_back({gap, window});
    remote.try_emplace(gap.buffer, tier);
  }
  if (options.windowHoistFetches && options.windowPaceFetches) {
    paceFetches(context, decisions);
  } else if (options.windowHoistFetches) {
    // The earliest use first, so that the link starts on what is needed
    // first.
    SmallVector<Decision *> byUse;
    for (Decision &decision : decisions)
      byUse.push_back(&decision);
    llvm::stable_sort(byUse, [](Decision *a, Decision *b) {
      return a->first.nextUse < b->first.nextUse;
    });
    for (Decision *decision : byUse)
      context.hoistIntoSlack(decision->first, decision->second);
  }
  return decisions;
}
/// Whether `op` belongs to the backward pass, by its name.
static bool isBackward(Operation *op) {
  if (!op)
    return false;
  auto named = dyn_cast<NameLoc>(op->getLoc());
  return named && named.getName().getValue().starts_with("backward /");
}

/// PyTorch's compiled activation offloading (torch/_functorch/
/// _activation_offloading): every activation whose last forward use is
/// followed by a use in the backward pass is stored right after that
/// forward use and reloaded before the backward use; the reload is then
/// hoisted op by op until the compute before the use covers the copy at one
/// scalar bandwidth (that of the link the copy takes). No link model, no
/// budget. Without reload prefetch the reload is issued right before its
/// use; without a copy stream compute also waits for each offload right
/// after it.
SmallVector<Decision> runPT2(PlanningContext &context,
                             const PlannerOptions &options) {
  const BufferLiveness &liveness = context.getLiveness();
  SmallVector<Decision> decisions;
  for (const GapCandidate &gap : context.enumerateGaps()) {
    const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
    if (buffer.isArgument() || gap.nextUse >= liveness.getExitPoint() ||
        isBackward(liveness.getOp(gap.lastUse)) ||
        !isBackward(liveness.getOp(gap.nextUse)))
      continue;
    GapWindow window =
        placeOnLinkDoneFirst(context, options, [&](MemoryTier tier) {
          const LinkModel &link = *context.getTarget().getLink(tier);
          double needed = buffer.size / link.bandwidthToDevice;
          unsigned issue = gap.nextUse;
          while (options.pt2ReloadPrefetch && issue > gap.lastUse + 1 &&
                 context.getStart(gap.nextUse) - context.getStart(issue) <
                     needed)
            --issue;
          return context.placeBefore(gap, tier, issue);
        });
    context.commit(gap, window);
    if (!options.pt2SeparateStream)
      context.addStoreWait(gap, window, gap.lastUse + 1);
    decisions.push_back({gap, window});
  }
  return decisions;
}
} // namespace

/// Plans with the HyperOffload policy. Exposing the stores that outlast the
/// compute steers the plan away from write-backs at the end of the step,
/// but can leave the greedy search without a way under the budget; then the
/// plan that ignores them is taken.
static OffloadPlan planHyperOffload(Block &body, const Target &target,
                                    const PlannerOptions &options) {
  int64_t budget = options.budget;
  OffloadPlan plan;
  for (bool exposeStoreTails : {true, false}) {
    PlanningContext context(body, target, budget);
    context.setEarlyStoreWaits(options.earlyStoreWaits);
    SmallVector<Decision> decisions;
    if (!context.getTiers().empty())
      decisions = HyperOffloadPolicy(context, exposeStoreTails,
                                     options.retimeLeadingStretches)
                      .run();
    plan = OffloadPlan();
    context.fillPlan(plan, decisions);
    if (plan.estimatedPeak <= budget)
      break;
  }
  return plan;
}

OffloadPlan ho::planOffload(Block &body, const Target &target,
                            const PlannerOptions &options) {
  if (options.policy == OffloadPolicy::HyperOffload && !options.leastMemory)
    return planHyperOffload(body, target, options);
  PlanningContext context(body, target, options.budget);
  SmallVector<Decision> decisions;
  if (!context.getTiers().empty()) {
    switch (options.policy) {
    case OffloadPolicy::HyperOffload:
      decisions = runLeastMemory(context, options.waitAfterEveryStore);
      break;
    case OffloadPolicy::Naive:
      decisions = runNaive(context, options);
      break;
    case OffloadPolicy::Distance:
      decisions = runDistance(context, options);
      break;
    case OffloadPolicy::Window:
      decisions = runWindow(context, options);
      break;
    case OffloadPolicy::PT2:
      decisions = runPT2(context, options);
      break;
    case OffloadPolicy::Exact:
      llvm_unreachable("the exact plan is searched on the simulator");
    }
  }
  OffloadPlan plan;
  context.fillPlan(plan, decisions);
  return plan;
}
