//===- DeviceAllocatorTest.cpp - Allocator models, by hand ----------------===//

#include "hyperoffload/Simulation/DeviceAllocator.h"

#include "gtest/gtest.h"

using namespace mlir::ho;
using Status = AllocationResult::Status;

namespace {
TEST(BestFitAllocatorTest, FragmentationForcesOneCompactionOfKnownSize) {
  BestFitAllocator allocator(4096);
  for (BufferId id = 0; id < 4; ++id)
    EXPECT_EQ(allocator.allocate(id, 1024).offset, id * 1024);
  // Free the first and third block: 2048 bytes free, in two holes.
  allocator.release(0);
  allocator.release(2);
  EXPECT_EQ(allocator.getFreeBytes(), 2048);
  EXPECT_FALSE(allocator.fitsContiguously(2048));

  AllocationResult big = allocator.allocate(4, 2048);
  EXPECT_EQ(big.status, Status::PlacedAfterCompaction);
  // Buffers 1 and 3 slide down to 0 and 1024; both moved.
  EXPECT_EQ(big.movedBytes, 2048);
  EXPECT_EQ(big.offset, 2048);
  EXPECT_EQ(allocator.getHighWaterMark(), 4096);
}

TEST(BestFitAllocatorTest, PicksTheSmallestFreeBlockThatFits) {
  BestFitAllocator allocator(1000);
  allocator.allocate(0, 300); // [0, 300)
  allocator.allocate(1, 100); // [300, 400)
  allocator.allocate(2, 100); // [400, 500)
  allocator.allocate(3, 100); // [500, 600), [600, 1000) free
  allocator.release(0);       // a 300-byte hole at 0
  allocator.release(2);       // a 100-byte hole at 400
  EXPECT_EQ(allocator.allocate(4, 80).offset, 400);
  EXPECT_EQ(allocator.allocate(5, 250).offset, 0);
}

TEST(BestFitAllocatorTest, NeighboursCoalesce) {
  BestFitAllocator allocator(3000);
  allocator.allocate(0, 1000);
  allocator.allocate(1, 1000);
  allocator.allocate(2, 1000);
  allocator.release(0);
  allocator.release(1);
  AllocationResult placed = allocator.allocate(3, 2000);
  EXPECT_EQ(placed.status, Status::Placed);
  EXPECT_EQ(placed.offset, 0);
}

TEST(BestFitAllocatorTest, TooLittleFreeMemoryIsOutOfMemory) {
  BestFitAllocator allocator(1000);
  allocator.allocate(0, 800);
  AllocationResult placed = allocator.allocate(1, 400);
  EXPECT_EQ(placed.status, Status::OutOfMemory);
  EXPECT_EQ(placed.movedBytes, 0);
  EXPECT_EQ(allocator.getHighWaterMark(), 1200);
  EXPECT_EQ(allocator.getLiveBytes(), 1200);
}

TEST(IdealAllocatorTest, NeverFragments) {
  IdealAllocator allocator(4096);
  for (BufferId id = 0; id < 4; ++id)
    allocator.allocate(id, 1024);
  allocator.release(0);
  allocator.release(2);
  AllocationResult big = allocator.allocate(4, 2048);
  EXPECT_EQ(big.status, Status::Placed);
  EXPECT_EQ(big.movedBytes, 0);
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
