//===- StarvedPrefetches.cpp - Fetches issued where a link starved --------===//

#include "StarvedPrefetches.h"

#include "StaticPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

using namespace mlir;
using namespace mlir::ho;

/// How many times the repair simulates at most.
static constexpr unsigned kMaxRounds = 256;
/// A link idle for less than this before a prefetch is not worth a move.
static constexpr double kMinLinkIdleSeconds = 1e-6;

/// The first prefetch in `run` that starts on a link left idle before it,
/// and the op that was running when that link went idle; {} when none is
/// left that `skip` allows.
static std::pair<PrefetchOp, Operation *>
findFirstStarvedPrefetch(Block &body, const SimulationResult &run,
                         llvm::function_ref<bool(PrefetchOp)> skip) {
  // The op that was running at each time: the last one issued by then.
  SmallVector<std::pair<double, Operation *>> issued;
  for (Operation &op : body)
    if (auto time = run.issueTimes.find(&op); time != run.issueTimes.end())
      issued.push_back({time->second, &op});
  auto runningAt = [&](double time) -> Operation * {
    auto after =
        llvm::upper_bound(issued, time, [](double t, const auto &entry) {
          return t < entry.first;
        });
    return after == issued.begin() ? nullptr : std::prev(after)->second;
  };
  std::array<double, 3> linkFree = {0, 0, 0};
  std::pair<PrefetchOp, Operation *> first;
  double firstIdleSince = 0;
  for (const TransferRecord &transfer : run.transfers) {
    if (transfer.direction != Direction::ToDevice)
      continue;
    unsigned link = static_cast<unsigned>(transfer.tier);
    double idleSince = linkFree[link];
    linkFree[link] = std::max(linkFree[link], transfer.endTime);
    auto prefetch = dyn_cast_or_null<PrefetchOp>(transfer.op);
    if (!prefetch || transfer.startTime - idleSince < kMinLinkIdleSeconds ||
        (first.first && idleSince >= firstIdleSince) || skip(prefetch))
      continue;
    Operation *running = runningAt(idleSince);
    if (!running || !running->isBeforeInBlock(prefetch))
      continue;
    first = {prefetch, running};
    firstIdleSince = idleSince;
  }
  return first;
}

OwningOpRef<func::FuncOp>
ho::issueStarvedPrefetchesEarlier(func::FuncOp planned, const Target &target,
                                  const SimulationOptions &simulation) {
  // A move is kept whenever the run still fits, static offsets included,
  // even if the step does not shrink yet: the fetches after it are still
  // issued where they were, so closing one gap pays only once the gaps
  // after it are closed too. A fetch is issued before the op that was
  // running when its link went idle, or on a second try after that op,
  // where it shares the link less with a copy the op may await.
  OwningOpRef<func::FuncOp> copy = planned.clone();
  Block &body = copy->getBody().front();
  FailureOr<SimulationResult> run = simulate(body, target, simulation);
  if (failed(run) || run->outOfMemory)
    return nullptr;
  auto fitsWithStaticOffsets = [&](const SimulationResult &result) {
    if (result.outOfMemory || !result.prematurePrefetches.empty())
      return false;
    BufferLiveness liveness(body, target.device.allocationGranularity);
    return assignOffsets(liveness, result, simulation.budget).getArenaSize() <=
           simulation.budget;
  };
  double fastest = run->stepTime;
  OwningOpRef<func::FuncOp> fastestCopy;
  // Prefetches tried before the running op, and then after it too.
  llvm::DenseSet<Operation *> triedOnce, triedTwice;
  auto triedEverywhere = [&](PrefetchOp prefetch) {
    return triedTwice.contains(prefetch);
  };
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    auto [prefetch, running] =
        findFirstStarvedPrefetch(body, *run, triedEverywhere);
    if (!prefetch)
      break;
    bool secondTry = !triedOnce.insert(prefetch).second;
    if (secondTry)
      triedTwice.insert(prefetch);
    Operation *before = secondTry ? running->getNextNode() : running;
    Operation *source = prefetch.getSource().getDefiningOp();
    if (before == prefetch || (source && !source->isBeforeInBlock(before)))
      continue;
    Operation *place = prefetch->getNextNode();
    prefetch->moveBefore(before);
    FailureOr<SimulationResult> next = simulate(body, target, simulation);
    if (failed(next) || !fitsWithStaticOffsets(*next)) {
      prefetch->moveBefore(place);
      continue;
    }
    if (next->stepTime < fastest) {
      fastest = next->stepTime;
      fastestCopy = copy->clone();
    }
    run = std::move(next);
  }
  return fastestCopy;
}
