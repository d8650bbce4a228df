//===- ExactPacking.cpp - Offsets within a limit, found by search ---------===//

#include "hyperoffload/Planning/ExactPacking.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// A buffer that takes room, live over the time slots [first, last).
struct Item {
  unsigned index;
  int64_t size;
  unsigned first;
  unsigned last;
};

/// The branch and bound over one stretch of time that no buffer spans: the
/// items it holds, and the slots [firstSlot, lastSlot) they cover.
class StretchSearch {
public:
  StretchSearch(llvm::ArrayRef<Item> items, unsigned firstSlot,
                unsigned lastSlot, int64_t limit,
                llvm::MutableArrayRef<int64_t> floor, uint64_t &placements,
                uint64_t maxPlacements)
      : items(items), firstSlot(firstSlot), lastSlot(lastSlot), limit(limit),
        floor(floor), placements(placements), maxPlacements(maxPlacements),
        offsets(items.size(), -1), unplacedBytes(floor.size(), 0) {
    for (const Item &item : items)
      for (unsigned slot = item.first; slot < item.last; ++slot)
        unplacedBytes[slot] += item.size;
  }

  /// Whether a placement exists; when it does, `getOffset` has it.
  bool search() { return extend(/*lastOffset=*/0, /*lastItem=*/-1, 0); }
  bool gaveUp() const { return stopped; }
  int64_t getOffset(unsigned item) const { return offsets[item]; }

private:
  /// The lowest offset of `item` above the placed items live with it.
  int64_t getDrop(const Item &item) const {
    int64_t drop = 0;
    for (unsigned slot = item.first; slot < item.last; ++slot)
      drop = std::max(drop, floor[slot]);
    return drop;
  }
  /// Whether the unplaced items live in some slot cannot all fit there
  /// above both its floor and `lastOffset`, below the limit.
  bool isBeyondLimit(int64_t lastOffset) const {
    for (unsigned slot = firstSlot; slot < lastSlot; ++slot)
      if (unplacedBytes[slot] > 0 &&
          std::max(floor[slot], lastOffset) + unplacedBytes[slot] > limit)
        return true;
    return false;
  }
  /// Places the items after the first `numPlaced`, the last of which went
  /// at `lastOffset`; `lastItem` is its position in `items`.
  bool extend(int64_t lastOffset, int lastItem, unsigned numPlaced);

  llvm::ArrayRef<Item> items;
  unsigned firstSlot, lastSlot;
  int64_t limit;
  /// By slot: the highest end of the placed items live in it.
  llvm::MutableArrayRef<int64_t> floor;
  uint64_t &placements;
  uint64_t maxPlacements;
  bool stopped = false;
  /// By item: its offset, or -1 while unplaced.
  llvm::SmallVector<int64_t> offsets;
  /// By slot: the bytes of the unplaced items live in it.
  llvm::SmallVector<int64_t> unplacedBytes;
};
} // namespace

bool StretchSearch::extend(int64_t lastOffset, int lastItem,
                           unsigned numPlaced) {
  if (numPlaced == items.size())
    return true;
  if (isBeyondLimit(lastOffset))
    return false;

  // The next item by offset rests where it drops to, no lower than the
  // last one; at the same offset, items come in the order of `items`, as
  // items at one offset are not live together and do not move each other.
  llvm::SmallVector<std::pair<int64_t, unsigned>> candidates;
  for (auto [position, item] : llvm::enumerate(items)) {
    if (offsets[position] >= 0)
      continue;
    int64_t drop = getDrop(item);
    if (drop < lastOffset ||
        (drop == lastOffset && static_cast<int>(position) < lastItem) ||
        drop + item.size > limit)
      continue;
    candidates.push_back({drop, position});
  }
  // Lowest first, then the largest: the order greedy packing would take.
  llvm::sort(candidates, [&](auto lhs, auto rhs) {
    if (lhs.first != rhs.first)
      return lhs.first < rhs.first;
    if (items[lhs.second].size != items[rhs.second].size)
      return items[lhs.second].size > items[rhs.second].size;
    return lhs.second < rhs.second;
  });

  llvm::SmallVector<int64_t> savedFloor;
  for (auto [drop, position] : candidates) {
    if (++placements > maxPlacements) {
      stopped = true;
      return false;
    }
    const Item &item = items[position];
    savedFloor.assign(floor.begin() + item.first, floor.begin() + item.last);
    for (unsigned slot = item.first; slot < item.last; ++slot) {
      floor[slot] = drop + item.size;
      unplacedBytes[slot] -= item.size;
    }
    offsets[position] = drop;
    if (extend(drop, position, numPlaced + 1))
      return true;
    offsets[position] = -1;
    for (unsigned slot = item.first; slot < item.last; ++slot) {
      floor[slot] = savedFloor[slot - item.first];
      unplacedBytes[slot] += item.size;
    }
    if (stopped)
      return false;
  }
  return false;
}

PackingResult ho::searchPacking(llvm::ArrayRef<int64_t> sizes,
                                llvm::ArrayRef<LiveInterval> intervals,
                                int64_t limit, PackingSearchLimits limits) {
  assert(sizes.size() == intervals.size() && "one interval per buffer");
  PackingResult result;
  result.offsets.assign(sizes.size(), 0);

  // Time as slots between the distinct interval ends.
  llvm::SmallVector<uint64_t> times;
  for (auto [size, interval] : llvm::zip_equal(sizes, intervals))
    if (size > 0 && !interval.isEmpty()) {
      times.push_back(interval.start);
      times.push_back(interval.end);
    }
  llvm::sort(times);
  times.erase(std::unique(times.begin(), times.end()), times.end());
  auto getSlot = [&](uint64_t time) {
    return static_cast<unsigned>(llvm::lower_bound(times, time) -
                                 times.begin());
  };
  llvm::SmallVector<Item> items;
  for (auto [index, size, interval] : llvm::enumerate(sizes, intervals))
    if (size > 0 && !interval.isEmpty())
      items.push_back({static_cast<unsigned>(index), size,
                       getSlot(interval.start), getSlot(interval.end)});
  if (items.size() > limits.maxBuffers) {
    result.status = PackingStatus::TooLarge;
    return result;
  }

  // Stretches: a new one starts where no item before it is still live.
  llvm::stable_sort(items, [](const Item &lhs, const Item &rhs) {
    return lhs.first < rhs.first;
  });
  llvm::SmallVector<int64_t> floor(times.size(), 0);
  for (size_t begin = 0; begin < items.size();) {
    size_t end = begin + 1;
    unsigned lastSlot = items[begin].last;
    while (end < items.size() && items[end].first < lastSlot)
      lastSlot = std::max(lastSlot, items[end++].last);
    llvm::ArrayRef<Item> stretch(items.data() + begin, end - begin);
    StretchSearch search(stretch, stretch.front().first, lastSlot, limit, floor,
                         result.placements, limits.maxPlacements);
    if (!search.search()) {
      result.status =
          search.gaveUp() ? PackingStatus::GaveUp : PackingStatus::NoPacking;
      result.offsets.assign(sizes.size(), 0);
      return result;
    }
    for (auto [position, item] : llvm::enumerate(stretch)) {
      result.offsets[item.index] = search.getOffset(position);
      result.arenaSize =
          std::max(result.arenaSize, search.getOffset(position) + item.size);
    }
    begin = end;
  }
  result.status = PackingStatus::Packed;
  return result;
}
