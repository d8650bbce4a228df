//===- DeviceAllocatorTest.cpp - Allocator models, by hand ----------------===//

#include "hyperoffload/Simulation/DeviceAllocator.h"

#include "gtest/gtest.h"

using namespace mlir::ho;
using Status = AllocationResult::Status;

namespace {
constexpr int64_t kMiB = 1 << 20;

CachingAllocator makeCaching(int64_t capacity, bool expandable = false) {
  CachingAllocator::Options options;
  options.expandableSegments = expandable;
  return CachingAllocator(capacity, options);
}

TEST(CachingAllocatorTest, SmallRequestsShareOneTwoMiBSegment) {
  CachingAllocator allocator = makeCaching(64 * kMiB);
  // Rounded to 512 bytes, from one 2 MiB segment of the small pool.
  EXPECT_EQ(allocator.allocate(0, 100).offset, 0);
  EXPECT_EQ(allocator.allocate(1, 1000).offset, 512);
  EXPECT_EQ(allocator.getLiveBytes(), 512 + 1024);
  EXPECT_EQ(allocator.getReservedBytes(), 2 * kMiB);
  EXPECT_EQ(allocator.getHighWaterMark(), 2 * kMiB);
  // A request over 1 MiB and under 10 MiB gets a 20 MiB segment.
  allocator.allocate(2, 3 * kMiB);
  EXPECT_EQ(allocator.getReservedBytes(), 22 * kMiB);
}

TEST(CachingAllocatorTest, TheRestOfALargeBlockSplitsOnlyOverOneMiB) {
  CachingAllocator allocator = makeCaching(64 * kMiB);
  allocator.allocate(0, 16 * kMiB);
  allocator.release(0);
  // 15.5 MiB of the cached 16 MiB block: the 0.5 MiB rest stays with it.
  allocator.allocate(1, 15 * kMiB + kMiB / 2);
  EXPECT_EQ(allocator.getLiveBytes(), 16 * kMiB);
  allocator.release(1);
  // 12 MiB: the 4 MiB rest is split off and serves the next request.
  allocator.allocate(2, 12 * kMiB);
  EXPECT_EQ(allocator.getLiveBytes(), 12 * kMiB);
  AllocationResult rest = allocator.allocate(3, 4 * kMiB);
  EXPECT_EQ(rest.offset, 12 * kMiB);
  EXPECT_EQ(allocator.getReservedBytes(), 16 * kMiB);
}

TEST(CachingAllocatorTest, ReleasesCachedSegmentsAndRetries) {
  CachingAllocator allocator = makeCaching(64 * kMiB);
  for (BufferId id = 0; id < 4; ++id)
    EXPECT_EQ(allocator.allocate(id, 16 * kMiB).status, Status::Placed);
  allocator.release(0);
  allocator.release(2);
  // 32 MiB are free in two cached 16 MiB segments; a new 32 MiB segment
  // fits only once both are given back.
  EXPECT_EQ(allocator.getReservedBytes(), 64 * kMiB);
  EXPECT_TRUE(allocator.canAllocate(32 * kMiB));
  AllocationResult big = allocator.allocate(4, 32 * kMiB);
  EXPECT_EQ(big.status, Status::PlacedAfterRelease);
  EXPECT_EQ(big.releasedBytes, 32 * kMiB);
  EXPECT_EQ(allocator.getReservedBytes(), 64 * kMiB);
  EXPECT_EQ(allocator.getLiveBytes(), 64 * kMiB);
}

/// One 48 MiB segment holding a live 16 MiB block between two free 16 MiB
/// blocks.
void fragment(CachingAllocator &allocator) {
  allocator.allocate(0, 48 * kMiB);
  allocator.release(0);
  allocator.allocate(1, 16 * kMiB);
  allocator.allocate(2, 16 * kMiB);
  allocator.release(1);
}

TEST(CachingAllocatorTest,
     FragmentationEndsInOutOfMemoryWithoutMovingAnything) {
  CachingAllocator allocator = makeCaching(64 * kMiB);
  fragment(allocator);
  EXPECT_EQ(allocator.getLiveBytes(), 16 * kMiB);
  // 48 MiB are free, but no free block holds 32 MiB, a new segment would
  // exceed the capacity, and the only segment has a live block.
  EXPECT_FALSE(allocator.canAllocate(32 * kMiB));
  AllocationResult big = allocator.allocate(3, 32 * kMiB);
  EXPECT_EQ(big.status, Status::OutOfMemory);
  EXPECT_EQ(big.releasedBytes, 0);
  EXPECT_EQ(allocator.getHighWaterMark(), 80 * kMiB);
}

TEST(CachingAllocatorTest, ExpandableSegmentsGrowIntoTheFreeTail) {
  CachingAllocator allocator = makeCaching(64 * kMiB, /*expandable=*/true);
  fragment(allocator);
  // The segment's free last 16 MiB grow by 8 pages to hold 32 MiB: 32
  // pages of 2 MiB are mapped, the whole capacity.
  EXPECT_TRUE(allocator.canAllocate(32 * kMiB));
  AllocationResult big = allocator.allocate(3, 32 * kMiB);
  EXPECT_EQ(big.status, Status::Placed);
  EXPECT_EQ(big.offset, 32 * kMiB);
  EXPECT_EQ(allocator.getReservedBytes(), 64 * kMiB);
}

TEST(CachingAllocatorTest, ExpandableSegmentsRemapPagesAfterARelease) {
  CachingAllocator allocator = makeCaching(56 * kMiB, /*expandable=*/true);
  fragment(allocator);
  // 24 pages are mapped, 8 more would exceed the 28 the capacity holds.
  // Releasing unmaps the 16 free ones; the request then maps 16, all of
  // them again, next to the 8 of the live block.
  AllocationResult big = allocator.allocate(3, 32 * kMiB);
  EXPECT_EQ(big.status, Status::PlacedAfterRelease);
  EXPECT_EQ(big.releasedBytes, 16 * 2 * kMiB);
  EXPECT_EQ(big.remappedPages, 16);
  EXPECT_EQ(allocator.getReservedBytes(), 48 * kMiB);
  EXPECT_EQ(allocator.getHighWaterMark(), 48 * kMiB);
  // Live blocks touch 24 pages: 4 are left, whatever is released.
  EXPECT_FALSE(allocator.canAllocate(16 * kMiB));
  EXPECT_TRUE(allocator.canAllocate(8 * kMiB));
}

TEST(CachingAllocatorTest, ExpandableRequestsLargerThanTheDeviceMapNothing) {
  CachingAllocator allocator = makeCaching(64 * kMiB, /*expandable=*/true);
  int64_t huge = int64_t(1) << 60;
  EXPECT_FALSE(allocator.canAllocate(huge));
  AllocationResult placed = allocator.allocate(0, huge);
  EXPECT_EQ(placed.status, Status::OutOfMemory);
  EXPECT_EQ(allocator.getReservedBytes(), 0);
  EXPECT_EQ(allocator.getHighWaterMark(), huge);
  allocator.release(0);
  EXPECT_EQ(allocator.getLiveBytes(), 0);
  EXPECT_TRUE(allocator.canAllocate(32 * kMiB));
}

TEST(IdealAllocatorTest, NeverFragments) {
  IdealAllocator allocator(4096);
  for (BufferId id = 0; id < 4; ++id)
    allocator.allocate(id, 1024);
  allocator.release(0);
  allocator.release(2);
  AllocationResult big = allocator.allocate(4, 2048);
  EXPECT_EQ(big.status, Status::Placed);
  EXPECT_EQ(allocator.getHighWaterMark(), 4096);
}

TEST(StaticAllocatorTest, PlacesAtPlannedOffsetsAndCatchesOverlaps) {
  StaticAllocator allocator(4096, {{0, 0}, {1, 1024}, {2, 512}, {3, 0}});
  EXPECT_EQ(allocator.allocate(0, 1024).status, Status::Placed);
  EXPECT_EQ(allocator.allocate(1, 1024).status, Status::Placed);
  AllocationResult clash = allocator.allocate(2, 1024);
  EXPECT_EQ(clash.status, Status::Overlap);
  EXPECT_EQ(clash.conflict, 0u);
  // Once buffer 0 is dead its range can be reused.
  allocator.release(0);
  EXPECT_EQ(allocator.allocate(3, 1024).status, Status::Placed);
  EXPECT_EQ(allocator.allocate(7, 16).status, Status::MissingOffset);
}

TEST(StaticAllocatorTest, OverlapWithTheNextBufferToo) {
  StaticAllocator allocator(4096, {{0, 1024}, {1, 512}});
  allocator.allocate(0, 1024);
  AllocationResult clash = allocator.allocate(1, 1024);
  EXPECT_EQ(clash.status, Status::Overlap);
  EXPECT_EQ(clash.conflict, 0u);
}

TEST(StaticAllocatorTest, ZeroSizedBuffersCollideWithNothing) {
  // A tensor<256x0x4xf32> at the start of a live buffer, or inside it.
  StaticAllocator allocator(4096, {{0, 0}, {1, 0}, {2, 256}});
  EXPECT_EQ(allocator.allocate(0, 512).status, Status::Placed);
  EXPECT_EQ(allocator.allocate(1, 0).status, Status::Placed);
  EXPECT_EQ(allocator.allocate(2, 0).status, Status::Placed);
  allocator.release(1);
  EXPECT_EQ(allocator.getLiveBytes(), 512);
}

TEST(StaticAllocatorTest, PastTheCapacityIsOutOfMemory) {
  StaticAllocator allocator(1024, {{0, 512}});
  EXPECT_EQ(allocator.allocate(0, 1024).status, Status::OutOfMemory);
  EXPECT_EQ(allocator.getHighWaterMark(), 1536);
}

TEST(BlockAllocatorTest, BuffersTakeWholeBlocksAndMayHoldSomeOfThem) {
  BlockAllocator blocks(/*capacity=*/4096, /*blockBytes=*/1024);
  EXPECT_EQ(blocks.getFootprint(1), 1024);
  EXPECT_TRUE(blocks.allocate(0, 1500).isPlaced());
  EXPECT_EQ(blocks.getBlocks(0), 2);
  EXPECT_EQ(blocks.getLiveBytes(), 2048);
  EXPECT_EQ(blocks.getFreeBlocks(), 2);
  // Half of a buffer leaves, and comes back.
  EXPECT_TRUE(blocks.resize(0, 1).isPlaced());
  EXPECT_EQ(blocks.getFreeBlocks(), 3);
  EXPECT_TRUE(blocks.allocate(1, 3072).isPlaced());
  EXPECT_EQ(blocks.getFreeBlocks(), 0);
  EXPECT_EQ(blocks.resize(0, 2).status, AllocationResult::Status::OutOfMemory);
  blocks.release(1);
  EXPECT_EQ(blocks.getLiveBytes(), 2048);
  EXPECT_EQ(blocks.getHighWaterMark(), 5120);
}

} // namespace
