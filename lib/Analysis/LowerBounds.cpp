//===- LowerBounds.cpp - What no schedule of a function can beat ----------===//
//
// docs/CostModel.md ("Lower bounds") states the bounds and proves them. In
// short: the schedules bounded keep the ops, their order and their buffers
// and choose the transfers; a tensor between two points where it must be on
// the device is either on the device or in a tier, and no more than the
// budget fits on the device at once.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "DeadlineBound.h"
#include "LogicalTensors.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::ho;

//===----------------------------------------------------------------------===//
// Memory bound
//===----------------------------------------------------------------------===//

/// Bytes of the distinct device buffers `op` reads or writes, each rounded
/// to the allocation granularity. A value used inside the op's regions is
/// read while the op runs; values defined there have no buffer.
static int64_t getWorkingSet(Operation *op, const BufferLiveness &liveness,
                             const Target &target) {
  llvm::SmallDenseSet<BufferId, 8> seen;
  int64_t bytes = 0;
  auto add = [&](ValueRange values) {
    for (Value value : values) {
      const BufferInfo *buffer = liveness.lookup(value);
      if (!buffer)
        continue;
      if (seen.insert(buffer->id).second)
        bytes += target.roundToGranularity(buffer->size);
    }
  };
  op->walk([&](Operation *user) {
    for (OpOperand &use : user->getOpOperands())
      if (!isReadInPart(use) && liveness.touchesBuffer(use))
        add(use.get());
  });
  // A result written in place into an operand needed only in part (a
  // slice inserted into a tensor read in blocks) is that part.
  for (OpResult result : op->getResults()) {
    Value source = liveness.getAliasedSource(result);
    bool inPart =
        source && llvm::any_of(op->getOpOperands(), [&](OpOperand &use) {
          return use.get() == source && isReadInPart(use);
        });
    if (!inPart)
      add(result);
  }
  return bytes;
}

static void addMemoryBound(Block &body, const BufferLiveness &liveness,
                           const Target &target, LowerBounds &bounds) {
  for (Operation &op : body) {
    if (!needsDataOnDevice(&op))
      continue;
    int64_t bytes = getWorkingSet(&op, liveness, target);
    if (!bounds.memoryOp || bytes > bounds.memoryBytes) {
      bounds.memoryBytes = bytes;
      bounds.memoryOp = &op;
    }
  }
}

//===----------------------------------------------------------------------===//
// Bytes that must cross
//===----------------------------------------------------------------------===//

namespace {
/// The tensors that may be away from the device at a pressure point `p`
/// (live there but not needed there), keyed by the first later point at
/// which they no longer count for the same transfer:
///   - to the device, their next presence: each absence that ends in a
///     presence needs a fetch of its own;
///   - from the device, one past their last presence: a tensor written once
///     is copied out once, however often it leaves the device.
class AwaySpans {
public:
  AwaySpans(ArrayRef<LogicalTensor> tensors, unsigned point, bool toDevice);
  /// Bytes one transfer might serve both at `p` and at the later point
  /// `later`: those whose key is past `later`.
  int64_t getSharedBytes(unsigned later) const;

private:
  /// (key, bytes) sorted by key, and the suffix sums of the bytes.
  SmallVector<std::pair<unsigned, int64_t>> spans;
  SmallVector<int64_t> suffixBytes;
};
} // namespace

AwaySpans::AwaySpans(ArrayRef<LogicalTensor> tensors, unsigned point,
                     bool toDevice) {
  for (const LogicalTensor &tensor : tensors) {
    // Only created tensors must leave the device: the caller's may never
    // have been on it.
    if ((!toDevice && !tensor.created) || !tensor.isLiveAt(point) ||
        tensor.isPresentAt(point))
      continue;
    auto next = llvm::upper_bound(tensor.presence, point);
    // Needed no more: it may stay in the tier.
    if (toDevice && next == tensor.presence.end())
      continue;
    unsigned key = toDevice ? *next : tensor.end + 1;
    spans.push_back({key, tensor.bytes});
  }
  llvm::sort(spans);
  suffixBytes.assign(spans.size() + 1, 0);
  for (size_t i = spans.size(); i > 0; --i)
    suffixBytes[i - 1] = suffixBytes[i] + spans[i - 1].second;
}

int64_t AwaySpans::getSharedBytes(unsigned later) const {
  auto first = llvm::upper_bound(
      spans, later, [](unsigned point, const std::pair<unsigned, int64_t> &s) {
        return point < s.first;
      });
  return suffixBytes[first - spans.begin()];
}

/// The most bytes that must cross in one direction: over every chain of
/// pressure points, their excesses minus, between consecutive points, the
/// bytes that one transfer could serve at both (docs/CostModel.md).
static int64_t getChainBound(ArrayRef<int64_t> excess,
                             ArrayRef<LogicalTensor> tensors, bool toDevice) {
  // Bounds the work to points x tensors; fewer points only weaken it.
  constexpr size_t kMaxPressurePoints = 64;
  SmallVector<PressurePoint> points =
      findPressurePoints(excess, kMaxPressurePoints);
  SmallVector<AwaySpans> away;
  for (const PressurePoint &point : points)
    away.emplace_back(tensors, point.point, toDevice);
  // best[j]: the best chain ending at point j.
  SmallVector<int64_t> best;
  int64_t bound = 0;
  for (auto [j, point] : llvm::enumerate(points)) {
    int64_t carried = 0;
    for (size_t i = 0; i < j; ++i)
      carried =
          std::max(carried, best[i] - away[i].getSharedBytes(point.point));
    best.push_back(point.excess + carried);
    bound = std::max(bound, best.back());
  }
  return bound;
}

/// Sets the spilled bytes of `bounds` and returns, at every point, the
/// excess that must come back to the device.
static SmallVector<int64_t> computeSpillBounds(ArrayRef<LogicalTensor> tensors,
                                               unsigned numPoints,
                                               LowerBounds &bounds) {
  DemandProfile profile = computeDemandProfile(tensors, numPoints);
  SmallVector<int64_t> toDeviceExcess, fromDeviceExcess;
  for (unsigned point = 0; point < numPoints; ++point) {
    int64_t excess = profile.live[point] - bounds.budget;
    toDeviceExcess.push_back(excess - profile.neededNoMore[point]);
    fromDeviceExcess.push_back(excess - profile.callerDataAway[point]);
  }
  bounds.spillBytesToDevice =
      getChainBound(toDeviceExcess, tensors, /*toDevice=*/true);
  bounds.spillBytesFromDevice =
      getChainBound(fromDeviceExcess, tensors, /*toDevice=*/false);
  return toDeviceExcess;
}

//===----------------------------------------------------------------------===//
// Compute after the last fetch
//===----------------------------------------------------------------------===//

/// Per point, the least compute left once the op there starts: its own
/// time (`seconds`, per point) plus that of the longest chain of ops that
/// depends on its results. Ops run one at a time in any order that respects
/// their data, so that much follows the op in every such order. Zero at
/// entry and exit.
static SmallVector<double>
computeTrailingSeconds(Block &body, const BufferLiveness &liveness,
                       ArrayRef<double> seconds) {
  SmallVector<double> trailing(liveness.getExitPoint() + 1, 0);
  for (Operation &op : llvm::reverse(body)) {
    double after = 0;
    for (Operation *user : op.getUsers())
      if (Operation *owner = body.findAncestorOpInBlock(*user))
        after = std::max(after, trailing[liveness.getPoint(owner)]);
    unsigned point = liveness.getPoint(&op);
    trailing[point] = (mayRunInColumnBlocks(&op) ? 0 : seconds[point]) + after;
  }
  return trailing;
}

namespace {
/// The least compute that follows the last fetch of each kind that the
/// transfer bounds count; infinite when there is no such fetch.
struct FetchTails {
  /// The first fetch of a remote argument, per tier (indexed by MemoryTier).
  std::array<double, 3> remoteArgument;
  /// A fetch of a tensor that is away from the device at a point of excess.
  double spill;

  FetchTails() {
    remoteArgument.fill(std::numeric_limits<double>::infinity());
    spill = std::numeric_limits<double>::infinity();
  }
};
} // namespace

/// Each fetch counted lands before a presence of its tensor, and the op
/// there reads it: the fetches that end last are followed by at least the
/// trailing compute of some such presence.
static FetchTails findFetchTails(ArrayRef<LogicalTensor> tensors,
                                 ArrayRef<int64_t> excess,
                                 ArrayRef<double> trailing) {
  // excessPointsBefore[i]: how many points before i have a positive excess.
  SmallVector<unsigned> excessPointsBefore(excess.size() + 1, 0);
  for (auto [point, bytes] : llvm::enumerate(excess))
    excessPointsBefore[point + 1] = excessPointsBefore[point] + (bytes > 0);
  FetchTails tails;
  for (const LogicalTensor &tensor : tensors) {
    if (tensor.presence.empty())
      continue;
    if (tensor.remoteArgumentTier) {
      double &tail = tails.remoteArgument[static_cast<unsigned>(
          *tensor.remoteArgumentTier)];
      tail = std::min(tail, trailing[tensor.presence.front()]);
    }
    // A spill fetch brings a tensor back to its next presence after a point
    // where it was live, away and the device over budget.
    for (auto [index, presence] : llvm::enumerate(tensor.presence)) {
      unsigned awayFrom;
      if (index > 0)
        awayFrom = tensor.presence[index - 1] + 1;
      else if (tensor.deviceArgument)
        awayFrom = 0;
      else
        continue;
      if (!excess.empty() && awayFrom < presence &&
          excessPointsBefore[presence] > excessPointsBefore[awayFrom])
        tails.spill = std::min(tails.spill, trailing[presence]);
    }
  }
  return tails;
}

//===----------------------------------------------------------------------===//
// Transfer times
//===----------------------------------------------------------------------===//

static const MemoryTier kTiers[] = {MemoryTier::pool, MemoryTier::host,
                                    MemoryTier::disk};

static double getBandwidth(const LinkModel &link, bool toDevice) {
  return toDevice ? link.bandwidthToDevice : link.bandwidthFromDevice;
}

/// The least time to move `bytes` over one link direction.
static TransferBound boundOneLink(MemoryTier tier, const LinkModel &link,
                                  bool toDevice, int64_t bytes) {
  return {tier, toDevice, bytes,
          link.latency + bytes / getBandwidth(link, toDevice)};
}

/// The least time to move `bytes` when any link may carry any part of them:
/// each link that moves x bytes takes its latency plus x over its bandwidth,
/// so all of them finish no sooner than the smallest latency plus the bytes
/// over the summed bandwidth.
static TransferBound boundAnyLink(const Target &target, bool toDevice,
                                  int64_t bytes) {
  double bandwidth = 0;
  double latency = std::numeric_limits<double>::infinity();
  std::optional<MemoryTier> only;
  unsigned links = 0;
  for (MemoryTier tier : kTiers) {
    const LinkModel *link = target.getLink(tier);
    if (!link || getBandwidth(*link, toDevice) <= 0)
      continue;
    bandwidth += getBandwidth(*link, toDevice);
    latency = std::min(latency, link->latency);
    only = tier;
    ++links;
  }
  return {links == 1 ? only : std::nullopt, toDevice, bytes,
          latency + bytes / bandwidth};
}

static unsigned countLinks(const Target &target, bool toDevice) {
  return llvm::count_if(kTiers, [&](MemoryTier tier) {
    const LinkModel *link = target.getLink(tier);
    return link && getBandwidth(*link, toDevice) > 0;
  });
}

/// Adds the compute that must follow the last fetch to a bound on fetches.
static TransferBound followedBy(TransferBound transfer, double seconds) {
  if (std::isfinite(seconds)) {
    transfer.trailingComputeSeconds = seconds;
    transfer.seconds += seconds;
  }
  return transfer;
}

static void computeTransferBounds(const Target &target, const FetchTails &tails,
                                  LowerBounds &bounds) {
  // Each remote argument must cross its own tier's link.
  SmallVector<TransferBound> remote;
  int64_t remoteBytes = 0;
  // The last fetch over any link, of the remote arguments or spilled.
  double anyTail = bounds.spillBytesToDevice > 0
                       ? tails.spill
                       : std::numeric_limits<double>::infinity();
  for (MemoryTier tier : kTiers) {
    int64_t bytes = bounds.remoteArgumentBytes[static_cast<unsigned>(tier)];
    const LinkModel *link = target.getLink(tier);
    if (bytes == 0 || !link || link->bandwidthToDevice <= 0)
      continue;
    double tail = tails.remoteArgument[static_cast<unsigned>(tier)];
    remote.push_back(
        followedBy(boundOneLink(tier, *link, /*toDevice=*/true, bytes), tail));
    remoteBytes += bytes;
    anyTail = std::min(anyTail, tail);
  }
  // Spilled bytes may take any link, and add to the remote arguments'. With
  // one link, that link carries it all; with several, the per-link entries
  // already dominate unless something spills.
  unsigned toDeviceLinks = countLinks(target, /*toDevice=*/true);
  int64_t toDevice = remoteBytes + bounds.spillBytesToDevice;
  if (toDeviceLinks == 1 && toDevice > 0)
    bounds.transfers.push_back(
        followedBy(boundAnyLink(target, true, toDevice), anyTail));
  if (toDeviceLinks > 1) {
    bounds.transfers.append(remote.begin(), remote.end());
    if (bounds.spillBytesToDevice > 0)
      bounds.transfers.push_back(
          followedBy(boundAnyLink(target, true, toDevice), anyTail));
  }
  if (bounds.spillBytesFromDevice > 0 && countLinks(target, false) > 0)
    bounds.transfers.push_back(
        boundAnyLink(target, false, bounds.spillBytesFromDevice));
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

double LowerBounds::getTimeSeconds() const {
  double seconds = computeSeconds;
  for (const TransferBound &transfer : transfers)
    seconds = std::max(seconds, transfer.seconds);
  return seconds;
}

double LowerBounds::getTighterTimeSeconds(ArgumentResidence residence) const {
  return std::max(getTimeSeconds(), getDeadlineSeconds(residence));
}

std::optional<double> LowerBounds::getGap(double stepTime,
                                          ArgumentResidence residence) const {
  double bound = getTighterTimeSeconds(residence);
  if (bound <= 0)
    return std::nullopt;
  return stepTime / bound - 1;
}

LowerBounds ho::computeMemoryBound(Block &body, const Target &target,
                                   int64_t budget) {
  LowerBounds bounds;
  bounds.budget = budget > 0 ? budget : target.device.hbmCapacity;
  BufferLiveness liveness(body, /*granularity=*/1);
  addMemoryBound(body, liveness, target, bounds);
  return bounds;
}

LowerBounds ho::computeLowerBounds(Block &body, const Target &target,
                                   int64_t budget) {
  LowerBounds bounds;
  bounds.budget = budget > 0 ? budget : target.device.hbmCapacity;
  // Unrounded sizes: they are what transfers move. The memory bound rounds.
  BufferLiveness liveness(body, /*granularity=*/1);
  LogicalTensors tensors = buildLogicalTensors(body, liveness);
  addMemoryBound(body, liveness, target, bounds);
  // Each op's time, per point.
  SmallVector<double> seconds(liveness.getExitPoint() + 1, 0);
  for (Operation &op : body) {
    // A router may pick none of this device's experts.
    auto routed = dyn_cast<RoutedOp>(op);
    double opSeconds = (routed ? estimateRoutedCost(routed, target, 0, 0)
                               : estimateOpCost(&op, target))
                           .getSeconds();
    seconds[liveness.getPoint(&op)] = opSeconds;
    bounds.computeSeconds += opSeconds;
  }
  for (const LogicalTensor &tensor : tensors.tensors)
    if (tensor.remoteArgumentTier && !tensor.presence.empty())
      bounds.remoteArgumentBytes[static_cast<unsigned>(
          *tensor.remoteArgumentTier)] += tensor.bytes;
  // Below the memory bound no schedule fits; what it would move is moot.
  SmallVector<int64_t> excess;
  if (bounds.fitsBudget())
    excess = computeSpillBounds(tensors.tensors, liveness.getExitPoint() + 1,
                                bounds);
  FetchTails tails = findFetchTails(
      tensors.tensors, excess, computeTrailingSeconds(body, liveness, seconds));
  computeTransferBounds(target, tails, bounds);
  if (bounds.fitsBudget()) {
    DeadlineBounds deadlines =
        computeDeadlineBounds(tensors.tensors, seconds, target, bounds.budget);
    bounds.deadlineSeconds = deadlines.argumentsStayOrFetched;
    bounds.copiedArgumentsDeadlineSeconds = deadlines.argumentsCopiedToTier;
  }
  return bounds;
}

LogicalResult ho::checkBudgetFits(const LowerBounds &bounds, ByteUnits units) {
  if (bounds.fitsBudget() || !bounds.memoryOp)
    return success();
  InFlightDiagnostic diag =
      bounds.memoryOp->emitError()
      << "budget " << formatBytes(bounds.budget, units)
      << " is below what this op needs at once: "
      << formatBytes(bounds.memoryBytes, units) << " ("
      << formatBytes(bounds.memoryBytes - bounds.budget, units)
      << " more); no schedule fits";
  return diag;
}
