//===- OffsetAssignment.cpp - Offsets of buffers in one arena -------------===//

#include "hyperoffload/Planning/OffsetAssignment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <utility>
#include <vector>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// A buffer already in the arena: it holds [offset, end) during `interval`.
struct PlacedBuffer {
  int64_t offset;
  int64_t end;
  LiveInterval interval;
};

/// Consecutive placed buffers by offset, with what a scan needs to step
/// over all of them at once.
struct OffsetBlock {
  std::vector<PlacedBuffer> buffers;
  /// The bounds of the buffers' intervals.
  uint64_t earliestStart, latestStart, earliestEnd, latestEnd;
  /// The highest end offset.
  int64_t top;
  /// The widest hole between the buffers' offset ranges.
  int64_t widestHole;

  void summarize();
  bool nothingLiveDuring(LiveInterval interval) const {
    return earliestStart >= interval.end || latestEnd <= interval.start;
  }
  bool allLiveDuring(LiveInterval interval) const {
    return latestStart < interval.end && earliestEnd > interval.start;
  }
};

/// Every placed buffer by offset, equal offsets in the order they were
/// placed. Kept in blocks, so that an insertion moves one block rather than
/// the whole list, and so that a scan steps over a block at once when no
/// buffer in it is live at the same time, or when all are and no hole
/// between them is wide enough.
class PlacedByOffset {
public:
  void insert(const PlacedBuffer &buffer);
  /// The lowest offset at which `size` bytes live during `interval` overlap
  /// none of the buffers live at the same time.
  int64_t findLowestFit(int64_t size, LiveInterval interval) const;

private:
  static constexpr size_t kMaxBlockSize = 256;
  std::vector<OffsetBlock> blocks;
};

/// The placed buffers by when they are live, so that those live at the same
/// time as a new one are found without looking at the others. The ones live
/// when it starts lie on one root-to-leaf path of a segment tree over the
/// interval endpoints, in the nodes their intervals span; the ones that
/// start later, before it ends, are a range of a map by start.
class PlacedByTime {
public:
  explicit PlacedByTime(llvm::ArrayRef<LiveInterval> intervals);

  /// Records the `placed`th buffer placed.
  void insert(unsigned placed, LiveInterval interval);
  /// How many buffers are live during `interval`, a non-empty one.
  size_t countConflicts(LiveInterval interval) const;
  /// Those buffers, in no particular order.
  void findConflicts(LiveInterval interval,
                     llvm::SmallVectorImpl<unsigned> &conflicts) const;

private:
  /// The slot [times[i], times[i + 1]) that starts at `time`.
  unsigned getSlot(uint64_t time) const {
    return llvm::lower_bound(times, time) - times.begin();
  }
  void insert(unsigned node, unsigned first, unsigned last, unsigned from,
              unsigned to, unsigned placed);
  /// Visits the nodes on the path from the root to `slot`'s leaf.
  template <typename Visit> void walkTo(unsigned slot, Visit visit) const;
  /// How many buffers start in slots [0, end).
  size_t countStartsBefore(unsigned end) const;

  /// Every start and end, sorted, once each.
  llvm::SmallVector<uint64_t> times;
  unsigned numSlots;
  /// By segment tree node over the slots.
  std::vector<llvm::SmallVector<unsigned, 0>> spanning;
  std::multimap<uint64_t, unsigned> byStart;
  /// A Fenwick tree of the buffers starting in each slot.
  llvm::SmallVector<unsigned> startCounts;
};
} // namespace

/// Scans `placed` (sorted by offset, and above the buffers scanned before)
/// for the lowest gap of `size` bytes among the buffers live during
/// `interval`. `top` is the highest end of those seen so far, and the
/// offset of the gap once it is found.
static bool scanForFit(llvm::ArrayRef<PlacedBuffer> placed, int64_t size,
                       LiveInterval interval, int64_t &top) {
  // The ones still to come start no lower than `other`, so when `other`
  // starts `size` bytes or more above `top`, the gap between them is free.
  for (const PlacedBuffer &other : placed) {
    // Neither interval is empty: a plain overlap test, without branches, as
    // most of the buffers scanned may not conflict.
    bool conflicts = (other.interval.start < interval.end) &
                     (interval.start < other.interval.end);
    if (conflicts && other.offset - top >= size)
      return true;
    top = conflicts ? std::max(top, other.end) : top;
  }
  return false;
}

void OffsetBlock::summarize() {
  earliestStart = earliestEnd = std::numeric_limits<uint64_t>::max();
  latestStart = latestEnd = 0;
  top = 0;
  widestHole = 0;
  for (const PlacedBuffer &buffer : buffers) {
    earliestStart = std::min(earliestStart, buffer.interval.start);
    latestStart = std::max(latestStart, buffer.interval.start);
    earliestEnd = std::min(earliestEnd, buffer.interval.end);
    latestEnd = std::max(latestEnd, buffer.interval.end);
    // Sorted by offset: `top` is the end of the ranges below so far.
    if (&buffer != &buffers.front())
      widestHole = std::max(widestHole, buffer.offset - top);
    top = std::max(top, buffer.end);
  }
}

void PlacedByOffset::insert(const PlacedBuffer &buffer) {
  if (blocks.empty()) {
    blocks.emplace_back().buffers.push_back(buffer);
    blocks.back().summarize();
    return;
  }
  // After every buffer at the same offset or lower: the last block that
  // starts no higher, else the first.
  auto block = llvm::upper_bound(blocks, buffer.offset,
                                 [](int64_t offset, const OffsetBlock &block) {
                                   return offset < block.buffers.front().offset;
                                 });
  if (block != blocks.begin())
    --block;
  auto position = llvm::upper_bound(
      block->buffers, buffer.offset,
      [](int64_t offset, const PlacedBuffer &p) { return offset < p.offset; });
  block->buffers.insert(position, buffer);
  if (block->buffers.size() > kMaxBlockSize) {
    OffsetBlock upperHalf;
    auto middle = block->buffers.begin() + block->buffers.size() / 2;
    upperHalf.buffers.assign(middle, block->buffers.end());
    block->buffers.erase(middle, block->buffers.end());
    upperHalf.summarize();
    block = std::prev(blocks.insert(std::next(block), std::move(upperHalf)));
  }
  block->summarize();
}

int64_t PlacedByOffset::findLowestFit(int64_t size,
                                      LiveInterval interval) const {
  int64_t top = 0;
  for (const OffsetBlock &block : blocks) {
    if (block.nothingLiveDuring(interval))
      continue;
    // Every hole below the block's top is narrower than `size`: the one
    // under its first buffer, and those between its buffers.
    if (block.allLiveDuring(interval) &&
        block.buffers.front().offset - top < size && block.widestHole < size) {
      top = std::max(top, block.top);
      continue;
    }
    if (scanForFit(block.buffers, size, interval, top))
      break;
  }
  return top;
}

PlacedByTime::PlacedByTime(llvm::ArrayRef<LiveInterval> intervals) {
  for (LiveInterval interval : intervals) {
    times.push_back(interval.start);
    times.push_back(interval.end);
  }
  llvm::sort(times);
  times.erase(std::unique(times.begin(), times.end()), times.end());
  numSlots = std::max<size_t>(times.size(), 2) - 1;
  spanning.resize(2 * llvm::bit_ceil(numSlots));
  startCounts.assign(times.size() + 1, 0);
}

void PlacedByTime::insert(unsigned placed, LiveInterval interval) {
  insert(1, 0, numSlots, getSlot(interval.start), getSlot(interval.end),
         placed);
  byStart.insert({interval.start, placed});
  for (unsigned i = getSlot(interval.start) + 1; i < startCounts.size();
       i += i & -i)
    ++startCounts[i];
}

void PlacedByTime::insert(unsigned node, unsigned first, unsigned last,
                          unsigned from, unsigned to, unsigned placed) {
  if (to <= first || last <= from)
    return;
  if (from <= first && last <= to) {
    spanning[node].push_back(placed);
    return;
  }
  unsigned middle = (first + last) / 2;
  insert(2 * node, first, middle, from, to, placed);
  insert(2 * node + 1, middle, last, from, to, placed);
}

template <typename Visit>
void PlacedByTime::walkTo(unsigned slot, Visit visit) const {
  unsigned node = 1, first = 0, last = numSlots;
  while (true) {
    visit(spanning[node]);
    if (last - first == 1)
      return;
    unsigned middle = (first + last) / 2;
    node = 2 * node + (slot >= middle);
    (slot < middle ? last : first) = middle;
  }
}

size_t PlacedByTime::countStartsBefore(unsigned end) const {
  size_t count = 0;
  for (unsigned i = end; i > 0; i -= i & -i)
    count += startCounts[i];
  return count;
}

size_t PlacedByTime::countConflicts(LiveInterval interval) const {
  size_t count = 0;
  walkTo(getSlot(interval.start),
         [&](llvm::ArrayRef<unsigned> live) { count += live.size(); });
  return count + countStartsBefore(getSlot(interval.end)) -
         countStartsBefore(getSlot(interval.start) + 1);
}

void PlacedByTime::findConflicts(
    LiveInterval interval, llvm::SmallVectorImpl<unsigned> &conflicts) const {
  // Live when it starts...
  walkTo(getSlot(interval.start), [&](llvm::ArrayRef<unsigned> live) {
    llvm::append_range(conflicts, live);
  });
  // ...or starting while it is live.
  for (auto it = byStart.upper_bound(interval.start);
       it != byStart.end() && it->first < interval.end; ++it)
    conflicts.push_back(it->second);
}

/// The order in which buffers are placed: by the key of `kind` (none for
/// BySize), then largest first, then the earlier start, then the lower
/// index. A total order, so the plan is deterministic.
static llvm::SmallVector<unsigned>
getPlacementOrder(llvm::ArrayRef<int64_t> sizes,
                  llvm::ArrayRef<LiveInterval> intervals,
                  OffsetAssignment::Order kind) {
  using Order = OffsetAssignment::Order;
  auto area = [&](unsigned index) {
    // Lifetimes count allocation events: far below 2^32, so no overflow.
    return static_cast<double>(sizes[index]) *
           (intervals[index].end - intervals[index].start);
  };
  auto order = llvm::to_vector(llvm::seq<unsigned>(0, sizes.size()));
  llvm::sort(order, [&](unsigned lhs, unsigned rhs) {
    if (kind == Order::ByArea && area(lhs) != area(rhs))
      return area(lhs) > area(rhs);
    if (kind == Order::ByStart && intervals[lhs].start != intervals[rhs].start)
      return intervals[lhs].start < intervals[rhs].start;
    auto length = [&](unsigned index) {
      return intervals[index].end - intervals[index].start;
    };
    if (kind == Order::ByLifetime && length(lhs) != length(rhs))
      return length(lhs) > length(rhs);
    if (kind == Order::ByEnd && intervals[lhs].end != intervals[rhs].end)
      return intervals[lhs].end > intervals[rhs].end;
    if (sizes[lhs] != sizes[rhs])
      return sizes[lhs] > sizes[rhs];
    if (intervals[lhs].start != intervals[rhs].start)
      return intervals[lhs].start < intervals[rhs].start;
    return lhs < rhs;
  });
  return order;
}

OffsetAssignment::OffsetAssignment(llvm::ArrayRef<int64_t> sizes,
                                   llvm::ArrayRef<LiveInterval> intervals,
                                   std::optional<int64_t> limit,
                                   PackingSearchLimits searchLimits) {
  assert(sizes.size() == intervals.size() && "one interval per buffer");
  place(sizes, intervals, Order::BySize);
  computePeakLiveBytes(sizes, intervals);
  if (!limit || arenaSize <= *limit)
    return;
  for (Order order :
       {Order::ByArea, Order::ByStart, Order::ByLifetime, Order::ByEnd}) {
    OffsetAssignment other;
    other.place(sizes, intervals, order);
    if (other.arenaSize < arenaSize) {
      offsets = std::move(other.offsets);
      arenaSize = other.arenaSize;
    }
  }
  if (arenaSize <= *limit || peakLiveBytes > *limit)
    return;
  PackingResult packing = searchPacking(sizes, intervals, *limit, searchLimits);
  packingSearch = packing.status;
  searchSteps = packing.steps;
  if (packing.status == PackingStatus::Packed) {
    offsets = std::move(packing.offsets);
    arenaSize = packing.arenaSize;
  }
}

void OffsetAssignment::place(llvm::ArrayRef<int64_t> sizes,
                             llvm::ArrayRef<LiveInterval> intervals,
                             Order order) {
  offsets.assign(sizes.size(), 0);
  // In placement order.
  std::vector<PlacedBuffer> placed;
  PlacedByOffset byOffset;
  PlacedByTime byTime(intervals);
  llvm::SmallVector<unsigned> conflicts;
  std::vector<PlacedBuffer> conflicting;
  for (unsigned index : getPlacementOrder(sizes, intervals, order)) {
    int64_t size = sizes[index];
    LiveInterval interval = intervals[index];
    if (size <= 0 || interval.isEmpty())
      continue;
    int64_t offset = 0;
    // Scan every placed buffer, stepping over blocks, unless sorting the
    // ones live at the same time costs less: a scan's step is a few
    // instructions, a sort's comparison several times that.
    size_t numConflicts = byTime.countConflicts(interval);
    if (numConflicts * llvm::Log2_64_Ceil(numConflicts + 1) * 8 >
        placed.size()) {
      offset = byOffset.findLowestFit(size, interval);
    } else {
      conflicts.clear();
      byTime.findConflicts(interval, conflicts);
      // Equal offsets in the order they were placed, as in `byOffset`.
      llvm::sort(conflicts, [&](unsigned a, unsigned b) {
        return std::make_pair(placed[a].offset, a) <
               std::make_pair(placed[b].offset, b);
      });
      conflicting.clear();
      for (unsigned other : conflicts)
        conflicting.push_back(placed[other]);
      scanForFit(conflicting, size, interval, offset);
    }
    offsets[index] = offset;
    arenaSize = std::max(arenaSize, offset + size);
    ++numPlaced;
    PlacedBuffer buffer{offset, offset + size, interval};
    byTime.insert(placed.size(), interval);
    byOffset.insert(buffer);
    placed.push_back(buffer);
  }
}

void OffsetAssignment::computePeakLiveBytes(
    llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<LiveInterval> intervals) {
  // (time, change in live bytes); at the same time releases come first,
  // since a buffer whose interval ends at t is no longer live at t.
  llvm::SmallVector<std::pair<uint64_t, int64_t>> changes;
  for (auto [size, interval] : llvm::zip_equal(sizes, intervals)) {
    if (size <= 0 || interval.isEmpty())
      continue;
    changes.push_back({interval.start, size});
    changes.push_back({interval.end, -size});
  }
  llvm::sort(changes);
  int64_t live = 0;
  for (auto [time, change] : changes) {
    live += change;
    peakLiveBytes = std::max(peakLiveBytes, live);
  }
}
