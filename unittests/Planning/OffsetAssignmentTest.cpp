//===- OffsetAssignmentTest.cpp - Static memory plans, by hand ------------===//

#include "hyperoffload/Planning/OffsetAssignment.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

using namespace mlir::ho;

namespace {
/// A buffer of the test inputs: `size` bytes live during [start, end).
struct Buffer {
  int64_t size;
  uint64_t start;
  uint64_t end;
};

OffsetAssignment assign(llvm::ArrayRef<Buffer> buffers,
                        std::optional<int64_t> limit = std::nullopt) {
  std::vector<int64_t> sizes;
  std::vector<LiveInterval> intervals;
  for (const Buffer &buffer : buffers) {
    sizes.push_back(buffer.size);
    intervals.push_back({buffer.start, buffer.end});
  }
  return OffsetAssignment(sizes, intervals, limit);
}

/// Whether no two buffers live at the same time overlap in `plan`.
bool isValidPlan(llvm::ArrayRef<Buffer> buffers, const OffsetAssignment &plan) {
  for (unsigned i = 0; i < buffers.size(); ++i)
    for (unsigned j = 0; j < i; ++j) {
      LiveInterval lhs{buffers[i].start, buffers[i].end};
      LiveInterval rhs{buffers[j].start, buffers[j].end};
      if (lhs.intersects(rhs) &&
          plan.getOffset(i) < plan.getOffset(j) + buffers[j].size &&
          plan.getOffset(j) < plan.getOffset(i) + buffers[i].size)
        return false;
    }
  return true;
}

std::vector<int64_t> offsetsOf(const OffsetAssignment &plan) {
  return std::vector<int64_t>(plan.getOffsets().begin(),
                              plan.getOffsets().end());
}

/// `count` buffers of 1 to 64 KiB with random lifetimes in [0, 1000).
std::vector<Buffer> makeRandomBuffers(unsigned count, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<Buffer> buffers;
  for (unsigned i = 0; i < count; ++i) {
    uint64_t start = random() % 1000;
    uint64_t length = 1 + random() % 200;
    int64_t size = 1024 * (1 + random() % 64);
    buffers.push_back({size, start, std::min<uint64_t>(start + length, 1000)});
  }
  return buffers;
}

/// The most bytes live at any instant, counted the slow way.
int64_t countPeakLiveBytes(llvm::ArrayRef<Buffer> buffers) {
  int64_t peak = 0;
  for (const Buffer &at : buffers) {
    // The live bytes change only at starts; measure right at each one.
    int64_t live = 0;
    for (const Buffer &buffer : buffers)
      if (buffer.start <= at.start && at.start < buffer.end)
        live += buffer.size;
    peak = std::max(peak, live);
  }
  return peak;
}
} // namespace

// Placed by decreasing size: 64 at the bottom, then 32, then 16, whatever
// their order in the input.
TEST(OffsetAssignmentTest, BiggestBufferGoesFirst) {
  OffsetAssignment plan = assign({{16, 0, 10}, {64, 0, 10}, {32, 0, 10}});
  EXPECT_EQ(offsetsOf(plan), (std::vector<int64_t>{96, 0, 64}));
  EXPECT_EQ(plan.getArenaSize(), 112);
  EXPECT_EQ(plan.getPeakLiveBytes(), 112);
  EXPECT_EQ(plan.getNumPlaced(), 3u);
}

// Buffer 1 sits between two long-lived buffers and dies at 4, leaving a
// 48-byte hole at 64. Buffer 3 (the same size) and buffer 4 (smaller) come
// later and reuse it instead of growing the arena.
TEST(OffsetAssignmentTest, OffsetsThatReuseAFreedHole) {
  OffsetAssignment plan = assign({
      {64, 0, 10}, // bottom, live throughout
      {48, 0, 4},  // the hole once it dies
      {40, 0, 10}, // above the hole, live throughout
      {48, 5, 10}, // the same size as the hole
      {32, 4, 5},  // smaller, between 1's death and 3's birth
  });
  EXPECT_EQ(offsetsOf(plan), (std::vector<int64_t>{0, 64, 112, 64, 64}));
  EXPECT_EQ(plan.getArenaSize(), 152);
  EXPECT_EQ(plan.getPeakLiveBytes(), 152);
}

// At time 3 the live buffers leave a 64-byte gap at 128 and a 32-byte gap
// at 256: the 32-byte buffer takes the lowest one, 128 (best fit would take
// the tighter 256).
TEST(OffsetAssignmentTest, LowestGapThatFitsWins) {
  OffsetAssignment plan = assign({
      {128, 0, 10},
      {64, 0, 2}, // gap of 64 at 128 from time 2
      {64, 0, 10},
      {32, 0, 2}, // gap of 32 at 256 from time 2
      {32, 0, 10},
      {32, 3, 10},
  });
  EXPECT_EQ(offsetsOf(plan),
            (std::vector<int64_t>{0, 128, 192, 256, 288, 128}));
  EXPECT_EQ(plan.getArenaSize(), 320);
}

// [0, 5) and [5, 8) touch but do not intersect: the second buffer is
// allocated after the first is released, so they share memory.
TEST(OffsetAssignmentTest, TouchingIntervalsShareMemory) {
  OffsetAssignment plan = assign({{16, 0, 5}, {16, 5, 8}});
  EXPECT_EQ(offsetsOf(plan), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(plan.getArenaSize(), 16);
  EXPECT_EQ(plan.getPeakLiveBytes(), 16);

  // One more event of overlap and they no longer may.
  OffsetAssignment overlapping = assign({{16, 0, 6}, {16, 5, 8}});
  EXPECT_EQ(offsetsOf(overlapping), (std::vector<int64_t>{0, 16}));
  EXPECT_EQ(overlapping.getPeakLiveBytes(), 32);
}

// Empty buffers and buffers that are never live take no room.
TEST(OffsetAssignmentTest, EmptyBuffersTakeNoRoom) {
  OffsetAssignment plan = assign({{0, 0, 10}, {64, 3, 3}, {16, 0, 10}});
  EXPECT_EQ(offsetsOf(plan), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(plan.getArenaSize(), 16);
  EXPECT_EQ(plan.getPeakLiveBytes(), 16);
  EXPECT_EQ(plan.getNumPlaced(), 1u);
}

// Every valid plan needs at least the peak of live bytes; this one never
// overlaps two live buffers and its arena is the highest end offset.
TEST(OffsetAssignmentTest, ArenaIsNeverBelowPeakLiveBytes) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::vector<Buffer> buffers = makeRandomBuffers(400, seed);
    OffsetAssignment plan = assign(buffers);
    EXPECT_EQ(plan.getPeakLiveBytes(), countPeakLiveBytes(buffers));
    EXPECT_GE(plan.getArenaSize(), plan.getPeakLiveBytes());

    int64_t highestEnd = 0;
    for (unsigned i = 0; i < buffers.size(); ++i) {
      int64_t offset = plan.getOffset(i);
      EXPECT_GE(offset, 0);
      highestEnd = std::max(highestEnd, offset + buffers[i].size);
      for (unsigned j = 0; j < i; ++j) {
        LiveInterval lhs{buffers[i].start, buffers[i].end};
        LiveInterval rhs{buffers[j].start, buffers[j].end};
        if (!lhs.intersects(rhs))
          continue;
        bool disjoint = offset + buffers[i].size <= plan.getOffset(j) ||
                        plan.getOffset(j) + buffers[j].size <= offset;
        EXPECT_TRUE(disjoint) << "buffers " << j << " and " << i;
      }
    }
    EXPECT_EQ(plan.getArenaSize(), highestEnd);
  }
}

// Ties in size go to the earlier start, then to the lower index; the same
// input always gives the same plan.
TEST(OffsetAssignmentTest, PlansAreDeterministic) {
  EXPECT_EQ(offsetsOf(assign({{16, 0, 4}, {16, 0, 4}})),
            (std::vector<int64_t>{0, 16}));
  EXPECT_EQ(offsetsOf(assign({{16, 2, 6}, {16, 0, 6}})),
            (std::vector<int64_t>{16, 0}));

  std::vector<Buffer> buffers = makeRandomBuffers(300, 7);
  OffsetAssignment first = assign(buffers);
  OffsetAssignment second = assign(buffers);
  EXPECT_EQ(offsetsOf(first), offsetsOf(second));
  EXPECT_EQ(first.getArenaSize(), second.getArenaSize());
}

// Over a limit, the other placement orders are tried: the arena is never
// larger than greedy-by-size's, and on some inputs it is smaller. Within
// the limit the plan is greedy-by-size's, unchanged.
TEST(OffsetAssignmentTest, OtherOrdersOnlyWhenOverTheLimit) {
  unsigned improved = 0;
  for (unsigned seed = 0; seed < 50; ++seed) {
    std::vector<Buffer> buffers = makeRandomBuffers(60, seed);
    OffsetAssignment bySize = assign(buffers);
    OffsetAssignment tried = assign(buffers, bySize.getPeakLiveBytes());
    EXPECT_TRUE(isValidPlan(buffers, tried)) << "seed " << seed;
    EXPECT_LE(tried.getArenaSize(), bySize.getArenaSize()) << "seed " << seed;
    improved += tried.getArenaSize() < bySize.getArenaSize();
    OffsetAssignment within = assign(buffers, bySize.getArenaSize());
    EXPECT_EQ(offsetsOf(within), offsetsOf(bySize)) << "seed " << seed;
  }
  EXPECT_GT(improved, 0u);
}

namespace {
/// Greedy-by-size's plan computed the plain way: in placement order, each
/// buffer at the lowest offset where it overlaps none of the buffers placed
/// before it that are live at the same time.
std::vector<int64_t> placeByReference(llvm::ArrayRef<Buffer> buffers) {
  std::vector<unsigned> order(buffers.size());
  for (unsigned i = 0; i < buffers.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return buffers[a].start < buffers[b].start;
  });
  std::vector<int64_t> offsets(buffers.size(), 0);
  std::vector<unsigned> placed;
  for (unsigned index : order) {
    const Buffer &buffer = buffers[index];
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (unsigned other : placed)
      if (buffers[other].start < buffer.end &&
          buffer.start < buffers[other].end)
        taken.push_back({offsets[other], offsets[other] + buffers[other].size});
    std::sort(taken.begin(), taken.end());
    int64_t top = 0;
    for (auto [offset, end] : taken) {
      if (offset - top >= buffer.size)
        break;
      top = std::max(top, end);
    }
    offsets[index] = top;
    placed.push_back(index);
  }
  return offsets;
}
} // namespace

// A placement scans every placed buffer or sorts the few live at the same
// time, whichever costs less: both must give the plain first fit. Weights
// live throughout next to thousands of short-lived copies take both ways.
TEST(OffsetAssignmentTest, ScanAndSortGiveThePlainFirstFit) {
  std::mt19937 random(11);
  std::vector<Buffer> buffers;
  for (unsigned i = 0; i < 40; ++i)
    buffers.push_back({1 << 20, 0, 100000});
  for (unsigned i = 0; i < 3000; ++i) {
    uint64_t start = random() % 100000;
    int64_t size = 1024 * (1 + random() % 2048);
    buffers.push_back(
        {size, start, std::min<uint64_t>(start + 1 + random() % 300, 100000)});
  }
  for (const Buffer &buffer : makeRandomBuffers(400, 12))
    buffers.push_back(buffer);
  EXPECT_EQ(offsetsOf(assign(buffers)), placeByReference(buffers));
}
