//===- PlanningContext.cpp - What every offload policy plans from ---------===//

#include "PlanningContext.h"

#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::ho;

//===----------------------------------------------------------------------===//
// LinkTimeline
//===----------------------------------------------------------------------===//

LinkTimeline::ConstIterator LinkTimeline::findStartAfter(double time) const {
  return llvm::upper_bound(busy, time, [](double time, const Interval &busy) {
    return time < busy.start;
  });
}

LinkTimeline::Iterator LinkTimeline::findStartAtOrAfter(double time) {
  return llvm::lower_bound(busy, time, [](const Interval &busy, double time) {
    return busy.start < time;
  });
}

void LinkTimeline::indexGaps() const {
  gapsChanged = false;
  numLeaves = llvm::bit_ceil(std::max<size_t>(busy.size(), 1));
  widestGap.assign(2 * numLeaves, -std::numeric_limits<double>::infinity());
  for (size_t index = 0; index < busy.size(); ++index)
    widestGap[numLeaves + index] =
        index == 0 ? std::numeric_limits<double>::infinity()
                   : busy[index].start - busy[index - 1].end;
  for (size_t node = numLeaves - 1; node > 0; --node)
    widestGap[node] = std::max(widestGap[2 * node], widestGap[2 * node + 1]);
}

/// How much narrower than a copy a gap may look in the index and still be
/// visited: the index subtracts where the searches add, and the two may
/// round apart.
static double getRoundingSlack(double latestTime) {
  return 1e-9 * (1 + std::abs(latestTime));
}

template <typename Fits>
size_t LinkTimeline::findLastFit(size_t last, double duration,
                                 Fits fits) const {
  if (gapsChanged)
    indexGaps();
  double narrowest = duration - getRoundingSlack(busy.back().end);
  // Right to left; the first interval always fits.
  auto search = [&](auto &self, size_t node, size_t first,
                    size_t end) -> std::optional<size_t> {
    if (first > last || widestGap[node] < narrowest)
      return std::nullopt;
    if (end - first == 1)
      return fits(first) ? std::optional<size_t>(first) : std::nullopt;
    size_t middle = (first + end) / 2;
    if (std::optional<size_t> right = self(self, 2 * node + 1, middle, end))
      return right;
    return self(self, 2 * node, first, middle);
  };
  return search(search, 1, 0, numLeaves).value_or(0);
}

template <typename Fits>
std::optional<size_t> LinkTimeline::findFirstFit(size_t first, double duration,
                                                 Fits fits) const {
  if (gapsChanged)
    indexGaps();
  double narrowest = duration - getRoundingSlack(busy.back().end);
  auto search = [&](auto &self, size_t node, size_t begin,
                    size_t end) -> std::optional<size_t> {
    if (end <= first || widestGap[node] < narrowest)
      return std::nullopt;
    if (end - begin == 1)
      return fits(begin) ? std::optional<size_t>(begin) : std::nullopt;
    size_t middle = (begin + end) / 2;
    if (std::optional<size_t> left = self(self, 2 * node, begin, middle))
      return left;
    return self(self, 2 * node + 1, middle, end);
  };
  return search(search, 1, 0, numLeaves);
}

double LinkTimeline::findEarliest(double earliest, double duration) const {
  // Busy intervals are disjoint and sorted: slide past each one that
  // overlaps [start, start + duration).
  double start = earliest;
  size_t next = findStartAfter(start) - busy.begin();
  if (next > 0 && busy[next - 1].end > start)
    start = busy[next - 1].end;
  if (next == busy.size() || busy[next].start >= start + duration)
    return start;
  // Past that one, the slot starts where a busy interval ends: the first
  // that the free time after it fits.
  std::optional<size_t> fit =
      findFirstFit(next + 1, duration, [&](size_t index) {
        return busy[index].start >= busy[index - 1].end + duration;
      });
  return fit ? busy[*fit - 1].end : busy.back().end;
}

std::optional<double> LinkTimeline::findLatest(double deadline, double duration,
                                               double notBefore) const {
  // The slot only moves earlier from the deadline, so there is none once
  // it would start before `notBefore`.
  if (deadline - duration < notBefore)
    return std::nullopt;
  size_t next = llvm::lower_bound(busy, deadline,
                                  [](const Interval &busy, double deadline) {
                                    return busy.start < deadline;
                                  }) -
                busy.begin();
  if (next == 0 || busy[next - 1].end <= deadline - duration)
    return deadline - duration;
  // Else the slot ends where a busy interval starts: the last before the
  // deadline that the free time before it fits.
  size_t fit = findLastFit(next - 1, duration, [&](size_t index) {
    return index == 0 || busy[index - 1].end <= busy[index].start - duration;
  });
  double start = busy[fit].start - duration;
  if (start < notBefore)
    return std::nullopt;
  return start;
}

void LinkTimeline::reserve(double start, double end) {
  if (end <= start)
    return;
  busyTime += end - start;
  gapsChanged = true;
  // Keep touching intervals merged: a saturated link is then one interval,
  // not one per transfer, and the searches above skip it in one step.
  auto next = findStartAtOrAfter(start);
  Iterator merged;
  if (next != busy.begin() && std::prev(next)->end >= start) {
    merged = std::prev(next);
    merged->end = std::max(merged->end, end);
  } else {
    merged = busy.insert(next, {start, end});
  }
  auto after = std::next(merged), absorbed = after;
  for (; absorbed != busy.end() && absorbed->start <= merged->end; ++absorbed)
    merged->end = std::max(merged->end, absorbed->end);
  busy.erase(after, absorbed);
}

void LinkTimeline::release(double start, double end) {
  if (end <= start)
    return;
  gapsChanged = true;
  // Every busy interval that overlaps [start, end) keeps what lies outside
  // it. A caller may release more than it reserved (a copy retimed after
  // the compute it waited for moved): only what was busy is freed.
  auto first = busy.begin() + (findStartAfter(start) - busy.cbegin());
  if (first != busy.begin() && std::prev(first)->end > start)
    --first;
  auto last = first;
  SmallVector<Interval, 2> kept;
  for (; last != busy.end() && last->start < end; ++last) {
    busyTime -= std::min(last->end, end) - std::max(last->start, start);
    if (last->start < start)
      kept.push_back({last->start, start});
    if (end < last->end)
      kept.push_back({end, last->end});
  }
  first = busy.erase(first, last);
  busy.insert(first, kept.begin(), kept.end());
}

//===----------------------------------------------------------------------===//
// PlanningContext
//===----------------------------------------------------------------------===//

/// Whether `alias` holds new data written into its buffer in place.
static bool writesInPlace(Value alias, const BufferLiveness &liveness) {
  auto result = dyn_cast<OpResult>(alias);
  if (!result || !liveness.getAliasedSource(result))
    return false;
  Operation *owner = result.getOwner();
  return isa<ComputeOp, DestinationStyleOpInterface>(owner);
}

PlanningContext::PlanningContext(Block &body, const Target &target,
                                 int64_t budget)
    : body(body), target(target), budget(budget),
      liveness(body, target.device.allocationGranularity),
      profile(liveness.getProfile(), budget) {
  unsigned exit = liveness.getExitPoint();
  starts.assign(exit + 1, 0);
  ends.assign(exit + 1, 0);
  for (unsigned point = 1; point < exit; ++point) {
    starts[point] = ends[point - 1];
    ends[point] = starts[point] +
                  estimateOpCost(liveness.getOp(point), target).getSeconds();
  }
  starts[exit] = ends[exit] = ends[exit - 1];

  for (const BufferInfo &buffer : liveness.getBuffers()) {
    SmallVector<unsigned> points;
    if (!buffer.isArgument())
      points.push_back(buffer.definition);
    bool written = false;
    SmallVector<std::pair<unsigned, unsigned>, 1> spans;
    for (Value alias : buffer.aliases) {
      written |= writesInPlace(alias, liveness);
      Operation *definer = alias.getDefiningOp();
      unsigned defined = definer ? liveness.getPoint(definer) : 0;
      unsigned lastRead = defined;
      for (OpOperand &use : alias.getUses()) {
        Operation *owner = body.findAncestorOpInBlock(*use.getOwner());
        if (!owner || !liveness.touchesBuffer(use))
          continue;
        // A view reads no data: the data must be on the device where the
        // view is read, and a view made in a gap is remade on the copy
        // fetched after it. (A slice with a buffer of its own is a copy.)
        if (owner == use.getOwner() && isTensorViewOp(owner) &&
            liveness.lookup(owner->getResult(0)) == &buffer)
          continue;
        unsigned point = owner->hasTrait<OpTrait::ReturnLike>()
                             ? exit
                             : liveness.getPoint(owner);
        points.push_back(point);
        lastRead = std::max(lastRead, point);
      }
      spans.push_back({defined, lastRead});
    }
    // What a view reads, its source carries: aliases come in program order,
    // so a view follows its source.
    for (unsigned index = buffer.aliases.size(); index-- > 1;) {
      Operation *view = buffer.aliases[index].getDefiningOp();
      if (!view || !isTensorViewOp(view))
        continue;
      auto source = llvm::find(buffer.aliases, view->getOperand(0));
      if (source != buffer.aliases.end()) {
        unsigned &lastRead = spans[source - buffer.aliases.begin()].second;
        lastRead = std::max(lastRead, spans[index].second);
      }
    }
    aliasSpans.push_back(std::move(spans));
    llvm::sort(points);
    points.erase(std::unique(points.begin(), points.end()), points.end());
    uses.push_back(std::move(points));
    writtenInPlace.push_back(written);
  }

  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (target.getLink(tier))
      tiers.push_back(tier);
  llvm::stable_sort(tiers, [&](MemoryTier a, MemoryTier b) {
    return target.getLink(a)->bandwidthToDevice >
           target.getLink(b)->bandwidthToDevice;
  });
}

std::vector<GapCandidate> PlanningContext::enumerateGaps() const {
  std::vector<GapCandidate> gaps;
  for (const BufferInfo &buffer : liveness.getBuffers()) {
    ArrayRef<unsigned> points = uses[buffer.id];
    bool argument = buffer.isArgument();
    // Memref buffers are the program's own allocations; only tensors move.
    if (buffer.size == 0 || buffer.isMemRef())
      continue;
    // An argument nothing reads (a caller may pass more than is used), or
    // that is only handed back, can stay in the tier for the whole step, at
    // no cost: a result that aliases a remote argument is returned remote.
    if (points.empty() || (argument && points.size() == 1 &&
                           points.front() == liveness.getExitPoint())) {
      if (argument)
        gaps.push_back({buffer.id, 0, GapCandidate::kUnused, /*clean=*/true});
      continue;
    }
    // The caller can keep an argument in a tier until its first use.
    if (argument)
      gaps.push_back({buffer.id, /*lastUse=*/0, points.front(),
                      /*clean=*/true});
    // Between uses, a gap can be planned when one value carries the data
    // across it: its later uses switch to the fetched copy. The tier holds
    // a current copy only of an argument nothing has written yet.
    if (isa<FutureType>(buffer.root.getType()))
      continue;
    for (auto [previous, next] :
         llvm::zip(points.drop_back(), points.drop_front())) {
      if (next <= previous + 1)
        continue;
      if (Value carrier = findCarrier(buffer.id, previous, next))
        gaps.push_back({buffer.id, previous, next,
                        /*clean=*/argument && carrier == buffer.root, carrier});
    }
  }
  return gaps;
}

/// Whether `value` is made from `base` by a chain of views.
static bool isViewChainOf(Value value, Value base) {
  while (value != base) {
    Operation *view = value.getDefiningOp();
    if (!view || !isTensorViewOp(view))
      return false;
    value = view->getOperand(0);
  }
  return true;
}

Value PlanningContext::findCarrier(BufferId id, unsigned previous,
                                   unsigned next) const {
  SmallVector<Value, 2> spanning;
  for (auto [alias, span] :
       llvm::zip_equal(liveness.getBuffer(id).aliases, aliasSpans[id])) {
    auto [defined, lastRead] = span;
    // Values defined after the gap derive from the ones read after it.
    if (defined <= previous && lastRead >= next)
      spanning.push_back(alias);
  }
  if (spanning.size() <= 1)
    return spanning.empty() ? nullptr : spanning.front();
  // Views of the carrier read after the gap (a cache and the slice of it
  // that attention reads) are remade on the fetched copy. A view handed back
  // in the tier would have no device copy to be remade on.
  if (next == liveness.getExitPoint())
    return nullptr;
  for (Value candidate : spanning)
    if (llvm::all_of(spanning, [&](Value alias) {
          return isViewChainOf(alias, candidate);
        }))
      return candidate;
  return nullptr;
}

std::optional<double> PlanningContext::getTransferTime(MemoryTier tier,
                                                       bool toDevice,
                                                       int64_t bytes) const {
  const LinkModel *link = target.getLink(tier);
  if (!link)
    return std::nullopt;
  double bandwidth =
      toDevice ? link->bandwidthToDevice : link->bandwidthFromDevice;
  return link->latency + bytes / bandwidth;
}

unsigned PlanningContext::getFirstPointStartingAfter(double time) const {
  // Starts are non-decreasing.
  auto it = llvm::lower_bound(starts, time);
  return it - starts.begin();
}

unsigned PlanningContext::getLastPointStartingBy(double time,
                                                 unsigned notAfter) const {
  // Starts are non-decreasing.
  auto it =
      std::upper_bound(starts.begin(), starts.begin() + notAfter + 1, time);
  return it == starts.begin() ? 0 : it - starts.begin() - 1;
}

std::optional<GapWindow>
PlanningContext::timeGap(const GapCandidate &gap, MemoryTier tier,
                         std::optional<unsigned> exposedAt) const {
  const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
  std::optional<double> storeTime = getTransferTime(tier, false, buffer.size);
  std::optional<double> fetchTime = getTransferTime(tier, true, buffer.size);
  if (!storeTime || !fetchTime)
    return std::nullopt;
  const auto &[toDevice, fromDevice] = links[static_cast<unsigned>(tier)];

  GapWindow window;
  window.tier = tier;
  if (gap.nextUse == GapCandidate::kUnused) {
    window.prefetchBefore = liveness.getExitPoint() + 1;
    return window;
  }
  double freed;
  if (buffer.isArgument() && gap.lastUse == 0) {
    freed = 0;
    window.firstFree = 0;
    timeTrailingStretch(gap.buffer, tier, window);
  } else if (gap.clean) {
    freed = ends[gap.lastUse];
    window.firstFree = gap.lastUse + 1;
  } else {
    timeStore(gap, *storeTime, fromDevice, window);
    freed = window.storeEnd;
  }
  // A computed result can go back to the caller in the tier: stored after
  // its last use and never fetched.
  if (endsAtReturn(gap)) {
    window.returnsRemote = true;
    window.prefetchBefore = gap.nextUse + 1;
    if (!exposedAt || window.covers(*exposedAt) ||
        waitForStore(window, gap, *exposedAt))
      return window;
    return std::nullopt;
  }
  std::optional<double> prefetchStart =
      toDevice.findLatest(starts[gap.nextUse], *fetchTime, freed);
  if (prefetchStart) {
    window.prefetchStart = *prefetchStart;
    window.prefetchEnd = *prefetchStart + *fetchTime;
    window.prefetchBefore = std::max(
        gap.lastUse + 1, getLastPointStartingBy(*prefetchStart, gap.nextUse));
    if (!exposedAt || window.covers(*exposedAt))
      return window;
  }
  if (!exposedAt)
    return std::nullopt;

  // The copy cannot be hidden: issue it as early as the link timeline
  // would need to hide it, but no earlier than the store allows, and, when
  // the buffer is to be off the device at `exposedAt` before the use, after
  // that point. The next use waits for the rest.
  bool coveredAfterUse =
      window.trailingFree != 0 && *exposedAt >= window.trailingFree;
  // When the store completes too late, compute waits for it before the
  // first point in the gap that needs the memory, the peak or an earlier
  // one, so that one wait relieves them all.
  if (!coveredAfterUse && earlyStoreWaits) {
    unsigned needy = getFirstPointOverBudget(
        gap.lastUse + 1, std::min(window.firstFree, *exposedAt + 1));
    if (needy < window.firstFree)
      waitForStore(window, gap, needy);
  } else if (!coveredAfterUse && window.firstFree > *exposedAt) {
    waitForStore(window, gap, *exposedAt);
  }
  unsigned issue = std::max(
      {getLastPointStartingBy(starts[gap.nextUse] - *fetchTime, gap.nextUse),
       window.firstFree, gap.lastUse + 1});
  if (!coveredAfterUse)
    issue = std::max(issue, *exposedAt + 1);
  if (issue > gap.nextUse)
    return std::nullopt;
  // Nor earlier than the copy it brings back fits the budget up to the use:
  // a fetch that overflows another op only moves the peak there.
  issue = getFirstPointWithinBudgetUntil(issue, gap.nextUse);
  window.prefetchBefore = issue;
  window.prefetchStart = toDevice.findEarliest(
      std::max(starts[issue] + window.storeWait, freed), *fetchTime);
  window.prefetchEnd = window.prefetchStart + *fetchTime;
  window.stall = std::max(0.0, window.prefetchEnd -
                                   (starts[gap.nextUse] + window.storeWait));
  return window;
}

void PlanningContext::timeStore(const GapCandidate &gap, double storeTime,
                                const LinkTimeline &fromDevice,
                                GapWindow &window) const {
  // A store issued later never starts sooner: findEarliest is monotone.
  auto startIfIssuedAfter = [&](unsigned point) {
    return fromDevice.findEarliest(ends[point], storeTime);
  };
  unsigned issue = gap.lastUse;
  double start = startIfIssuedAfter(issue);
  // Still running when the gap starts, the store keeps the memory on the
  // device into the gap. Where the budget needs it there, the store is
  // issued earlier, while the last ops read the data: as late as still
  // frees it in time (or as early as it can), so that the link stays free
  // for other copies as long as it can.
  unsigned late =
      std::max(gap.lastUse + 1, getFirstPointStartingAfter(start + storeTime));
  unsigned needy = getFirstPointOverBudget(gap.lastUse + 1, late);
  // Only then is the ready point looked up: timeGap runs for every
  // candidate, and most stores are not needed sooner.
  if (needy < late) {
    unsigned ready = getStoreReadyPoint(gap.buffer, gap.lastUse);
    double startIfReady = ready < issue ? startIfIssuedAfter(ready) : start;
    if (startIfReady < start) {
      double latest = std::max(startIfReady, starts[needy] - storeTime);
      unsigned startsByLatest = ready, startsLater = gap.lastUse;
      while (startsLater - startsByLatest > 1) {
        unsigned middle = startsByLatest + (startsLater - startsByLatest) / 2;
        (startIfIssuedAfter(middle) <= latest ? startsByLatest : startsLater) =
            middle;
      }
      issue = startsByLatest;
      start = startIfIssuedAfter(issue);
    }
  }
  window.storeAfter = issue;
  window.storeStart = start;
  window.storeEnd = start + storeTime;
  window.firstFree =
      std::max(gap.lastUse + 1, getFirstPointStartingAfter(window.storeEnd));
}

unsigned PlanningContext::getFirstPointWithinBudgetUntil(unsigned first,
                                                         unsigned last) const {
  std::optional<unsigned> over = profile.findLastAbove(first, last, budget);
  return over ? *over + 1 : first;
}

unsigned PlanningContext::getFirstPointOverBudget(unsigned first,
                                                  unsigned last) const {
  return profile.findFirstAbove(first, last, budget)
      .value_or(std::max(first, last));
}

bool PlanningContext::waitForStore(GapWindow &window, const GapCandidate &gap,
                                   unsigned point) const {
  if (!window.storeStart || window.firstFree <= point || point <= gap.lastUse ||
      point >= gap.nextUse)
    return false;
  // Everything from `point` on happens that much later.
  window.waitBefore = point;
  window.storeWait = window.storeEnd - starts[point];
  window.firstFree = point;
  return true;
}

unsigned PlanningContext::getStoreReadyPoint(BufferId id,
                                             unsigned lastUse) const {
  unsigned ready = 0;
  for (auto [defined, lastRead] : aliasSpans[id])
    if (defined <= lastUse)
      ready = std::max(ready, defined);
  return ready;
}

unsigned PlanningContext::getLastUseInBody(BufferId id) const {
  ArrayRef<unsigned> points = uses[id];
  unsigned exit = liveness.getExitPoint();
  // An argument nothing reads has no stretch after a use: say exit, as for
  // one whose last use is the return.
  if (points.empty())
    return exit;
  // A returned alias is also used at exit.
  return points.back() == exit && points.size() > 1 ? points[points.size() - 2]
                                                    : points.back();
}

void PlanningContext::timeTrailingStretch(BufferId id, MemoryTier tier,
                                          GapWindow &window) const {
  unsigned exit = liveness.getExitPoint();
  unsigned last = getLastUseInBody(id);
  if (last == exit)
    return;
  if (!isReturned(id)) {
    // Only the fetched copy was on the device, and it dies after its use.
    window.trailingFree = last + 1;
    return;
  }
  // The updated data goes back to the tier before it is off the device.
  int64_t size = liveness.getBuffer(id).size;
  double storeTime = *getTransferTime(tier, false, size);
  const LinkTimeline &fromDevice = links[static_cast<unsigned>(tier)][1];
  window.trailingStoreStart = fromDevice.findEarliest(ends[last], storeTime);
  window.trailingStoreEnd = *window.trailingStoreStart + storeTime;
  window.trailingFree =
      std::max(last + 1, getFirstPointStartingAfter(window.trailingStoreEnd));
  if (window.trailingFree > exit)
    window.trailingFree = 0;
}

GapWindow PlanningContext::placeByDistance(const GapCandidate &gap,
                                           MemoryTier tier,
                                           unsigned lead) const {
  return placeBefore(gap, tier,
                     gap.nextUse > gap.lastUse + lead ? gap.nextUse - lead
                                                      : gap.lastUse + 1);
}

GapWindow PlanningContext::placeBefore(const GapCandidate &gap, MemoryTier tier,
                                       unsigned prefetchBefore) const {
  const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
  GapWindow window;
  window.tier = tier;
  if (buffer.isArgument() && gap.lastUse == 0) {
    window.firstFree = 0;
    timeTrailingStretch(gap.buffer, tier, window);
  } else if (gap.clean) {
    window.firstFree = gap.lastUse + 1;
  } else {
    window.storeStart = ends[gap.lastUse];
    window.storeEnd =
        *window.storeStart + *getTransferTime(tier, false, buffer.size);
    window.firstFree =
        std::max(gap.lastUse + 1, getFirstPointStartingAfter(window.storeEnd));
  }
  window.prefetchBefore =
      std::clamp(prefetchBefore, gap.lastUse + 1, gap.nextUse);
  window.prefetchStart = starts[window.prefetchBefore];
  window.prefetchEnd =
      window.prefetchStart + *getTransferTime(tier, true, buffer.size);
  return window;
}

void PlanningContext::commit(const GapCandidate &gap, const GapWindow &window) {
  auto &[toDevice, fromDevice] = links[static_cast<unsigned>(window.tier)];
  if (window.storeStart)
    fromDevice.reserve(*window.storeStart, window.storeEnd);
  if (!window.returnsRemote)
    toDevice.reserve(window.prefetchStart, window.prefetchEnd);
  if (window.trailingStoreStart)
    fromDevice.reserve(*window.trailingStoreStart, window.trailingStoreEnd);
  // Everything from a wait on happens that much later.
  auto delayFrom = [&](unsigned first, double delay) {
    for (unsigned point = first; point < starts.size(); ++point) {
      starts[point] += delay;
      ends[point] += delay;
    }
  };
  if (window.waitBefore && window.storeWait > 0)
    delayFrom(*window.waitBefore, window.storeWait);
  if (window.stall > 0)
    delayFrom(gap.nextUse, window.stall);
  int64_t size = liveness.getBuffer(gap.buffer).size;
  profile.add(window.firstFree, window.prefetchBefore, -size);
  if (window.trailingFree != 0)
    profile.add(window.trailingFree, profile.size(), -size);
}

bool PlanningContext::addStoreWait(const GapCandidate &gap, GapWindow &window,
                                   unsigned point) {
  if (!window.storeStart || point <= gap.lastUse || point >= window.firstFree ||
      point >= window.prefetchBefore ||
      (window.waitBefore && *window.waitBefore <= point))
    return false;
  // A wait placed later for another peak moves here: from its point on,
  // the timeline keeps only what the earlier wait adds.
  unsigned laterWait = window.waitBefore.value_or(starts.size());
  double laterDelay = window.waitBefore ? window.storeWait : 0;
  unsigned freedFrom = window.firstFree;
  if (!waitForStore(window, gap, point))
    return false;
  for (unsigned later = point; later < starts.size(); ++later) {
    double delay = window.storeWait - (later >= laterWait ? laterDelay : 0);
    starts[later] += delay;
    ends[later] += delay;
  }
  // The buffer is off the device from the wait on.
  profile.add(point, freedFrom, -liveness.getBuffer(gap.buffer).size);
  return true;
}

std::optional<double>
PlanningContext::delayPrefetchPast(const GapCandidate &gap, GapWindow &window,
                                   unsigned point, bool apply) {
  if (window.returnsRemote || gap.nextUse == GapCandidate::kUnused ||
      window.isEmpty() || window.firstFree > point ||
      window.prefetchBefore > point || point >= gap.nextUse)
    return std::nullopt;
  const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
  double fetchTime = *getTransferTime(window.tier, true, buffer.size);
  LinkTimeline &toDevice = links[static_cast<unsigned>(window.tier)][0];
  // The copy may leave no earlier than the data is freed.
  double freed = window.storeStart       ? window.storeEnd
                 : window.firstFree == 0 ? 0
                                         : ends[gap.lastUse];
  toDevice.release(window.prefetchStart, window.prefetchEnd);
  double start = toDevice.findEarliest(
      std::max({starts[point + 1], freed, window.prefetchStart}), fetchTime);
  double added = std::max(0.0, start + fetchTime - starts[gap.nextUse]);
  if (!apply) {
    toDevice.reserve(window.prefetchStart, window.prefetchEnd);
    return added;
  }
  toDevice.reserve(start, start + fetchTime);
  profile.add(window.prefetchBefore, point + 1, -buffer.size);
  for (unsigned later = gap.nextUse; later < starts.size(); ++later) {
    starts[later] += added;
    ends[later] += added;
  }
  window.prefetchBefore = point + 1;
  window.prefetchStart = start;
  window.prefetchEnd = start + fetchTime;
  window.stall += added;
  return added;
}

unsigned PlanningContext::hoistIntoSlack(const GapCandidate &gap,
                                         GapWindow &window) {
  int64_t size = liveness.getBuffer(gap.buffer).size;
  // Up to the last point before the prefetch where the copy does not fit.
  unsigned earliest = std::max(window.firstFree, gap.lastUse + 1);
  if (earliest >= window.prefetchBefore)
    return 0;
  std::optional<unsigned> full =
      profile.findLastAbove(earliest, window.prefetchBefore, budget - size);
  unsigned issue = full ? *full + 1 : earliest;
  unsigned hoisted = window.prefetchBefore - issue;
  profile.add(issue, window.prefetchBefore, size);
  window.prefetchBefore = issue;
  return hoisted;
}

bool PlanningContext::issuePrefetchEarlier(const GapCandidate &gap,
                                           GapWindow &window, unsigned point) {
  if (point >= window.prefetchBefore ||
      point < std::max(window.firstFree, gap.lastUse + 1))
    return false;
  int64_t size = liveness.getBuffer(gap.buffer).size;
  profile.add(point, window.prefetchBefore, size);
  if (profile.countOverBudget(point, window.prefetchBefore) > 0) {
    profile.add(point, window.prefetchBefore, -size);
    return false;
  }
  window.prefetchBefore = point;
  return true;
}

double PlanningContext::getQueuedCompletion(const GapWindow &window) const {
  const auto &[toDevice, fromDevice] =
      links[static_cast<unsigned>(window.tier)];
  auto queued = [](const LinkTimeline &link, double start, double end) {
    return link.findEarliest(start, end - start) + (end - start);
  };
  double completion = 0;
  if (window.storeStart)
    completion += queued(fromDevice, *window.storeStart, window.storeEnd);
  if (!window.returnsRemote)
    completion += queued(toDevice, window.prefetchStart, window.prefetchEnd);
  return completion;
}

double PlanningContext::getLinkBusyTime(MemoryTier tier) const {
  const auto &[toDevice, fromDevice] = links[static_cast<unsigned>(tier)];
  return toDevice.getBusyTime() + fromDevice.getBusyTime();
}

void PlanningContext::fillPlan(
    OffloadPlan &plan,
    llvm::ArrayRef<std::pair<GapCandidate, GapWindow>> decisions) const {
  SmallVector<std::pair<GapCandidate, GapWindow>> sorted(decisions);
  llvm::sort(sorted, [](const auto &a, const auto &b) {
    return std::make_pair(a.first.buffer, a.first.nextUse) <
           std::make_pair(b.first.buffer, b.first.nextUse);
  });
  for (const auto &[gap, window] : sorted) {
    const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
    if (buffer.isArgument() && gap.lastUse == 0)
      plan.remoteArguments.push_back(
          {cast<BlockArgument>(buffer.root).getArgNumber(), window.tier});
    if (gap.nextUse != GapCandidate::kUnused)
      plan.gaps.push_back(makePlannedGap(gap, window));
  }
  plan.estimatedPeakPoint = getPeakPoint();
  plan.estimatedPeak = profile.get(plan.estimatedPeakPoint);
}

PlannedGap PlanningContext::makePlannedGap(const GapCandidate &gap,
                                           const GapWindow &window) const {
  const BufferInfo &buffer = liveness.getBuffer(gap.buffer);
  PlannedGap planned;
  planned.buffer = gap.buffer;
  if (gap.carrier)
    planned.carrier =
        llvm::find(buffer.aliases, gap.carrier) - buffer.aliases.begin();
  planned.tier = window.tier;
  if (!gap.clean)
    planned.storeAfter = window.storeAfter.value_or(gap.lastUse);
  planned.waitBefore = window.waitBefore;
  planned.returnsRemote = window.returnsRemote;
  planned.prefetchBefore = window.prefetchBefore;
  planned.nextUse = gap.nextUse;
  return planned;
}
