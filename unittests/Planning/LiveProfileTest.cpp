//===- LiveProfileTest.cpp - Live bytes under range updates ---------------===//

#include "LiveProfile.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

using namespace mlir::ho;

namespace {
/// The peak the way a scan finds it: the first point with the most bytes.
unsigned scanPeak(const std::vector<int64_t> &live) {
  return std::max_element(live.begin(), live.end()) - live.begin();
}

int64_t scanOverBudget(const std::vector<int64_t> &live, int64_t budget,
                       unsigned first, unsigned last) {
  last = std::min<unsigned>(last, live.size());
  return first >= last
             ? 0
             : std::count_if(live.begin() + first, live.begin() + last,
                             [&](int64_t b) { return b > budget; });
}

std::optional<unsigned> scanLastAbove(const std::vector<int64_t> &live,
                                      int64_t bytes, unsigned first,
                                      unsigned last) {
  for (unsigned point = std::min<unsigned>(last, live.size()); point > first;
       --point)
    if (live[point - 1] > bytes)
      return point - 1;
  return std::nullopt;
}

std::optional<unsigned> scanFirstAbove(const std::vector<int64_t> &live,
                                       int64_t bytes, unsigned first,
                                       unsigned last) {
  for (unsigned point = first; point < std::min<unsigned>(last, live.size());
       ++point)
    if (live[point] > bytes)
      return point;
  return std::nullopt;
}

TEST(LiveProfileTest, PeakIsTheFirstOfTheHighest) {
  LiveProfile profile({5, 9, 3, 9, 1}, /*budget=*/4);
  EXPECT_EQ(profile.getPeakPoint(), 1u);
  EXPECT_EQ(profile.countOverBudget(0, 5), 3);
  profile.add(0, 2, -6);
  EXPECT_EQ(profile.get(0), -1);
  EXPECT_EQ(profile.get(1), 3);
  EXPECT_EQ(profile.getPeakPoint(), 3u);
  EXPECT_EQ(profile.countOverBudget(0, 5), 1);
  EXPECT_EQ(profile.countOverBudget(0, 3), 0);
}

TEST(LiveProfileTest, FindsTheLastPointAboveAThreshold) {
  LiveProfile profile({5, 9, 3, 9, 1}, /*budget=*/4);
  EXPECT_EQ(profile.findLastAbove(0, 5, 8), 3u);
  EXPECT_EQ(profile.findLastAbove(0, 3, 8), 1u);
  EXPECT_EQ(profile.findFirstAbove(2, 5, 8), 3u);
  EXPECT_EQ(profile.findFirstAbove(0, 5, 4), 0u);
  EXPECT_EQ(profile.findLastAbove(2, 3, 3), std::nullopt);
  EXPECT_EQ(profile.findLastAbove(4, 2, 0), std::nullopt);
  // Additions still waiting at an ancestor count.
  profile.add(0, 5, 1);
  EXPECT_EQ(profile.findLastAbove(0, 5, 9), 3u);
  EXPECT_EQ(profile.findLastAbove(0, 5, 1), 4u);
}

TEST(LiveProfileTest, AdditionsPastTheEndAreClipped) {
  LiveProfile profile({1, 2, 3}, /*budget=*/2);
  profile.add(1, 10, 5);
  EXPECT_EQ(profile.get(2), 8);
  EXPECT_EQ(profile.countOverBudget(0, 10), 2);
}

TEST(LiveProfileTest, MatchesAScanUnderRandomUpdates) {
  for (unsigned seed = 0; seed < 20; ++seed) {
    std::mt19937 random(seed);
    unsigned size = 1 + random() % 300;
    int64_t budget = 500;
    std::vector<int64_t> live(size);
    for (int64_t &bytes : live)
      bytes = random() % 1000;
    LiveProfile profile(live, budget);
    for (unsigned step = 0; step < 200; ++step) {
      unsigned first = random() % size, last = first + random() % (size + 1);
      int64_t bytes = static_cast<int64_t>(random() % 401) - 250;
      profile.add(first, last, bytes);
      for (unsigned point = first; point < std::min(last, size); ++point)
        live[point] += bytes;
      unsigned from = random() % size, to = from + random() % size;
      ASSERT_EQ(profile.getPeakPoint(), scanPeak(live)) << "seed " << seed;
      ASSERT_EQ(profile.countOverBudget(from, to),
                scanOverBudget(live, budget, from, to))
          << "seed " << seed;
      ASSERT_EQ(profile.get(from), live[from]) << "seed " << seed;
      int64_t threshold = random() % 1000;
      ASSERT_EQ(profile.findLastAbove(from, to, threshold),
                scanLastAbove(live, threshold, from, to))
          << "seed " << seed;
      ASSERT_EQ(profile.findFirstAbove(from, to, threshold),
                scanFirstAbove(live, threshold, from, to))
          << "seed " << seed;
    }
  }
}
} // namespace
