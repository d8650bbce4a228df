//===- LinkTimelineTest.cpp - Busy intervals of one link direction --------===//

#include "PlanningContext.h"

#include "gtest/gtest.h"

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

} // namespace
