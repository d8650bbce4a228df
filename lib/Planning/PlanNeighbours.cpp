//===- PlanNeighbours.cpp - Plans one change away from a plan -------------===//

#include "PlanNeighbours.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ho;

namespace {

/// Builds the neighbours of one plan.
class NeighbourBuilder {
public:
  NeighbourBuilder(const OffloadPlan &plan, const PlanningContext &context)
      : plan(plan), context(context) {}

  std::vector<NeighbourPlan> build();
  std::vector<NeighbourPlan> buildStoreMoves();

private:
  /// The point after which the gap's data may leave: the use before it,
  /// or entry for an argument's first stretch.
  unsigned getLastUse(const PlannedGap &gap) const;
  bool isFirstStretch(const PlannedGap &gap) const {
    return !gap.carrier && isArgument(gap.buffer);
  }
  bool isArgument(BufferId buffer) const {
    return context.getLiveness().getBuffer(buffer).isArgument();
  }
  unsigned getArgumentNumber(BufferId buffer) const {
    return cast<BlockArgument>(context.getLiveness().getBuffer(buffer).root)
        .getArgNumber();
  }
  /// Adds `plan` with its gap `index` changed by `change`.
  template <typename Change>
  void addWithGap(unsigned index, Change change, bool savesMemory = false);
  void addGapMoves(unsigned index);
  /// Adds `plan` with the store of its gap `index` issued one op earlier
  /// or later.
  void addStoreMoves(unsigned index);
  void addArgumentMoves(const RemoteArgument &argument);
  /// Adds `plan` with `gap`, which it does not take, taken.
  void addTakenGap(const GapCandidate &gap);
  /// `plan` without the argument `number` and its gaps, or, with `tier`,
  /// with all of them in that tier.
  OffloadPlan withArgument(unsigned number,
                           std::optional<MemoryTier> tier) const;

  const OffloadPlan &plan;
  const PlanningContext &context;
  std::vector<NeighbourPlan> neighbours;
};

} // namespace

unsigned NeighbourBuilder::getLastUse(const PlannedGap &gap) const {
  if (!gap.carrier)
    return 0;
  ArrayRef<unsigned> uses = context.getUsePoints(gap.buffer);
  const unsigned *next = llvm::lower_bound(uses, gap.nextUse);
  return next == uses.begin() ? 0 : *std::prev(next);
}

template <typename Change>
void NeighbourBuilder::addWithGap(unsigned index, Change change,
                                  bool savesMemory) {
  OffloadPlan neighbour = plan;
  change(neighbour.gaps[index]);
  neighbours.push_back({std::move(neighbour), savesMemory});
}

void NeighbourBuilder::addGapMoves(unsigned index) {
  const PlannedGap &gap = plan.gaps[index];
  bool firstStretch = isFirstStretch(gap);
  // An argument's first stretch is the argument being remote: it goes, and
  // changes tier, with the argument (addArgumentMoves).
  if (!firstStretch) {
    OffloadPlan without = plan;
    without.gaps.erase(without.gaps.begin() + index);
    neighbours.push_back({std::move(without)});
    if (!isArgument(gap.buffer))
      for (MemoryTier tier : context.getTiers())
        if (tier != gap.tier)
          addWithGap(index, [&](PlannedGap &moved) { moved.tier = tier; });
  }
  unsigned lastUse = getLastUse(gap);
  // Waits before ops in [lastUse + 1, prefetchBefore]: a wait before the
  // op a fetch is issued before comes first.
  if (gap.waitBefore) {
    unsigned wait = *gap.waitBefore;
    addWithGap(index, [](PlannedGap &moved) { moved.waitBefore.reset(); });
    if (wait > lastUse + 1)
      addWithGap(
          index, [&](PlannedGap &moved) { moved.waitBefore = wait - 1; },
          /*savesMemory=*/true);
    if (wait < gap.prefetchBefore)
      addWithGap(index,
                 [&](PlannedGap &moved) { moved.waitBefore = wait + 1; });
  }
  if (gap.returnsRemote)
    return;
  // Fetches before ops in [lastUse + 2, nextUse] (a fetch right after the
  // use frees nothing), or from the first op for a first stretch, and not
  // before the wait.
  unsigned earliest = firstStretch ? 1 : lastUse + 2;
  if (gap.waitBefore)
    earliest = std::max(earliest, *gap.waitBefore);
  unsigned prefetch = gap.prefetchBefore;
  if (prefetch > earliest)
    addWithGap(index,
               [&](PlannedGap &moved) { moved.prefetchBefore = prefetch - 1; });
  if (prefetch < gap.nextUse)
    addWithGap(
        index, [&](PlannedGap &moved) { moved.prefetchBefore = prefetch + 1; },
        /*savesMemory=*/true);
}

void NeighbourBuilder::addStoreMoves(unsigned index) {
  const PlannedGap &gap = plan.gaps[index];
  if (!gap.storeAfter)
    return;
  unsigned store = *gap.storeAfter;
  unsigned lastUse = getLastUse(gap);
  if (store > context.getStoreReadyPoint(gap.buffer, lastUse))
    addWithGap(
        index, [&](PlannedGap &moved) { moved.storeAfter = store - 1; },
        /*savesMemory=*/true);
  if (store < lastUse)
    addWithGap(index, [&](PlannedGap &moved) { moved.storeAfter = store + 1; });
}

OffloadPlan
NeighbourBuilder::withArgument(unsigned number,
                               std::optional<MemoryTier> tier) const {
  OffloadPlan neighbour = plan;
  auto ofArgument = [&](const PlannedGap &gap) {
    return isArgument(gap.buffer) && getArgumentNumber(gap.buffer) == number;
  };
  if (tier) {
    for (RemoteArgument &argument : neighbour.remoteArguments)
      if (argument.index == number)
        argument.tier = *tier;
    for (PlannedGap &gap : neighbour.gaps)
      if (ofArgument(gap))
        gap.tier = *tier;
    return neighbour;
  }
  llvm::erase_if(neighbour.remoteArguments, [&](const RemoteArgument &other) {
    return other.index == number;
  });
  llvm::erase_if(neighbour.gaps, ofArgument);
  return neighbour;
}

void NeighbourBuilder::addArgumentMoves(const RemoteArgument &argument) {
  neighbours.push_back({withArgument(argument.index, std::nullopt)});
  for (MemoryTier tier : context.getTiers())
    if (tier != argument.tier)
      neighbours.push_back({withArgument(argument.index, tier)});
  if (argument.storeBackWaitBefore) {
    OffloadPlan neighbour = plan;
    for (RemoteArgument &other : neighbour.remoteArguments)
      if (other.index == argument.index)
        other.storeBackWaitBefore.reset();
    neighbours.push_back({std::move(neighbour)});
  }
}

void NeighbourBuilder::addTakenGap(const GapCandidate &gap) {
  bool argument = isArgument(gap.buffer);
  bool firstStretch = argument && gap.lastUse == 0;
  const RemoteArgument *kept = nullptr;
  if (argument)
    kept = llvm::find_if(plan.remoteArguments, [&](const RemoteArgument &a) {
      return a.index == getArgumentNumber(gap.buffer);
    });
  if (kept == plan.remoteArguments.end())
    kept = nullptr;
  // An argument's later gap needs its first stretch, in its tier.
  if ((firstStretch && kept) || (argument && !firstStretch && !kept))
    return;
  bool taken = llvm::any_of(plan.gaps, [&](const PlannedGap &other) {
    return other.buffer == gap.buffer && other.nextUse == gap.nextUse;
  });
  if (taken)
    return;
  MemoryTier tier = kept ? kept->tier : context.getTiers().front();
  std::optional<GapWindow> window;
  if (gap.nextUse != GapCandidate::kUnused) {
    window = context.timeGap(gap, tier);
    if (!window && context.endsAtReturn(gap))
      return;
    if (!window)
      window = context.placeBefore(gap, tier, gap.nextUse);
    if (window->isEmpty())
      return;
  }
  OffloadPlan neighbour = plan;
  if (firstStretch) {
    RemoteArgument added{getArgumentNumber(gap.buffer), tier};
    neighbour.remoteArguments.insert(
        llvm::upper_bound(neighbour.remoteArguments, added,
                          [](const RemoteArgument &a, const RemoteArgument &b) {
                            return a.index < b.index;
                          }),
        added);
  }
  if (window) {
    PlannedGap added = context.makePlannedGap(gap, *window);
    neighbour.gaps.insert(
        llvm::upper_bound(neighbour.gaps, added,
                          [](const PlannedGap &a, const PlannedGap &b) {
                            return std::make_pair(a.buffer, a.nextUse) <
                                   std::make_pair(b.buffer, b.nextUse);
                          }),
        added);
  }
  neighbours.push_back(
      {std::move(neighbour), /*savesMemory=*/true, /*alone=*/false});
}

std::vector<NeighbourPlan> NeighbourBuilder::build() {
  for (const RemoteArgument &argument : plan.remoteArguments)
    addArgumentMoves(argument);
  for (unsigned index = 0, e = plan.gaps.size(); index < e; ++index)
    addGapMoves(index);
  for (const GapCandidate &gap : context.enumerateGaps())
    addTakenGap(gap);
  return std::move(neighbours);
}

std::vector<NeighbourPlan> NeighbourBuilder::buildStoreMoves() {
  for (unsigned index = 0, e = plan.gaps.size(); index < e; ++index)
    addStoreMoves(index);
  return std::move(neighbours);
}

std::vector<NeighbourPlan>
ho::getNeighbourPlans(const OffloadPlan &plan, const PlanningContext &context) {
  return NeighbourBuilder(plan, context).build();
}

std::vector<NeighbourPlan> ho::getStoreMoves(const OffloadPlan &plan,
                                             const PlanningContext &context) {
  return NeighbourBuilder(plan, context).buildStoreMoves();
}
