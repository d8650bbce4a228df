//===- SelectedBlocks.cpp - Blocks picked at run time, in the simulator ---===//
//
// Every ho.gather_blocks op gets its picks drawn per row among the
// source's blocks, from the run's seed and step, as routed experts are
// (uniform, Zipf-ranked, or read from the trace's "blocks"). A
// ho.prefetch_blocks copies as many blocks per row as the
// gather reads: the picked ones when it is issued on the gather's own
// selection, a prediction of them otherwise, drawn with the predictor
// accuracy; the gather then waits for the picked blocks it lacks, fetched
// in one gathering copy. With the whole source in a tier, which blocks are
// picked changes nothing but what a prediction hits.
//
//===----------------------------------------------------------------------===//

#include "TimelineSimulator.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::detail;

/// The ho.gather_blocks op that reads the blocks `prefetch` fetches, if any.
static GatherBlocksOp getBlockReader(PrefetchBlocksOp prefetch) {
  for (Operation *user : prefetch.getResult().getUsers())
    if (auto await = dyn_cast<AwaitOp>(user))
      for (Operation *reader : await.getResult().getUsers())
        if (auto gather = dyn_cast<GatherBlocksOp>(reader);
            gather && gather.getStaged() == await.getResult())
          return gather;
  return nullptr;
}

LogicalResult TimelineSimulator::drawBlockSelections() {
  const RoutingOptions &routing = options.routing;
  unsigned index = 0;
  DenseMap<Operation *, unsigned> indexOf;
  for (Operation &op : body) {
    auto gather = dyn_cast<GatherBlocksOp>(op);
    if (!gather)
      continue;
    llvm::Expected<std::vector<int64_t>> picks =
        drawBlockPicks(routing, index, gather.getNumRows(),
                       gather.getBlocksPerRow(), gather.getNumBlocks());
    if (!picks)
      return gather.emitError() << "cannot draw its block selection: "
                                << llvm::toString(picks.takeError());
    blockPicks[&op] = std::move(*picks);
    indexOf[&op] = index++;
  }

  for (Operation &op : body) {
    auto prefetch = dyn_cast<PrefetchBlocksOp>(op);
    if (!prefetch)
      continue;
    GatherBlocksOp reader = getBlockReader(prefetch);
    if (!reader)
      return prefetch.emitError()
             << "fetches blocks that no ho.gather_blocks reads (through "
                "ho.await as its staged operand), so nothing says which "
                "blocks it picks";
    // The reader's own selection is exact; anything else predicts it.
    const std::vector<int64_t> &picks = blockPicks[reader];
    blockFetches[prefetch.getResult()] =
        prefetch.getSelection() == reader.getSelection()
            ? picks
            : predictPicks(routing, getBlockSelectionLayer(indexOf[reader]),
                           picks, reader.getBlocksPerRow(),
                           reader.getNumBlocks());
  }
  return success();
}

void TimelineSimulator::issueBlockPrefetch(PrefetchBlocksOp prefetch) {
  RemoteType remote = prefetch.getSource().getType();
  LinkChannel::TransferId copy = issueTransfer(
      remote.getTier(), Direction::ToDevice,
      *getTensorSizeInBytes(prefetch.getResult().getType().getTensorType()),
      "prefetch blocks " + describeOp(prefetch));
  prefetchOf[prefetch.getResult()] = {
      {&getChannel(remote.getTier(), Direction::ToDevice), copy}};
}

void TimelineSimulator::fetchMissedBlocks(GatherBlocksOp gather) {
  const std::vector<int64_t> &picks = blockPicks[gather];
  result.blocksSelected += picks.size();
  auto remote = dyn_cast<RemoteType>(gather.getSource().getType());
  if (!remote) {
    result.blocksHit += picks.size();
    return;
  }
  ArrayRef<int64_t> fetched;
  if (auto await = gather.getStaged().getDefiningOp<AwaitOp>())
    if (auto it = blockFetches.find(await.getFuture());
        it != blockFetches.end())
      fetched = it->second;
  // Picks and fetches come `k` per row: a block is there if its row's
  // fetch has it.
  int64_t k = gather.getBlocksPerRow();
  int64_t misses = 0;
  for (auto [index, id] : llvm::enumerate(picks)) {
    int64_t row = index / k;
    ArrayRef<int64_t> rowFetched = fetched.size() == picks.size()
                                       ? fetched.slice(row * k, k)
                                       : ArrayRef<int64_t>();
    misses += !llvm::is_contained(rowFetched, id);
  }
  result.blocksHit += picks.size() - misses;
  if (!misses)
    return;
  // One gathering copy of the missed blocks, which compute waits for.
  result.blocksFetchedOnDemand += misses;
  double start = now;
  double overhead = target.getLink(remote.getTier())->issueOverhead;
  result.hostOverheadTime += overhead;
  now += overhead;
  LinkChannel &channel = getChannel(remote.getTier(), Direction::ToDevice);
  LinkChannel::TransferId copy = issueTransfer(
      remote.getTier(), Direction::ToDevice, misses * gather.getBlockBytes(),
      "fetch missed blocks " + describeOp(gather));
  double end = std::max(now, channel.finish(copy));
  addEvent(TimelineEvent::Kind::Stall, "compute",
           "wait for missed blocks " + describeOp(gather), start, end);
  ++result.stallCount;
  result.stallTime += end - start;
  now = end;
}

void TimelineSimulator::issueSliceOffload(OffloadSliceOp offload) {
  RemoteType remote = offload.getResult().getType();
  LinkChannel::TransferId copy =
      issueTransfer(remote.getTier(), Direction::FromDevice,
                    *getTensorSizeInBytes(offload.getSource().getType()),
                    "offload slice " + describeOp(offload));
  LinkChannel *channel = &getChannel(remote.getTier(), Direction::FromDevice);
  // A wait for the updated remote, or a fetch of it, follows this copy.
  offloadOf[offload.getResult()] = {channel, copy};
  // The source stays on the device until its copy is done.
  if (const BufferInfo *buffer = liveness.lookup(offload.getSource()))
    state[buffer->id].offloads.push_back({channel, copy});
}
