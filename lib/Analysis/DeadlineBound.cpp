//===- DeadlineBound.cpp - When the bytes that must move can move ---------===//
//
// docs/CostModel.md ("Deadlines") states the bound and why it holds. In
// short: a lower bound on when each op can start, raised in program order
// by the compute before it, by the stores that must end before it and by
// the fetches that must land before it.
//
//===----------------------------------------------------------------------===//

#include "DeadlineBound.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::ho;

//===----------------------------------------------------------------------===//
// Least covers
//===----------------------------------------------------------------------===//

namespace {
/// The least sum of a subset of `sizes` (largest first) that reaches `need`,
/// by a depth-first search that gives up after a number of steps.
class SubsetCover {
public:
  SubsetCover(ArrayRef<int64_t> sizes, int64_t need);
  /// The least sum; std::nullopt when the search gave up.
  std::optional<int64_t> solve();

private:
  /// Enough for the few candidates of a small function; larger sets take
  /// the relaxed cover, which needs no search.
  static constexpr unsigned kMaxSteps = 4096;

  void search(size_t index, int64_t sum);

  ArrayRef<int64_t> sizes;
  /// suffix[i]: the sum of sizes[i..].
  SmallVector<int64_t> suffix;
  int64_t need;
  int64_t best;
  unsigned steps = 0;
  bool gaveUp = false;
};
} // namespace

SubsetCover::SubsetCover(ArrayRef<int64_t> sizes, int64_t need)
    : sizes(sizes), suffix(sizes.size() + 1, 0), need(need) {
  for (size_t i = sizes.size(); i > 0; --i)
    suffix[i - 1] = suffix[i] + sizes[i - 1];
  best = suffix.front();
}

std::optional<int64_t> SubsetCover::solve() {
  search(0, 0);
  if (gaveUp)
    return std::nullopt;
  return best;
}

void SubsetCover::search(size_t index, int64_t sum) {
  if (sum >= need) {
    best = std::min(best, sum);
    return;
  }
  if (best == need || index == sizes.size() || sum + suffix[index] < need)
    return;
  if (++steps > kMaxSteps) {
    gaveUp = true;
    return;
  }
  if (sum + sizes[index] < best)
    search(index + 1, sum + sizes[index]);
  search(index + 1, sum);
}

/// A lower bound on the least cover of `need` by `sizes` that needs no
/// search: when the sizes below `need` cannot reach it together, every
/// cover holds one of at least `need`.
static int64_t getRelaxedCover(ArrayRef<int64_t> sizes, int64_t need) {
  int64_t smallBytes = 0;
  int64_t smallestLarge = std::numeric_limits<int64_t>::max();
  for (int64_t size : sizes) {
    if (size < need)
      smallBytes += size;
    else
      smallestLarge = std::min(smallestLarge, size);
  }
  return smallBytes < need ? smallestLarge : need;
}

int64_t ho::getLeastCover(ArrayRef<const LogicalTensor *> candidates,
                          int64_t need) {
  // The search takes the few candidates of a small function; with more,
  // whole tensors rarely overshoot by much, and the relaxed cover is taken.
  constexpr size_t kMaxSearchedTensors = 24;
  if (need <= 0)
    return 0;
  // Divisible tensors fill any remainder exactly.
  int64_t divisibleBytes = 0, wholeBytes = 0;
  SmallVector<int64_t> whole;
  for (const LogicalTensor *tensor : candidates) {
    if (tensor->divisible) {
      divisibleBytes += tensor->bytes;
    } else {
      whole.push_back(tensor->bytes);
      wholeBytes += tensor->bytes;
    }
  }
  int64_t wholeNeed = need - divisibleBytes;
  // Where nothing covers the need no schedule fits, and any bound holds.
  if (wholeNeed <= 0 || wholeBytes < wholeNeed)
    return need;
  std::optional<int64_t> exact;
  if (whole.size() <= kMaxSearchedTensors) {
    llvm::sort(whole, std::greater<int64_t>());
    exact = SubsetCover(whole, wholeNeed).solve();
  }
  return std::max(need, exact ? *exact : getRelaxedCover(whole, wholeNeed));
}

//===----------------------------------------------------------------------===//
// Start times in program order
//===----------------------------------------------------------------------===//

static double getSummedBandwidth(const Target &target, bool toDevice) {
  double bandwidth = 0;
  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (const LinkModel *link = target.getLink(tier))
      bandwidth +=
          toDevice ? link->bandwidthToDevice : link->bandwidthFromDevice;
  return bandwidth;
}

/// The rate at which bytes can go out to the tiers and come back, each
/// through one tier: over every tier, the harmonic sum of its two
/// directions. However bytes `X` split over tiers (`x(t)` each), going out
/// takes at least max x(t) / out(t) and coming back max x(t) / in(t), and
/// together at least max x(t) (1 / out(t) + 1 / in(t)) >= X over this.
static double getRoundTripBandwidth(const Target &target) {
  double bandwidth = 0;
  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (const LinkModel *link = target.getLink(tier);
        link && link->bandwidthToDevice > 0 && link->bandwidthFromDevice > 0)
      bandwidth +=
          1 / (1 / link->bandwidthToDevice + 1 / link->bandwidthFromDevice);
  return bandwidth;
}

/// The least latency of the links in one direction: no transfer moves a
/// byte sooner after it starts.
static double getLeastLatency(const Target &target, bool toDevice) {
  double latency = std::numeric_limits<double>::infinity();
  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (const LinkModel *link = target.getLink(tier))
      if ((toDevice ? link->bandwidthToDevice : link->bandwidthFromDevice) > 0)
        latency = std::min(latency, link->latency);
  return std::isfinite(latency) ? latency : 0;
}

/// The earliest time a link direction of `bandwidth` can have moved `bytes`
/// when each tensor's bytes may move only `latency` after its release:
/// released bytes first, at full rate, parts of tensors allowed.
static double getFluidFinish(SmallVector<std::pair<double, int64_t>> releases,
                             int64_t bytes, double bandwidth, double latency) {
  llvm::sort(releases);
  double now = 0;
  double left = static_cast<double>(bytes);
  for (auto [release, size] : releases) {
    now = std::max(now, release + latency);
    double moved = std::min(left, static_cast<double>(size));
    now += moved / bandwidth;
    left -= moved;
    if (left <= 0)
      return now;
  }
  return std::numeric_limits<double>::infinity();
}

namespace {
/// Where the caller keeps a tensor it passes in, or that it is created on
/// the device (docs/CostModel.md, "Deadlines").
enum class Origin {
  /// Written on the device: away only once stored, after its creator.
  created,
  /// The caller's, passed on the device: it holds its buffer from entry to
  /// exit, and the function cannot free it.
  onDevice,
  /// The caller's, kept in a tier: fetched before its first presence, and
  /// away for free, since the tier keeps a copy.
  inTier,
  /// The caller's, wherever the caller chooses: away for free, and no
  /// fetch counted (the relaxation of the two above).
  either,
};

/// Raises `earliest[p]`, a lower bound on when the op at point `p` starts
/// (the step's end at exit), point by point in program order.
class StartTimes {
public:
  StartTimes(ArrayRef<LogicalTensor> tensors, ArrayRef<Origin> origins,
             ArrayRef<double> seconds, const Target &target, int64_t budget);

  /// The points of excess, by program order.
  ArrayRef<PressurePoint> getPressurePoints() const { return points; }
  /// Whether the data of tensor `id` exists at `point` but need not be on
  /// the device there.
  bool mayBeAway(unsigned id, unsigned point) const {
    return isLive(id, point) && !isPresent(id, point);
  }

  /// The earliest end of the step; infinite when no schedule fits.
  double computeStepEnd();

private:
  /// The point before which `tensor` must be back for its presence at
  /// `presence`. A divisible tensor may be read in column blocks, the last
  /// of which starts before the next op does.
  static unsigned getDeadlinePoint(const LogicalTensor &tensor,
                                   unsigned presence) {
    return tensor.divisible ? presence + 1 : presence;
  }

  /// The caller's data exists from entry, wherever it is; a created tensor
  /// from its creator on.
  unsigned getStart(unsigned id) const {
    return origins[id] == Origin::created ? tensors[id].getStart() : 0;
  }
  unsigned getLastPoint(unsigned id) const {
    return origins[id] == Origin::onDevice ? earliest.size() - 1
                                           : tensors[id].end;
  }
  bool isLive(unsigned id, unsigned point) const {
    return !tensors[id].presence.empty() && getStart(id) <= point &&
           point <= getLastPoint(id);
  }
  bool isPresent(unsigned id, unsigned point) const {
    return origins[id] == Origin::onDevice || tensors[id].isPresentAt(point);
  }
  /// Whether the tier's copy of a tensor kept there is out of date at
  /// `point`: it was written in place before (a divisible one may go back
  /// in slices, which bounds nothing).
  bool isStaleInTier(unsigned id, unsigned point) const {
    const LogicalTensor &tensor = tensors[id];
    return origins[id] == Origin::inTier && !tensor.divisible &&
           tensor.lastWrite && *tensor.lastWrite < point;
  }
  /// When the op at `point` can end at the earliest.
  double getEndTime(unsigned point) const {
    return earliest[point] + seconds[point];
  }

  void findPressurePoints(int64_t budget);
  void raise(unsigned point, double time) {
    if (std::isfinite(time))
      earliest[point] = std::max(earliest[point], time);
  }

  void addFirstFetches();
  void addStores(const PressurePoint &pressure);
  void addFetches(const PressurePoint &pressure);
  void addStoreBacks();

  ArrayRef<LogicalTensor> tensors;
  ArrayRef<Origin> origins;
  ArrayRef<double> seconds;
  const Target &target;
  /// Per point, bytes of the tensors whose data exists there and that are
  /// needed at no point from there on: they may stay away for good.
  SmallVector<int64_t> neededNoMore;
  SmallVector<PressurePoint> points;
  SmallVector<double> earliest;
  bool fits = true;
  /// Of the points seen so far, the most bytes of created tensors that
  /// must have been stored for one of them, and when each could leave.
  struct {
    int64_t bytes = 0;
    SmallVector<std::pair<double, int64_t>> releases;
  } largestCreatedStore;
};
} // namespace

StartTimes::StartTimes(ArrayRef<LogicalTensor> tensors,
                       ArrayRef<Origin> origins, ArrayRef<double> seconds,
                       const Target &target, int64_t budget)
    : tensors(tensors), origins(origins), seconds(seconds), target(target),
      earliest(seconds.size(), 0) {
  findPressurePoints(budget);
}

void StartTimes::findPressurePoints(int64_t budget) {
  // Bounds the work to points x tensors; fewer points only weaken it.
  constexpr size_t kMaxPressurePoints = 256;
  unsigned numPoints = earliest.size();
  SmallVector<int64_t> liveDelta(numPoints + 1, 0);
  SmallVector<int64_t> doneDelta(numPoints + 1, 0);
  for (auto [id, tensor] : llvm::enumerate(tensors)) {
    if (tensor.presence.empty())
      continue;
    liveDelta[getStart(id)] += tensor.bytes;
    liveDelta[getLastPoint(id) + 1] -= tensor.bytes;
    if (origins[id] == Origin::onDevice)
      continue;
    doneDelta[tensor.presence.back() + 1] += tensor.bytes;
    doneDelta[getLastPoint(id) + 1] -= tensor.bytes;
  }
  SmallVector<int64_t> excess;
  int64_t live = 0, done = 0;
  for (unsigned point = 0; point < numPoints; ++point) {
    live += liveDelta[point];
    done += doneDelta[point];
    excess.push_back(live - budget);
    neededNoMore.push_back(done);
  }
  // Every point of excess where that many fit; the points with the
  // highest excess of each run otherwise.
  size_t numExcessive =
      llvm::count_if(excess, [](int64_t bytes) { return bytes > 0; });
  if (numExcessive > kMaxPressurePoints) {
    points = ho::findPressurePoints(excess, kMaxPressurePoints);
    return;
  }
  for (auto [point, bytes] : llvm::enumerate(excess))
    if (bytes > 0)
      points.push_back({static_cast<unsigned>(point), bytes});
}

/// Raises each point's start to the time `bandwidth` (after `latency`)
/// takes to move the bytes due by then, all movable from the step's start.
static void raiseToDueBytes(ArrayRef<int64_t> bytesDue, double bandwidth,
                            double latency, SmallVectorImpl<double> &earliest) {
  int64_t bytes = 0;
  for (auto [point, due] : llvm::enumerate(bytesDue)) {
    bytes += due;
    if (due > 0)
      earliest[point] = std::max(earliest[point], latency + bytes / bandwidth);
  }
}

/// Each tensor in a tier at entry crosses to the device before its first
/// presence: a remote argument over its tier's link, which the arguments of
/// that tier share; a device argument kept in a tier over any link.
void StartTimes::addFirstFetches() {
  auto getDue = [&](llvm::function_ref<bool(unsigned)> counts) {
    SmallVector<int64_t> bytesDue(earliest.size(), 0);
    for (auto [id, tensor] : llvm::enumerate(tensors))
      if (origins[id] == Origin::inTier && !tensor.presence.empty() &&
          counts(id))
        bytesDue[getDeadlinePoint(tensor, tensor.presence.front())] +=
            tensor.bytes;
    return bytesDue;
  };
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    const LinkModel *link = target.getLink(tier);
    if (link && link->bandwidthToDevice > 0)
      raiseToDueBytes(getDue([&](unsigned id) {
                        return tensors[id].remoteArgumentTier == tier;
                      }),
                      link->bandwidthToDevice, link->latency, earliest);
  }
  double bandwidth = getSummedBandwidth(target, /*toDevice=*/true);
  if (bandwidth > 0)
    raiseToDueBytes(getDue([](unsigned) { return true; }), bandwidth,
                    getLeastLatency(target, /*toDevice=*/true), earliest);
}

/// Of the created tensors away at the point, whole ones covering its excess
/// less the caller's data away there must have left before its op starts,
/// each after its creator has ended.
void StartTimes::addStores(const PressurePoint &pressure) {
  unsigned point = pressure.point;
  double bandwidth = getSummedBandwidth(target, /*toDevice=*/false);
  SmallVector<const LogicalTensor *> candidates;
  SmallVector<std::pair<double, int64_t>> releases;
  int64_t awayForFree = 0;
  for (auto [id, tensor] : llvm::enumerate(tensors)) {
    if (!mayBeAway(id, point))
      continue;
    // A tensor can leave once it exists, or once it was last written when
    // the tier's copy is out of date.
    std::optional<unsigned> release;
    if (origins[id] == Origin::created)
      release = tensor.presence.front();
    else if (isStaleInTier(id, point))
      release = *tensor.lastWrite;
    if (!release) {
      awayForFree += tensor.bytes;
      continue;
    }
    candidates.push_back(&tensor);
    releases.push_back({getEndTime(*release), tensor.bytes});
  }
  int64_t need = pressure.excess - awayForFree;
  int64_t storable = 0;
  for (const LogicalTensor *candidate : candidates)
    storable += candidate->bytes;
  // What must be on the device there does not fit: no schedule with these
  // origins does.
  if (need > storable)
    fits = false;
  if (need <= 0 || bandwidth <= 0)
    return;
  raise(point,
        getFluidFinish(releases, getLeastCover(candidates, need), bandwidth,
                       getLeastLatency(target, /*toDevice=*/false)));

  // The created tensors among them are stored apart from every store-back
  // (addStoreBacks): keep the most bytes any point needs of them.
  SmallVector<const LogicalTensor *> created;
  SmallVector<std::pair<double, int64_t>> createdReleases;
  int64_t staleBytes = 0;
  for (auto [tensor, release] : llvm::zip(candidates, releases)) {
    if (tensor->created) {
      created.push_back(tensor);
      createdReleases.push_back(release);
    } else {
      staleBytes += tensor->bytes;
    }
  }
  int64_t createdBytes = getLeastCover(created, need - staleBytes);
  if (createdBytes > largestCreatedStore.bytes)
    largestCreatedStore = {createdBytes, std::move(createdReleases)};
}

/// Whole tensors away at the point, covering its excess less what is needed
/// no more, come back after its op ends; those due by a later point must
/// have landed before that point's op starts.
void StartTimes::addFetches(const PressurePoint &pressure) {
  constexpr size_t kMaxCoveredTensors = 64;
  unsigned point = pressure.point;
  int64_t need = pressure.excess - neededNoMore[point];
  double bandwidth = getSummedBandwidth(target, /*toDevice=*/true);
  if (need <= 0 || bandwidth <= 0)
    return;
  struct Away {
    /// The point before which it must be back.
    unsigned deadline;
    const LogicalTensor *tensor;
    /// When it could leave, for one that must have been stored to be away.
    std::optional<double> storedAfter;
  };
  SmallVector<Away> away;
  int64_t laterBytes = 0;
  for (auto [id, tensor] : llvm::enumerate(tensors)) {
    if (!mayBeAway(id, point))
      continue;
    if (std::optional<unsigned> next = tensor.getNextPresence(point)) {
      std::optional<double> storedAfter;
      if (origins[id] == Origin::created)
        storedAfter = getEndTime(tensor.presence.front());
      else if (isStaleInTier(id, point))
        storedAfter = getEndTime(*tensor.lastWrite);
      away.push_back({getDeadlinePoint(tensor, *next), &tensor, storedAfter});
      laterBytes += tensor.bytes;
    }
  }
  llvm::stable_sort(away, [](const Away &a, const Away &b) {
    return a.deadline < b.deadline;
  });
  double start = getEndTime(point) + getLeastLatency(target, /*toDevice=*/true);
  double roundTripBandwidth = getRoundTripBandwidth(target);
  double roundTripLatency = getLeastLatency(target, /*toDevice=*/false) +
                            getLeastLatency(target, /*toDevice=*/true);
  SmallVector<const LogicalTensor *> due, storedDue;
  int64_t freeDueBytes = 0;
  double firstStore = std::numeric_limits<double>::infinity();
  for (auto [index, entry] : llvm::enumerate(away)) {
    due.push_back(entry.tensor);
    laterBytes -= entry.tensor->bytes;
    if (entry.storedAfter) {
      storedDue.push_back(entry.tensor);
      firstStore = std::min(firstStore, *entry.storedAfter);
    } else {
      freeDueBytes += entry.tensor->bytes;
    }
    if (index + 1 < away.size() && away[index + 1].deadline == entry.deadline)
      continue;
    // What the tensors due later cannot cover must land by the deadline:
    // whole tensors where few are due, and as many bytes otherwise (a
    // cover per deadline would cost the square of the tensors).
    int64_t dueNeed = need - laterBytes;
    if (dueNeed <= 0)
      continue;
    auto cover = [&](ArrayRef<const LogicalTensor *> candidates,
                     int64_t bytes) {
      return candidates.size() <= kMaxCoveredTensors
                 ? getLeastCover(candidates, bytes)
                 : std::max<int64_t>(bytes, 0);
    };
    raise(entry.deadline, start + cover(due, dueNeed) / bandwidth);
    // Of those, what the ones away for free cannot cover went out before
    // the point and comes back after it, through one tier each.
    int64_t roundTrip = cover(storedDue, dueNeed - freeDueBytes);
    if (roundTrip > 0 && roundTripBandwidth > 0)
      raise(entry.deadline, firstStore + roundTripLatency + seconds[point] +
                                roundTrip / roundTripBandwidth);
  }
}

/// A tensor the caller keeps in a tier and the step writes in place goes
/// back before the step ends, once it was last written.
void StartTimes::addStoreBacks() {
  unsigned exit = earliest.size() - 1;
  SmallVector<std::pair<double, int64_t>> releases;
  int64_t bytes = 0;
  for (auto [id, tensor] : llvm::enumerate(tensors))
    if (isStaleInTier(id, exit)) {
      releases.push_back({getEndTime(*tensor.lastWrite), tensor.bytes});
      bytes += tensor.bytes;
    }
  double bandwidth = getSummedBandwidth(target, /*toDevice=*/false);
  if (bytes == 0 || bandwidth <= 0)
    return;
  double latency = getLeastLatency(target, /*toDevice=*/false);
  raise(exit, getFluidFinish(releases, bytes, bandwidth, latency));
  // The created tensors some point needs away cross the same links.
  llvm::append_range(releases, largestCreatedStore.releases);
  raise(exit,
        getFluidFinish(std::move(releases), bytes + largestCreatedStore.bytes,
                       bandwidth, latency));
}

double StartTimes::computeStepEnd() {
  addFirstFetches();
  const PressurePoint *pressure = points.begin();
  for (unsigned point = 0; point < earliest.size(); ++point) {
    if (point > 0)
      raise(point, earliest[point - 1] + seconds[point - 1]);
    if (pressure == points.end() || pressure->point != point)
      continue;
    addStores(*pressure);
    addFetches(*pressure);
    ++pressure;
  }
  addStoreBacks();
  return fits ? earliest.back() : std::numeric_limits<double>::infinity();
}

/// The step's end where the caller passes each device argument on the
/// device or keeps it in a tier, whichever is best: the choices are tried
/// for the largest arguments, the others counted as `either`.
static double getBestStepEnd(ArrayRef<LogicalTensor> tensors,
                             SmallVector<Origin> origins,
                             ArrayRef<double> seconds, const Target &target,
                             int64_t budget, ArrayRef<unsigned> candidates) {
  // Each argument told apart doubles the work: at most this many, and
  // fewer where points x tensors is large.
  constexpr size_t kMaxChoices = 6;
  constexpr size_t kMaxWork = size_t(1) << 22;
  // Passed on the device, the arguments hold the most bytes.
  for (unsigned id : candidates)
    origins[id] = Origin::onDevice;
  size_t work =
      std::max<size_t>(1, StartTimes(tensors, origins, seconds, target, budget)
                                  .getPressurePoints()
                                  .size() *
                              tensors.size());
  size_t numChoices = 0;
  while (numChoices < std::min(kMaxChoices, candidates.size()) &&
         (work << (numChoices + 1)) <= kMaxWork)
    ++numChoices;
  ArrayRef<unsigned> choices = candidates.take_front(numChoices);
  for (unsigned id : candidates.drop_front(numChoices))
    origins[id] = Origin::either;
  double stepEnd = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << choices.size()); ++mask) {
    for (auto [bit, id] : llvm::enumerate(choices))
      origins[id] = (mask >> bit) & 1 ? Origin::inTier : Origin::onDevice;
    stepEnd = std::min(
        stepEnd,
        StartTimes(tensors, origins, seconds, target, budget).computeStepEnd());
  }
  return stepEnd;
}

DeadlineBounds ho::computeDeadlineBounds(ArrayRef<LogicalTensor> tensors,
                                         ArrayRef<double> seconds,
                                         const Target &target, int64_t budget) {
  SmallVector<Origin> origins;
  for (const LogicalTensor &tensor : tensors)
    origins.push_back(tensor.created              ? Origin::created
                      : tensor.remoteArgumentTier ? Origin::inTier
                                                  : Origin::either);
  // The device arguments that need not be on the device everywhere they
  // exist, the largest first: where the caller passes them may matter.
  SmallVector<unsigned> arguments;
  for (auto [id, tensor] : llvm::enumerate(tensors))
    if (tensor.deviceArgument && !tensor.presence.empty() &&
        tensor.presence.size() < tensor.end + 1)
      arguments.push_back(id);
  llvm::stable_sort(arguments, [&](unsigned a, unsigned b) {
    return tensors[a].bytes > tensors[b].bytes;
  });

  DeadlineBounds bounds;
  // Where the budget does not hold whatever the caller does, every bound
  // holds; the relaxation says the least.
  double relaxed =
      StartTimes(tensors, origins, seconds, target, budget).computeStepEnd();
  if (std::isfinite(relaxed))
    bounds.argumentsCopiedToTier = relaxed;
  double best =
      getBestStepEnd(tensors, origins, seconds, target, budget, arguments);
  bounds.argumentsStayOrFetched =
      std::isfinite(best) ? std::max(best, bounds.argumentsCopiedToTier)
                          : bounds.argumentsCopiedToTier;
  return bounds;
}
