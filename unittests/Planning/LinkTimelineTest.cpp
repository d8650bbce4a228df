//===- LinkTimelineTest.cpp - Busy intervals of one link direction --------===//

#include "PlanningContext.h"

#include "gtest/gtest.h"

#include <array>
#include <optional>
#include <random>

using namespace mlir;
using namespace mlir::ho;

namespace {

TEST(LinkTimelineTest, ReleasesOnlyWhatIsBusy) {
  LinkTimeline link;
  link.reserve(0, 1);
  link.reserve(2, 3);
  EXPECT_DOUBLE_EQ(link.getBusyTime(), 2);
  EXPECT_DOUBLE_EQ(link.findEarliest(0, 1), 1);

  // Across both intervals and the gap between them.
  link.release(0.5, 2.5);
  EXPECT_DOUBLE_EQ(link.getBusyTime(), 1);
  EXPECT_DOUBLE_EQ(link.findEarliest(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(link.findEarliest(0, 2.5), 3);

  // Nothing was reserved there, before or after the busy intervals.
  link.release(-2, -1);
  link.release(5, 6);
  EXPECT_DOUBLE_EQ(link.getBusyTime(), 1);

  // Inside one interval: it splits.
  link.reserve(10, 14);
  link.release(11, 12);
  EXPECT_DOUBLE_EQ(link.getBusyTime(), 4);
  EXPECT_DOUBLE_EQ(link.findEarliest(10, 1), 11);
  EXPECT_DOUBLE_EQ(link.findEarliest(10, 1.5), 14);
}

/// The same timeline as a row of unit slots, searched one slot at a time.
class SlotTimeline {
public:
  void reserve(unsigned start, unsigned end) {
    for (unsigned slot = start; slot < end; ++slot)
      busy[slot] = true;
  }
  void release(unsigned start, unsigned end) {
    for (unsigned slot = start; slot < end; ++slot)
      busy[slot] = false;
  }
  bool isFree(unsigned start, unsigned duration) const {
    for (unsigned slot = start; slot < start + duration; ++slot)
      if (slot < busy.size() && busy[slot])
        return false;
    return true;
  }
  unsigned findEarliest(unsigned earliest, unsigned duration) const {
    unsigned start = earliest;
    while (!isFree(start, duration))
      ++start;
    return start;
  }
  std::optional<double> findLatest(unsigned deadline, unsigned duration,
                                   unsigned notBefore) const {
    for (int start = static_cast<int>(deadline) - static_cast<int>(duration);
         start >= static_cast<int>(notBefore); --start)
      if (isFree(start, duration))
        return start;
    return std::nullopt;
  }
  double getBusyTime() const { return llvm::count(busy, true); }

private:
  std::array<bool, 64> busy = {};
};

TEST(LinkTimelineTest, MatchesUnitSlotsUnderRandomReservations) {
  for (unsigned seed = 0; seed < 50; ++seed) {
    std::mt19937 random(seed);
    LinkTimeline link;
    SlotTimeline slots;
    for (unsigned step = 0; step < 100; ++step) {
      unsigned start = random() % 56, length = 1 + random() % 8;
      if (random() % 3 == 0) {
        link.release(start, start + length);
        slots.release(start, start + length);
      } else if (slots.isFree(start, length) && start + length <= 64) {
        // The planner reserves free time only.
        link.reserve(start, start + length);
        slots.reserve(start, start + length);
      }
      ASSERT_DOUBLE_EQ(link.getBusyTime(), slots.getBusyTime())
          << "seed " << seed;
      unsigned from = random() % 64, duration = 1 + random() % 6;
      ASSERT_DOUBLE_EQ(link.findEarliest(from, duration),
                       slots.findEarliest(from, duration))
          << "seed " << seed;
      unsigned notBefore = random() % 32;
      ASSERT_EQ(link.findLatest(from, duration, notBefore),
                slots.findLatest(from, duration, notBefore))
          << "seed " << seed;
    }
  }
}

} // namespace
