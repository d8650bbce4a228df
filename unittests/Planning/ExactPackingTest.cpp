//===- ExactPackingTest.cpp - The packing search against enumeration ------===//

#include "hyperoffload/Planning/ExactPacking.h"
#include "hyperoffload/Planning/OffsetAssignment.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using namespace mlir::ho;

namespace {
/// Buffers as the search takes them.
struct Instance {
  std::vector<int64_t> sizes;
  std::vector<LiveInterval> intervals;
};

/// Whether `offsets` keep every buffer within `limit` and apart from the
/// buffers live at the same time.
bool isPackedWithin(const Instance &instance, llvm::ArrayRef<int64_t> offsets,
                    int64_t limit) {
  for (unsigned i = 0; i < instance.sizes.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] + instance.sizes[i] > limit)
      return false;
    for (unsigned j = 0; j < i; ++j)
      if (instance.intervals[i].intersects(instance.intervals[j]) &&
          offsets[i] < offsets[j] + instance.sizes[j] &&
          offsets[j] < offsets[i] + instance.sizes[i])
        return false;
  }
  return true;
}

/// Every offset of every buffer on a grid of one byte: whether any
/// placement fits `limit`. Independent of the search's reasoning.
bool existsByEnumeration(const Instance &instance, int64_t limit) {
  unsigned count = instance.sizes.size();
  std::vector<int64_t> offsets(count, 0);
  while (true) {
    if (isPackedWithin(instance, offsets, limit))
      return true;
    unsigned digit = 0;
    while (digit < count && ++offsets[digit] > limit - instance.sizes[digit])
      offsets[digit++] = 0;
    if (digit == count)
      return false;
  }
}

int64_t getPeakLiveBytes(const Instance &instance) {
  return OffsetAssignment(instance.sizes, instance.intervals)
      .getPeakLiveBytes();
}

/// `count` buffers of 1 to `maxSize` bytes live in [0, `slots`).
Instance makeRandomInstance(unsigned count, std::mt19937 &random,
                            int64_t maxSize = 4, uint64_t slots = 8) {
  Instance instance;
  for (unsigned i = 0; i < count; ++i) {
    uint64_t start = random() % (slots - 1);
    uint64_t end = start + 1 + random() % (slots - start);
    instance.sizes.push_back(1 + random() % maxSize);
    instance.intervals.push_back({start, end});
  }
  return instance;
}

Instance makeInstance(llvm::ArrayRef<int64_t> sizes,
                      llvm::ArrayRef<LiveInterval> intervals) {
  return {std::vector<int64_t>(sizes.begin(), sizes.end()),
          std::vector<LiveInterval>(intervals.begin(), intervals.end())};
}
} // namespace

TEST(ExactPackingTest, AgreesWithEnumerationOfEveryOffset) {
  std::mt19937 random(2026);
  unsigned packed = 0;
  for (unsigned trial = 0; trial < 400; ++trial) {
    // Two to five buffers, and six of at most 3 bytes in 6 slots: crowded
    // enough that the peak is often the arena.
    Instance instance = trial % 2 ? makeRandomInstance(2 + trial % 4, random)
                                  : makeRandomInstance(6, random, 3, 6);
    int64_t peak = getPeakLiveBytes(instance);
    for (int64_t limit : {peak, peak + 1}) {
      PackingResult result =
          searchPacking(instance.sizes, instance.intervals, limit);
      bool exists = existsByEnumeration(instance, limit);
      ASSERT_NE(result.status, PackingStatus::GaveUp) << "trial " << trial;
      ASSERT_EQ(result.status == PackingStatus::Packed, exists)
          << "trial " << trial << " limit " << limit;
      if (exists) {
        ++packed;
        EXPECT_TRUE(isPackedWithin(instance, result.offsets, limit));
        EXPECT_LE(result.arenaSize, limit);
      }
    }
  }
  EXPECT_GT(packed, 400u);
}

/// Where a greedy layout fits, a layout exists: the search must find one
/// rather than prove there is none, on instances too large to enumerate.
TEST(ExactPackingTest, FindsALayoutWhereverTheGreedyOneFits) {
  std::mt19937 random(99);
  for (unsigned trial = 0; trial < 200; ++trial) {
    Instance instance = makeRandomInstance(30, random, 64, 40);
    int64_t greedy =
        OffsetAssignment(instance.sizes, instance.intervals).getArenaSize();
    PackingSearchLimits generous;
    generous.maxSteps = 1'000'000;
    PackingResult result =
        searchPacking(instance.sizes, instance.intervals, greedy, generous);
    ASSERT_EQ(result.status, PackingStatus::Packed) << "trial " << trial;
    EXPECT_TRUE(isPackedWithin(instance, result.offsets, greedy));
  }
}

/// Found by random search: every order OffsetAssignment tries needs more
/// than the peak of 8 bytes (at [5, 6) three buffers fill it), while a
/// placement within it exists.
TEST(ExactPackingTest, FindsThePackingTheGreedyOrdersMiss) {
  Instance instance =
      makeInstance({2, 3, 1, 4, 3}, {{5, 6}, {3, 6}, {0, 2}, {2, 5}, {5, 7}});
  ASSERT_EQ(getPeakLiveBytes(instance), 8);
  ASSERT_TRUE(existsByEnumeration(instance, 8));

  OffsetAssignment plan(instance.sizes, instance.intervals, /*limit=*/8);
  EXPECT_EQ(plan.getPackingSearch(), PackingStatus::Packed);
  EXPECT_EQ(plan.getArenaSize(), 8);
  std::vector<int64_t> offsets(plan.getOffsets().begin(),
                               plan.getOffsets().end());
  EXPECT_TRUE(isPackedWithin(instance, offsets, 8));
}

/// Found by random search: three instants fill the peak of 5 bytes, and no
/// placement of the buffers keeps within it, as enumeration confirms.
TEST(ExactPackingTest, ProvesThatNoPackingExists) {
  Instance instance =
      makeInstance({3, 1, 1, 2, 2, 3, 2},
                   {{0, 2}, {3, 6}, {1, 4}, {4, 5}, {2, 5}, {5, 7}, {2, 3}});
  ASSERT_EQ(getPeakLiveBytes(instance), 5);
  ASSERT_FALSE(existsByEnumeration(instance, 5));
  EXPECT_EQ(searchPacking(instance.sizes, instance.intervals, 5).status,
            PackingStatus::NoPacking);
  EXPECT_EQ(searchPacking(instance.sizes, instance.intervals, 6).status,
            PackingStatus::Packed);

  OffsetAssignment plan(instance.sizes, instance.intervals, /*limit=*/5);
  EXPECT_GT(plan.getArenaSize(), 5);
  EXPECT_EQ(plan.getPackingSearch(), PackingStatus::NoPacking);
}

TEST(ExactPackingTest, StopsAtItsLimits) {
  std::mt19937 random(7);
  Instance instance = makeRandomInstance(12, random);
  int64_t peak = getPeakLiveBytes(instance);
  PackingSearchLimits oneStep;
  oneStep.maxSteps = 1;
  PackingResult stopped =
      searchPacking(instance.sizes, instance.intervals, peak, oneStep);
  EXPECT_EQ(stopped.status, PackingStatus::GaveUp);
  EXPECT_EQ(stopped.steps, 1u);

  PackingSearchLimits fewBuffers;
  fewBuffers.maxBuffers = 11;
  EXPECT_EQ(searchPacking(instance.sizes, instance.intervals, peak, fewBuffers)
                .status,
            PackingStatus::TooLarge);
}

/// Stretches of time that no buffer spans are packed independently, each
/// from offset 0, and buffers that take no room stay at 0.
TEST(ExactPackingTest, PacksStretchesApart) {
  Instance instance;
  instance.sizes = {3, 1, 0, 2, 2};
  instance.intervals = {{0, 2}, {1, 3}, {0, 9}, {3, 5}, {4, 6}};
  PackingResult result = searchPacking(instance.sizes, instance.intervals, 4);
  ASSERT_EQ(result.status, PackingStatus::Packed);
  EXPECT_TRUE(isPackedWithin(instance, result.offsets, 4));
  EXPECT_EQ(result.offsets[2], 0);
  EXPECT_EQ(result.arenaSize, 4);
}
