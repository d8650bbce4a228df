//===- TimelineDigestTest.cpp - Timelines reduced for plots ---------------===//

#include "hyperoffload/Compare/TimelineDigest.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
using Kind = TimelineEvent::Kind;

TimelineEvent event(Kind kind, std::string track, double start, double end,
                    int64_t bytes = 0) {
  return {kind, std::move(track), "e", start, end, bytes};
}

/// Four compute ops of 1 s, a 2 s wait before the third and a 1 s
/// allocator stall before the fourth: 0-1 op, 1-2 op, 2-4 wait, 4-5 op,
/// 5-6 allocator stall, 6-7 op; transfers on two links.
SimulationResult makeRun() {
  SimulationResult result;
  result.stepTime = 7;
  result.events = {
      event(Kind::Compute, "compute", 0, 1),
      event(Kind::Compute, "compute", 1, 2),
      event(Kind::Stall, "compute", 2, 4),
      event(Kind::Compute, "compute", 4, 5),
      event(Kind::AllocatorStall, "compute", 5, 6),
      event(Kind::Compute, "compute", 6, 7),
      event(Kind::Transfer, "pool -> device", 1, 3, 100),
      event(Kind::Transfer, "pool -> device", 3.001, 4, 50),
      event(Kind::Transfer, "device -> pool", 0, 0.5, 10),
  };
  return result;
}
} // namespace

TEST(TimelineDigest, MemoryBucketsKeepEveryPeak) {
  SimulationResult result;
  result.stepTime = 4;
  // Out of order on purpose: transfers land after later ops are issued.
  result.memory = {
      {0, 10, 10}, {2.5, 30, 40}, {0.5, 50, 50}, {0.6, 20, 50}, {4, 5, 50}};
  std::vector<MemoryBucket> curve = bucketMemory(result, 4);
  ASSERT_EQ(curve.size(), 4u);
  // [0,1): the 50 at 0.5 is kept although 20 follows it.
  EXPECT_EQ(curve[0].start, 0);
  EXPECT_EQ(curve[0].liveBytes, 50);
  EXPECT_EQ(curve[0].footprintBytes, 50);
  // [1,2): no sample; the value carried in is 20 live, 50 footprint.
  EXPECT_EQ(curve[1].start, 1);
  EXPECT_EQ(curve[1].liveBytes, 20);
  EXPECT_EQ(curve[1].footprintBytes, 50);
  EXPECT_EQ(curve[2].liveBytes, 30);
  // The sample at the very end counts in the last bucket.
  EXPECT_EQ(curve[3].liveBytes, 30);
  EXPECT_EQ(curve[3].footprintBytes, 50);

  EXPECT_TRUE(bucketMemory(SimulationResult(), 4).empty());
  EXPECT_TRUE(bucketMemory(result, 0).empty());
}

TEST(TimelineDigest, TracksInFixedOrderMergedAtTheResolution) {
  std::vector<TrackDigest> tracks = digestTracks(makeRun(), 0.01);
  ASSERT_EQ(tracks.size(), 5u);
  EXPECT_EQ(tracks[0].name, "compute");
  EXPECT_EQ(tracks[1].name, "stalls");
  EXPECT_EQ(tracks[2].name, "allocator");
  EXPECT_EQ(tracks[3].name, "device -> pool");
  EXPECT_EQ(tracks[4].name, "pool -> device");

  // Back-to-back ops merge; the wait splits them.
  using Stretches = std::vector<std::pair<double, double>>;
  EXPECT_EQ(tracks[0].stretches, (Stretches{{0, 2}, {4, 5}, {6, 7}}));
  EXPECT_EQ(tracks[0].events, 4u);
  EXPECT_DOUBLE_EQ(tracks[0].busySeconds, 4);
  // Transfers 1 ms apart merge at 10 ms resolution, not at 0.1 ms.
  EXPECT_EQ(tracks[4].stretches, (Stretches{{1, 4}}));
  EXPECT_EQ(tracks[4].events, 2u);
  EXPECT_EQ(tracks[4].bytes, 150);
  EXPECT_EQ(digestTracks(makeRun(), 1e-4)[4].stretches.size(), 2u);
}

TEST(TimelineDigest, StallsBinnedByTheOpTheyDelay) {
  // Two bins of two ops each: the wait delays op 2 (second bin), the
  // allocator stall at op 3 (second bin).
  std::vector<StallBin> bins = binStallsByProgress(makeRun(), 2);
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].getTotal(), 0);
  EXPECT_DOUBLE_EQ(bins[1].transferSeconds, 2);
  EXPECT_DOUBLE_EQ(bins[1].allocatorSeconds, 1);

  // Four bins: one op each.
  bins = binStallsByProgress(makeRun(), 4);
  EXPECT_DOUBLE_EQ(bins[2].transferSeconds, 2);
  EXPECT_DOUBLE_EQ(bins[3].allocatorSeconds, 1);
  EXPECT_EQ(bins[0].getTotal() + bins[1].getTotal(), 0);

  // A wait after the last op (a drain) counts in the last bin.
  SimulationResult drained = makeRun();
  drained.events.push_back(event(Kind::Stall, "compute", 7, 9));
  EXPECT_DOUBLE_EQ(binStallsByProgress(drained, 4)[3].transferSeconds, 2);
}
