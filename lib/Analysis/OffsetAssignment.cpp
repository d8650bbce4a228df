//===- OffsetAssignment.cpp - Offsets of buffers in one arena -------------===//

#include "hyperoffload/Analysis/OffsetAssignment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <cassert>
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
} // namespace

/// The order in which buffers are placed: largest first, then the earlier
/// start, then the lower index. A total order, so the plan is deterministic.
static llvm::SmallVector<unsigned>
getPlacementOrder(llvm::ArrayRef<int64_t> sizes,
                  llvm::ArrayRef<LiveInterval> intervals) {
  auto order = llvm::to_vector(llvm::seq<unsigned>(0, sizes.size()));
  llvm::sort(order, [&](unsigned lhs, unsigned rhs) {
    if (sizes[lhs] != sizes[rhs])
      return sizes[lhs] > sizes[rhs];
    if (intervals[lhs].start != intervals[rhs].start)
      return intervals[lhs].start < intervals[rhs].start;
    return lhs < rhs;
  });
  return order;
}

/// The lowest offset at which `size` bytes live during `interval` overlap
/// none of the buffers of `placed` (sorted by offset) live at the same time.
static int64_t findLowestFit(llvm::ArrayRef<PlacedBuffer> placed, int64_t size,
                             LiveInterval interval) {
  // The highest end of the conflicting buffers seen so far. The ones still
  // to come start no lower than `other`, so when `other` starts `size` bytes
  // or more above `top`, the gap between them is free.
  int64_t top = 0;
  for (const PlacedBuffer &other : placed) {
    // Neither interval is empty: a plain overlap test, without branches, as
    // most of the buffers scanned do not conflict.
    bool conflicts = (other.interval.start < interval.end) &
                     (interval.start < other.interval.end);
    if (conflicts && other.offset - top >= size)
      return top;
    top = conflicts ? std::max(top, other.end) : top;
  }
  return top;
}

OffsetAssignment::OffsetAssignment(llvm::ArrayRef<int64_t> sizes,
                                   llvm::ArrayRef<LiveInterval> intervals) {
  assert(sizes.size() == intervals.size() && "one interval per buffer");
  offsets.assign(sizes.size(), 0);
  place(sizes, intervals);
  computePeakLiveBytes(sizes, intervals);
}

void OffsetAssignment::place(llvm::ArrayRef<int64_t> sizes,
                             llvm::ArrayRef<LiveInterval> intervals) {
  // Sorted by offset; equal offsets in the order they were placed.
  std::vector<PlacedBuffer> placed;
  for (unsigned index : getPlacementOrder(sizes, intervals)) {
    int64_t size = sizes[index];
    LiveInterval interval = intervals[index];
    if (size <= 0 || interval.isEmpty())
      continue;
    int64_t offset = findLowestFit(placed, size, interval);
    offsets[index] = offset;
    arenaSize = std::max(arenaSize, offset + size);
    ++numPlaced;
    auto position = llvm::upper_bound(
        placed, offset,
        [](int64_t value, const PlacedBuffer &p) { return value < p.offset; });
    placed.insert(position, {offset, offset + size, interval});
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
