//===- LinkChannelTest.cpp - Transfers sharing a link, by hand ------------===//

#include "hyperoffload/Simulation/LinkChannel.h"

#include "gtest/gtest.h"

using namespace mlir::ho;

namespace {
constexpr double kTolerance = 1e-12;

TEST(LinkChannelTest, OneTransferPaysLatencyThenBytesOverBandwidth) {
  LinkChannel link(/*bandwidth=*/100, /*latency=*/0.5, /*queues=*/1);
  auto id = link.issue(0, 100);
  EXPECT_NEAR(link.finish(id), 1.5, kTolerance);
  EXPECT_NEAR(link.getStartTime(id), 0, kTolerance);
}

TEST(LinkChannelTest, ConcurrentTransfersShareTheBandwidth) {
  LinkChannel link(100, 0, /*queues=*/2);
  auto a = link.issue(0, 100);
  auto b = link.issue(0, 100);
  // 50 bytes/s each: both finish after 2 s, not 1 s and 2 s.
  EXPECT_NEAR(link.finish(a), 2.0, kTolerance);
  EXPECT_NEAR(link.finish(b), 2.0, kTolerance);
}

TEST(LinkChannelTest, OneQueueSerialisesTransfers) {
  LinkChannel link(100, 0.25, /*queues=*/1);
  auto a = link.issue(0, 100);
  auto b = link.issue(0, 100);
  EXPECT_NEAR(link.finish(a), 1.25, kTolerance);
  // b waits for the queue, then pays its own latency.
  EXPECT_NEAR(link.getStartTime(b), 1.25, kTolerance);
  EXPECT_NEAR(link.finish(b), 2.5, kTolerance);
}

TEST(LinkChannelTest, LateArrivalSharesTheRest) {
  LinkChannel link(100, 0, 2);
  auto a = link.issue(0, 100);
  auto b = link.issue(0.5, 100);
  // a moves 50 bytes alone, then 50 more at 50 bytes/s: done at 1.5 s.
  // b has moved 50 bytes by then and finishes alone at full rate: 2.0 s.
  EXPECT_NEAR(link.finish(a), 1.5, kTolerance);
  EXPECT_NEAR(link.finish(b), 2.0, kTolerance);
}

TEST(LinkChannelTest, LatencyPhaseTakesNoBandwidth) {
  LinkChannel link(100, 1.0, 2);
  auto a = link.issue(0, 100);   // moves bytes during [1, 2)
  auto b = link.issue(1.0, 100); // waits out its latency during [1, 2)
  EXPECT_NEAR(link.finish(a), 2.0, kTolerance);
  EXPECT_NEAR(link.finish(b), 3.0, kTolerance);
}

TEST(LinkChannelTest, AdvanceDoesNotFinishEarly) {
  LinkChannel link(100, 0, 1);
  auto a = link.issue(0, 100);
  link.advanceTo(0.5);
  EXPECT_FALSE(link.isFinished(a));
  EXPECT_EQ(link.getNumActive(), 1u);
  link.advanceTo(1.0);
  EXPECT_TRUE(link.isFinished(a));
  EXPECT_TRUE(link.isIdle());
}

TEST(LinkChannelTest, DrainReturnsTheLastCompletion) {
  LinkChannel link(10, 0, 1);
  link.issue(0, 10);
  link.issue(0, 20);
  EXPECT_NEAR(link.drain(), 3.0, kTolerance);
}

TEST(LinkChannelTest, HeldBackTransfersLetLaterOnesGoFirst) {
  LinkChannel link(100, 0, 1);
  // Depends on something that completes at 0.5 s.
  auto held = link.issue(0, 100, /*notBefore=*/0.5);
  auto later = link.issue(0.1, 10);
  EXPECT_NEAR(link.finish(later), 0.2, kTolerance);
  EXPECT_NEAR(link.finish(held), 1.5, kTolerance);
  EXPECT_NEAR(link.getStartTime(held), 0.5, kTolerance);
}

TEST(LinkChannelTest, TransfersFinishLongIntoTheRun) {
  // This late the clock resolves 15 ns, longer than 16 bytes take: the
  // small transfer completes without the clock moving, and the next one
  // still finishes.
  LinkChannel link(33.6e9, 2e-6, 1);
  double late = 1e8;
  auto small = link.issue(late, 16);
  EXPECT_NEAR(link.finish(small), late, 1e-9 * late);
  auto large = link.issue(late, int64_t(33.6e9) * 7 + 3);
  EXPECT_NEAR(link.finish(large), late + 7, 1e-9 * late);
  EXPECT_GE(link.drain(), late + 7);
}

TEST(LinkChannelTest, EmptyTransferTakesOnlyLatency) {
  LinkChannel link(10, 0.1, 1);
  EXPECT_NEAR(link.finish(link.issue(1.0, 0)), 1.1, kTolerance);
}
} // namespace
