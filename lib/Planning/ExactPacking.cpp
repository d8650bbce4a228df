//===- ExactPacking.cpp - Offsets within a limit, found by search ---------===//

#include "hyperoffload/Planning/ExactPacking.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <optional>

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
///
/// Each slot has a floor: every unplaced item live in it lies above it.
/// At the slot with the lowest floor, either some unplaced item live there
/// sits right on it (one branch per item whose every slot is at that
/// floor), or none does, and the floor rises to the lowest offset any of
/// them can still take (the last branch). In a layout pushed down, an item
/// above a floor rests on an item live with it, so it lies no lower than
/// the lowest top such an item can have.
class StretchSearch {
public:
  StretchSearch(llvm::ArrayRef<Item> items, unsigned firstSlot,
                unsigned lastSlot, int64_t limit,
                llvm::MutableArrayRef<int64_t> floor, uint64_t &steps,
                uint64_t maxSteps)
      : items(items), firstSlot(firstSlot), lastSlot(lastSlot), limit(limit),
        floor(floor), steps(steps), maxSteps(maxSteps),
        offsets(items.size(), -1), unplacedBytes(floor.size(), 0),
        lowestStart(floor.size(), 0) {
    for (const Item &item : items)
      for (unsigned slot = item.first; slot < item.last; ++slot)
        unplacedBytes[slot] += item.size;
  }

  /// Whether a placement exists; when it does, `getOffset` has it.
  bool search() { return extend(0); }
  bool gaveUp() const { return stopped; }
  int64_t getOffset(unsigned item) const { return offsets[item]; }

private:
  bool isUnplaced(unsigned position) const { return offsets[position] < 0; }
  /// The lowest offset of `item` above the floors of its slots.
  int64_t getDrop(const Item &item) const {
    int64_t drop = 0;
    for (unsigned slot = item.first; slot < item.last; ++slot)
      drop = std::max(drop, floor[slot]);
    return drop;
  }
  /// Whether the unplaced items live in some slot cannot all fit there
  /// between the lowest drop among them (which may lie above the slot's
  /// floor) and the limit.
  bool isBeyondLimit() const {
    std::fill(lowestStart.begin() + firstSlot, lowestStart.begin() + lastSlot,
              std::numeric_limits<int64_t>::max());
    for (auto [position, item] : llvm::enumerate(items)) {
      if (!isUnplaced(position))
        continue;
      int64_t drop = getDrop(item);
      for (unsigned slot = item.first; slot < item.last; ++slot)
        lowestStart[slot] = std::min(lowestStart[slot], drop);
    }
    for (unsigned slot = firstSlot; slot < lastSlot; ++slot)
      if (unplacedBytes[slot] > 0 &&
          lowestStart[slot] + unplacedBytes[slot] > limit)
        return true;
    return false;
  }
  /// The lowest offset above `level` that the unplaced item at `position`
  /// may take once nothing sits at `level` in its slots: its drop, or when
  /// that is `level`, the lowest top of an unplaced item live with it (one
  /// it can rest on); none when no such item exists.
  std::optional<int64_t> getLowestAbove(unsigned position, int64_t level) const;
  /// Whether one more step is allowed; stops the search when not.
  bool takeStep() {
    if (steps < maxSteps) {
      ++steps;
      return true;
    }
    stopped = true;
    return false;
  }
  /// Places the unplaced items, `numPlaced` being placed.
  bool extend(unsigned numPlaced);
  bool place(unsigned position, int64_t offset, unsigned numPlaced);

  llvm::ArrayRef<Item> items;
  unsigned firstSlot, lastSlot;
  int64_t limit;
  /// By slot: no unplaced item live in it lies lower.
  llvm::MutableArrayRef<int64_t> floor;
  uint64_t &steps;
  uint64_t maxSteps;
  bool stopped = false;
  /// By item: its offset, or -1 while unplaced.
  llvm::SmallVector<int64_t> offsets;
  /// By slot: the bytes of the unplaced items live in it.
  llvm::SmallVector<int64_t> unplacedBytes;
  /// By slot: scratch for isBeyondLimit.
  mutable llvm::SmallVector<int64_t> lowestStart;
};
} // namespace

std::optional<int64_t> StretchSearch::getLowestAbove(unsigned position,
                                                     int64_t level) const {
  const Item &item = items[position];
  int64_t drop = getDrop(item);
  if (drop > level)
    return drop;
  // It rests on an unplaced item live with it, which lies above its own
  // floors.
  std::optional<int64_t> lowest;
  for (auto [other, otherItem] : llvm::enumerate(items))
    if (other != position && isUnplaced(other) && otherItem.first < item.last &&
        item.first < otherItem.last) {
      int64_t top = getDrop(otherItem) + otherItem.size;
      lowest = lowest ? std::min(*lowest, top) : top;
    }
  return lowest;
}

bool StretchSearch::place(unsigned position, int64_t offset,
                          unsigned numPlaced) {
  const Item &item = items[position];
  llvm::SmallVector<int64_t> savedFloor(floor.begin() + item.first,
                                        floor.begin() + item.last);
  for (unsigned slot = item.first; slot < item.last; ++slot) {
    floor[slot] = offset + item.size;
    unplacedBytes[slot] -= item.size;
  }
  offsets[position] = offset;
  if (extend(numPlaced + 1))
    return true;
  offsets[position] = -1;
  for (unsigned slot = item.first; slot < item.last; ++slot) {
    floor[slot] = savedFloor[slot - item.first];
    unplacedBytes[slot] += item.size;
  }
  return false;
}

bool StretchSearch::extend(unsigned numPlaced) {
  // A raised floor is the last branch of a node: raising it and going on in
  // a loop keeps the recursion as deep as the items placed, however many
  // floors rise. The floors come back down when this node fails.
  llvm::SmallVector<std::pair<unsigned, int64_t>> raisedFloors;
  auto fail = [&] {
    for (auto [slot, level] : llvm::reverse(raisedFloors))
      floor[slot] = level;
    return false;
  };
  while (true) {
    if (numPlaced == items.size())
      return true;
    if (isBeyondLimit())
      return fail();

    // The lowest floor with an unplaced item above it, the first on a tie.
    std::optional<unsigned> lowest;
    for (unsigned slot = firstSlot; slot < lastSlot; ++slot)
      if (unplacedBytes[slot] > 0 && (!lowest || floor[slot] < floor[*lowest]))
        lowest = slot;
    unsigned slot = *lowest;
    int64_t level = floor[slot];

    // Items live there whose every slot is at that floor may sit on it: the
    // largest first, then the longest lived.
    llvm::SmallVector<unsigned> candidates;
    for (auto [position, item] : llvm::enumerate(items))
      if (isUnplaced(position) && item.first <= slot && slot < item.last &&
          getDrop(item) == level)
        candidates.push_back(position);
    llvm::sort(candidates, [&](unsigned lhs, unsigned rhs) {
      const Item &a = items[lhs], &b = items[rhs];
      if (a.size != b.size)
        return a.size > b.size;
      if (a.last - a.first != b.last - b.first)
        return a.last - a.first > b.last - b.first;
      return lhs < rhs;
    });
    for (unsigned position : candidates) {
      if (!takeStep())
        return fail();
      if (place(position, level, numPlaced))
        return true;
      if (stopped)
        return fail();
    }

    // Nothing sits on this floor: it rises to where the lowest of the
    // items live there can be.
    std::optional<int64_t> raised;
    for (auto [position, item] : llvm::enumerate(items)) {
      if (!isUnplaced(position) || slot < item.first || item.last <= slot)
        continue;
      std::optional<int64_t> above = getLowestAbove(position, level);
      // An item that can rest on nothing else must sit on this floor.
      if (!above)
        return fail();
      raised = raised ? std::min(*raised, *above) : *above;
    }
    if (!takeStep())
      return fail();
    raisedFloors.push_back({slot, level});
    floor[slot] = *raised;
  }
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
                         result.steps, limits.maxSteps);
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
