//===- RoutedExperts.cpp - Experts picked at run time, in the simulator ---===//
//
// Every ho.routed op gets its picks from the run's routing options, shifted
// to the device being simulated; every ho.prefetch_routed fetches the
// picked (or predicted) experts among its own; the routed op waits for the
// picked remote experts its slots lack. Cost and the reactive runtime's
// fetches follow the picks, so an expert nobody picked costs nothing.
//
//===----------------------------------------------------------------------===//

#include "TimelineSimulator.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

/// The ho.routed op that reads the slots `prefetch` fills, if any.
static RoutedOp getSlotReader(PrefetchRoutedOp prefetch) {
  for (Operation *user : prefetch.getResult().getUsers())
    if (auto await = dyn_cast<AwaitOp>(user))
      for (Operation *reader : await.getResult().getUsers())
        if (auto routed = dyn_cast<RoutedOp>(reader);
            routed && routed.getStaged() == await.getResult())
          return routed;
  return nullptr;
}

LogicalResult TimelineSimulator::drawRouting() {
  unsigned layer = 0;
  DenseMap<Operation *, unsigned> layerOf;
  for (Operation &op : body) {
    auto routed = dyn_cast<RoutedOp>(op);
    if (!routed)
      continue;
    int64_t total = routed.getTotalExperts(), top = routed.getTopK(),
            count = routed.getExperts().size();
    llvm::Expected<std::vector<int64_t>> picks =
        drawPicks(options.routing, layer, routed.getNumTokens(), top, total);
    if (!picks)
      return routed.emitError() << "cannot draw its routing: "
                                << llvm::toString(picks.takeError());
    // Device d of the expert-parallel group holds the d-th run of `count`
    // experts: seen from it, every id moves down by d * count.
    int64_t shift = (options.routing.device * count) % total;
    RoutedDraw &draw = routedDraws[&op];
    draw.globalPicks = std::move(*picks);
    for (int64_t id : draw.globalPicks)
      draw.picks.push_back((id + total - shift) % total);
    for (int64_t id : draw.picks) {
      int64_t local = id - routed.getFirstExpert();
      if (local < 0 || local >= count)
        continue;
      ++draw.assignments;
      draw.picked.push_back(local);
    }
    llvm::sort(draw.picked);
    draw.picked.erase(llvm::unique(draw.picked), draw.picked.end());
    layerOf[&op] = layer++;
  }

  for (Operation &op : body) {
    auto prefetch = dyn_cast<PrefetchRoutedOp>(op);
    if (!prefetch)
      continue;
    RoutedOp reader = getSlotReader(prefetch);
    if (!reader)
      return prefetch.emitError()
             << "fills slots that no ho.routed op reads (through ho.await as "
                "its staged operand), so nothing says which experts it picks";
    const RoutedDraw &draw = routedDraws[reader];
    // The reader's own router output is exact; anything else predicts it.
    std::vector<int64_t> guessed = draw.picks;
    if (prefetch.getSelection() != reader.getSelection()) {
      // Every device sees the same guesses.
      int64_t total = reader.getTotalExperts();
      int64_t shift =
          (options.routing.device * reader.getExperts().size()) % total;
      guessed = predictPicks(options.routing, layerOf[reader], draw.globalPicks,
                             reader.getTopK(), total);
      for (int64_t &id : guessed)
        id = (id + total - shift) % total;
    }
    // The slots take the guesses among the prefetch's experts, each once,
    // in the order guessed.
    llvm::DenseSet<int64_t> fetchable(llvm::from_range,
                                      prefetch.getExpertIds());
    SmallVector<int64_t> fetched;
    for (int64_t id : guessed) {
      if (static_cast<int64_t>(fetched.size()) >= prefetch.getNumSlots())
        break;
      if (fetchable.erase(id))
        fetched.push_back(id);
    }
    routedFetches[&op] = std::move(fetched);
  }
  return success();
}

bool TimelineSimulator::readsOperand(Operation *op, unsigned index) const {
  auto routed = dyn_cast<RoutedOp>(op);
  if (!routed)
    return true;
  std::optional<unsigned> expert = routed.getExpertPosition(index);
  if (!expert)
    return true;
  auto draw = routedDraws.find(op);
  return draw != routedDraws.end() &&
         llvm::binary_search(draw->second.picked, *expert);
}

void TimelineSimulator::issueRoutedPrefetch(PrefetchRoutedOp prefetch) {
  const SmallVector<int64_t> &fetched = routedFetches[prefetch];
  // One gathering copy per tier, of the picked experts that live there.
  SmallVector<std::pair<LinkChannel *, LinkChannel::TransferId>, 1> copies;
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    int64_t bytes = 0;
    for (auto [id, expert] :
         llvm::zip(prefetch.getExpertIds(), prefetch.getExperts())) {
      auto remote = cast<RemoteType>(expert.getType());
      if (remote.getTier() == tier && llvm::is_contained(fetched, id))
        bytes += remote.getSizeInBytes();
    }
    if (bytes == 0)
      continue;
    copies.push_back(
        {&getChannel(tier, Direction::ToDevice),
         issueTransfer(tier, Direction::ToDevice, bytes,
                       "prefetch routed " + describeOp(prefetch))});
  }
  prefetchOf[prefetch.getResult()] = std::move(copies);
  stagedExperts[prefetch.getResult()] = fetched;
}

void TimelineSimulator::fetchRoutedMisses(RoutedOp routed) {
  const RoutedDraw &draw = routedDraws[routed];
  ArrayRef<int64_t> staged;
  if (Value slots = routed.getStaged())
    if (auto await = slots.getDefiningOp<AwaitOp>())
      if (auto it = stagedExperts.find(await.getFuture());
          it != stagedExperts.end())
        staged = it->second;
  double start = now, end = now;
  unsigned misses = 0;
  for (unsigned local : draw.picked) {
    ++result.expertsPicked;
    int64_t id = routed.getFirstExpert() + local;
    auto remote = dyn_cast<RemoteType>(routed.getExperts()[local].getType());
    if (!remote || llvm::is_contained(staged, id)) {
      ++result.expertsHit;
      continue;
    }
    // A wrong prediction: the runtime copies the expert into the slot of
    // one nobody picked, and the kernel waits for it.
    MemoryTier tier = remote.getTier();
    double overhead = target.getLink(tier)->issueOverhead;
    result.hostOverheadTime += overhead;
    now += overhead;
    LinkChannel &channel = getChannel(tier, Direction::ToDevice);
    LinkChannel::TransferId copy =
        issueTransfer(tier, Direction::ToDevice, remote.getSizeInBytes(),
                      "fetch missed expert " + std::to_string(id));
    end = std::max(end, channel.finish(copy));
    ++misses;
  }
  if (!misses)
    return;
  result.expertsFetchedOnDemand += misses;
  end = std::max(end, now);
  addEvent(TimelineEvent::Kind::Stall, "compute",
           "wait for missed experts " + describeOp(routed), start, end);
  ++result.stallCount;
  result.stallTime += end - start;
  now = end;
}

void TimelineSimulator::countPickedExperts(RoutedOp routed) {
  for (unsigned local : routedDraws[routed].picked) {
    const BufferInfo *expert = liveness.lookup(routed.getExperts()[local]);
    ++result.expertsPicked;
    if (expert && state[expert->id].resident)
      ++result.expertsHit;
    else
      ++result.expertsFetchedOnDemand;
  }
}
