//===- SimulatorTest.cpp - Timeline cases computed by hand ----------------===//
//
// A target with round numbers: 1 TFLOP/s, 1 TB/s of HBM, and a 1 GB/s link
// to the pool without latency or overhead unless a test sets them, so that
// 1e6 bytes take 1 ms to move and 1e9 FLOPs take 1 ms to compute.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Simulation/Simulator.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr double kMs = 1e-3;
constexpr double kTolerance = 1e-12;

class SimulatorTest : public ::testing::Test {
protected:
  SimulatorTest() { context.loadDialect<HODialect, func::FuncDialect>(); }

  LinkModel &pool() { return *target.getLink(MemoryTier::pool); }

  /// Timeline tests count exact bytes: the ideal allocator, unless a test
  /// passes options of its own.
  SimulationResult simulate(llvm::StringRef ir) {
    SimulationOptions options;
    options.allocator = AllocatorKind::Ideal;
    return simulate(ir, options);
  }

  SimulationResult simulate(llvm::StringRef ir, SimulationOptions options) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
    auto function = *module->getOps<func::FuncOp>().begin();
    FailureOr<SimulationResult> result =
        ho::simulate(function.getBody().front(), target, options);
    EXPECT_TRUE(succeeded(result));
    return succeeded(result) ? *result : SimulationResult();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Target target = makeRoundNumbersTarget();
};

// A 1 MB prefetch issued before 1 ms of compute, awaited after it.
constexpr llvm::StringLiteral kOnePrefetch = R"mlir(
  func.func @f(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>) {
    %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
    %y = ho.compute "work"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<4xf32>
    %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
    %z = ho.compute "use"(%t, %y) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
    return
  }
)mlir";

TEST_F(SimulatorTest, PrefetchExactlyHiddenBehindOneOp) {
  SimulationResult result = simulate(kOnePrefetch);
  EXPECT_NEAR(result.stepTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.computeTime, 1 * kMs, kTolerance);
  EXPECT_EQ(result.stallCount, 0u);
  EXPECT_NEAR(result.stallTime, 0, kTolerance);
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            1000000);
}

// A caller that already has the body's liveness analysis (to lay out the
// run's buffers from it too) gets the same run from it.
TEST_F(SimulatorTest, RunsTheSameOnALivenessAnalysisMadeBefore) {
  SimulationResult fresh = simulate(kOnePrefetch);
  Block &body = (*module->getOps<func::FuncOp>().begin()).getBody().front();
  BufferLiveness liveness(body, target.device.allocationGranularity);
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  FailureOr<SimulationResult> shared =
      ho::simulate(body, liveness, target, options);
  ASSERT_TRUE(succeeded(shared));
  EXPECT_EQ(shared->stepTime, fresh.stepTime);
  EXPECT_EQ(shared->peakLiveBytes, fresh.peakLiveBytes);
  ASSERT_EQ(shared->lifetimes.size(), fresh.lifetimes.size());
  for (auto [a, b] : llvm::zip_equal(shared->lifetimes, fresh.lifetimes)) {
    EXPECT_EQ(a.firstEvent, b.firstEvent);
    EXPECT_EQ(a.lastEvent, b.lastEvent);
  }
}

TEST_F(SimulatorTest, HalvingTheBandwidthExposesHalfTheTransfer) {
  pool().bandwidthToDevice = 0.5e9;
  SimulationResult result = simulate(kOnePrefetch);
  // The copy now takes 2 ms: the await waits 1 ms.
  EXPECT_EQ(result.stallCount, 1u);
  EXPECT_NEAR(result.stallTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.stepTime, 2 * kMs, kTolerance);
}

TEST_F(SimulatorTest, LatencyIsExposedToo) {
  pool().latency = 0.25 * kMs;
  SimulationResult result = simulate(kOnePrefetch);
  EXPECT_NEAR(result.stallTime, 0.25 * kMs, kTolerance);
  EXPECT_NEAR(result.stepTime, 1.25 * kMs, kTolerance);
}

// Two 1 MB prefetches issued together before 1 ms of compute.
constexpr llvm::StringLiteral kTwoPrefetches = R"mlir(
  func.func @f(%x: tensor<4xf32>, %r0: !ho.remote<tensor<250000xf32>>,
               %r1: !ho.remote<tensor<250000xf32>>) {
    %f0 = ho.prefetch %r0 : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
    %f1 = ho.prefetch %r1 : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
    %y = ho.compute "work"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<4xf32>
    %t0 = ho.await %f0 : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
    %t1 = ho.await %f1 : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
    return
  }
)mlir";

TEST_F(SimulatorTest, TwoTransfersOnTwoQueuesShareTheLink) {
  pool().queuesPerDirection = 2;
  SimulationResult result = simulate(kTwoPrefetches);
  // Each gets 0.5 GB/s: both land at 2 ms; the first await waits 1 ms.
  EXPECT_EQ(result.stallCount, 1u);
  EXPECT_NEAR(result.stallTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.stepTime, 2 * kMs, kTolerance);
}

TEST_F(SimulatorTest, TwoTransfersOnOneQueueGoOneAfterTheOther) {
  SimulationResult result = simulate(kTwoPrefetches);
  // The first lands at 1 ms, the second at 2 ms: only the second waits.
  EXPECT_EQ(result.stallCount, 1u);
  EXPECT_NEAR(result.stallTime, 1 * kMs, kTolerance);
  ASSERT_FALSE(result.events.empty());
  const TimelineEvent &stall =
      *llvm::find_if(result.events, [](const TimelineEvent &event) {
        return event.kind == TimelineEvent::Kind::Stall;
      });
  EXPECT_NEAR(stall.start, 1 * kMs, kTolerance);
  EXPECT_NEAR(stall.end, 2 * kMs, kTolerance);
  // Both were issued at 0 by their ho.prefetch; the second got the queue
  // when the first landed.
  ASSERT_EQ(result.transfers.size(), 2u);
  for (const TransferRecord &transfer : result.transfers) {
    EXPECT_TRUE(isa_and_nonnull<PrefetchOp>(transfer.op));
    EXPECT_EQ(transfer.tier, MemoryTier::pool);
    EXPECT_EQ(transfer.direction, Direction::ToDevice);
    EXPECT_EQ(transfer.issueTime, 0);
  }
  EXPECT_NEAR(result.transfers[0].startTime, 0, kTolerance);
  EXPECT_NEAR(result.transfers[0].endTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.transfers[1].startTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.transfers[1].endTime, 2 * kMs, kTolerance);
}

TEST_F(SimulatorTest, OffloadedBufferIsFreedWhenItsCopyCompletes) {
  SimulationResult result = simulate(R"mlir(
    func.func @f() -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>) {
      %a = ho.compute "produce"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
      %w1 = ho.compute "work"() {flops = 500000000 : i64, bytes = 0 : i64} : () -> tensor<1xf32>
      %b = ho.compute "produce"(%w1) {flops = 0 : i64, bytes = 0 : i64} : (tensor<1xf32>) -> tensor<250000xf32>
      %w2 = ho.compute "work"(%b) {flops = 1000000000 : i64, bytes = 0 : i64} : (tensor<250000xf32>) -> tensor<1xf32>
      %c = ho.compute "produce"(%w2) {flops = 0 : i64, bytes = 0 : i64} : (tensor<1xf32>) -> tensor<250000xf32>
      return %r, %c : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
    }
  )mlir");
  // At 0.5 ms the copy of %a is still reading it: %a, %w1 and %b are live.
  EXPECT_EQ(result.peakLiveBytes, 2000004);
  // The drop happens when the copy completes, at 1 ms.
  auto freed = llvm::find_if(result.memory, [](const MemorySample &sample) {
    return sample.time > 0.9 * kMs && sample.liveBytes < 2000000;
  });
  ASSERT_NE(freed, result.memory.end());
  EXPECT_NEAR(freed->time, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.stepTime, 1.5 * kMs, kTolerance);
}

TEST_F(SimulatorTest, TransfersInFlightSlowMemoryBoundOps) {
  // A 1 GB/s link that takes half the HBM bandwidth while it moves bytes.
  pool().hbmContention = 0.5;
  SimulationResult result = simulate(R"mlir(
    func.func @f(%r: !ho.remote<tensor<250000xf32>>) {
      %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
      %y = ho.compute "copy"() {flops = 0 : i64, bytes = 500000000 : i64} : () -> tensor<1xf32>
      %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      %z = ho.compute "copy"() {flops = 0 : i64, bytes = 500000000 : i64} : () -> tensor<1xf32>
      return
    }
  )mlir");
  // 0.5 GB at 1 TB/s is 0.5 ms, but at half the bandwidth 1 ms: the prefetch
  // lands just as it ends, and the second copy runs at full speed.
  EXPECT_NEAR(result.computeTime, 1.5 * kMs, kTolerance);
  EXPECT_NEAR(result.stallTime, 0, kTolerance);
  EXPECT_NEAR(result.stepTime, 1.5 * kMs, kTolerance);
}

TEST_F(SimulatorTest, PrefetchBeforeItsOffloadCompletedIsReported) {
  SimulationResult result = simulate(R"mlir(
    func.func @f(%x: tensor<250000xf32>) -> tensor<250000xf32> {
      %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
      %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
      %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      return %t : tensor<250000xf32>
    }
  )mlir");
  ASSERT_EQ(result.prematurePrefetches.size(), 1u);
  EXPECT_NEAR(result.prematurePrefetches[0].issueTime, 0, kTolerance);
  EXPECT_NEAR(result.prematurePrefetches[0].offloadEnd, 1 * kMs, kTolerance);
  // Like a runtime's event between the queues, the copy back starts only
  // when the store is done: the await waits for both.
  EXPECT_NEAR(result.stallTime, 2 * kMs, kTolerance);
}

TEST_F(SimulatorTest, LifetimesFollowAllocationsAndReleases) {
  SimulationResult result = simulate(kOnePrefetch);
  // Buffers: %x (0), the future (1), %y (2), %z (3).
  ASSERT_EQ(result.lifetimes.size(), 4u);
  const BufferLifetime &future = result.lifetimes[1];
  EXPECT_NEAR(future.start, 0, kTolerance);
  EXPECT_NEAR(future.end, 1 * kMs, kTolerance);
  // %y is allocated after the future and released before the argument.
  EXPECT_LT(future.firstEvent, result.lifetimes[2].firstEvent);
  EXPECT_LT(result.lifetimes[2].lastEvent, result.lifetimes[0].lastEvent);
  EXPECT_TRUE(result.prematurePrefetches.empty());
}

// Four 1 KiB buffers fill a 4 KiB budget; freeing the first and third leaves
// two 1 KiB holes before a 2 KiB request.
constexpr llvm::StringLiteral kFragmenting = R"mlir(
  func.func @f() -> tensor<512xf32> {
    %a = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
    %b = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
    %c = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
    %d = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
    %u = ho.compute "use"(%a, %c) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<256xf32>, tensor<256xf32>) -> tensor<0xf32>
    %e = ho.compute "big"(%b, %d, %u) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<256xf32>, tensor<256xf32>, tensor<0xf32>) -> tensor<512xf32>
    return %e : tensor<512xf32>
  }
)mlir";

TEST_F(SimulatorTest, AnIdealAllocatorNeverStalls) {
  SimulationOptions options;
  options.budget = 4096;
  options.allocator = AllocatorKind::Ideal;
  SimulationResult result = simulate(kFragmenting, options);
  EXPECT_EQ(result.allocatorStalls, 0u);
  EXPECT_EQ(result.peakLiveBytes, 4096);
  EXPECT_FALSE(result.outOfMemory);
}

TEST_F(SimulatorTest, OverBudgetIsReportedAtTheOp) {
  SimulationOptions options;
  options.budget = 3072;
  options.allocator = AllocatorKind::Ideal;
  SimulationResult result = simulate(kFragmenting, options);
  EXPECT_TRUE(result.outOfMemory);
  ASSERT_TRUE(result.firstOutOfMemoryOp);
  EXPECT_EQ(result.peakFootprintBytes, 4096);
}

// In MiB: %x (48) dies; %b and %c (16 each) are carved from its cached
// segment; %b dies, leaving 16 free on each side of %c; %e needs 32.
constexpr llvm::StringLiteral kCachedSegmentFragments = R"mlir(
  func.func @f() -> tensor<8388608xf32> {
    %x = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<12582912xf32>
    %u0 = ho.compute "use"(%x) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<12582912xf32>) -> tensor<0xf32>
    %b = ho.compute "p"(%u0) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<0xf32>) -> tensor<4194304xf32>
    %c = ho.compute "p"(%u0) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<0xf32>) -> tensor<4194304xf32>
    %u1 = ho.compute "use"(%b) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4194304xf32>) -> tensor<0xf32>
    %e = ho.compute "big"(%c, %u1) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4194304xf32>, tensor<0xf32>) -> tensor<8388608xf32> loc("big")
    return %e : tensor<8388608xf32>
  }
)mlir";
constexpr int64_t kMiB = 1 << 20;

TEST_F(SimulatorTest, ACachingAllocatorRetryThatEndsInOutOfMemory) {
  target.device.cacheReleaseOverhead = 1e-6;
  SimulationOptions options;
  options.budget = 64 * kMiB;
  SimulationResult result = simulate(kCachedSegmentFragments, options);
  // 48 MiB are free when %e asks for 32, in two blocks of 16: a new
  // segment would exceed the budget, releasing the cache frees nothing (the
  // segment holds %c), and the request fails. Nothing moves.
  EXPECT_TRUE(result.outOfMemory);
  ASSERT_TRUE(result.firstOutOfMemoryOp);
  EXPECT_EQ(result.firstOutOfMemoryOp->getLoc(),
            Location(NameLoc::get(StringAttr::get(&context, "big"))));
  EXPECT_EQ(result.allocatorStalls, 1u);
  EXPECT_EQ(result.releasedBytes, 0);
  EXPECT_NEAR(result.allocatorStallTime, 1e-6, kTolerance);
  EXPECT_NEAR(result.stepTime, 1e-6, kTolerance);
  EXPECT_EQ(result.peakFootprintBytes, 80 * kMiB);
}

TEST_F(SimulatorTest, ExpandableSegmentsFitWhereCachedSegmentsFragment) {
  SimulationOptions options;
  options.budget = 64 * kMiB;
  options.allocator = AllocatorKind::Expandable;
  SimulationResult result = simulate(kCachedSegmentFragments, options);
  // The segment's free tail grows by 8 pages: 32 pages, the whole budget.
  EXPECT_FALSE(result.outOfMemory);
  EXPECT_EQ(result.allocatorStalls, 0u);
  EXPECT_EQ(result.peakFootprintBytes, 64 * kMiB);
}

// A 32 MiB argument %w and, as above, a cached segment (32 MiB here) that
// %b and %c fragment before %e needs 32 MiB; %w is read again at the end.
constexpr llvm::StringLiteral kEvictUntilItFits = R"mlir(
  func.func @f(%w: tensor<8388608xf32> loc("w")) -> tensor<8388608xf32> {
    %x = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<8388608xf32>
    %u0 = ho.compute "use"(%x) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<8388608xf32>) -> tensor<0xf32>
    %b = ho.compute "p"(%u0) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<0xf32>) -> tensor<4194304xf32>
    %c = ho.compute "p"(%u0) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<0xf32>) -> tensor<4194304xf32>
    %u1 = ho.compute "use"(%b) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4194304xf32>) -> tensor<0xf32>
    %e = ho.compute "big"(%c, %u1) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4194304xf32>, tensor<0xf32>) -> tensor<8388608xf32>
    %z = ho.compute "use"(%w, %e) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<8388608xf32>, tensor<8388608xf32>) -> tensor<0xf32>
    return %e : tensor<8388608xf32>
  }
)mlir";

TEST_F(SimulatorTest, ReactiveEvictsWhenTheCachingAllocatorFragments) {
  SimulationOptions options;
  options.budget = 80 * kMiB;
  options.mode = ExecutionMode::Reactive;
  options.allocator = AllocatorKind::Ideal;
  // 48 MiB are live when %e asks for 32: an allocator without fragmentation
  // places it.
  SimulationResult ideal = simulate(kEvictUntilItFits, options);
  EXPECT_EQ(ideal.evictions, 0u);
  EXPECT_EQ(ideal.stallTime, 0);

  // The caching allocator has 16 MiB free in %x's old segment and 16 MiB
  // left in the budget, and both segments hold a live block: the runtime
  // evicts %w (least recently used, and the tier has its bytes), whose
  // cached segment then takes %e. %z fetches %w back into %x's old segment,
  // which %c has left by then.
  options.allocator = AllocatorKind::Caching;
  SimulationResult result = simulate(kEvictUntilItFits, options);
  SmallVector<std::string> copies;
  for (const TimelineEvent &event : result.events)
    if (event.kind == TimelineEvent::Kind::Transfer)
      copies.push_back(event.name);
  EXPECT_EQ(copies, (SmallVector<std::string>{"fetch w"}));
  EXPECT_EQ(result.evictions, 1u);
  EXPECT_EQ(result.fetches, 1u);
  EXPECT_FALSE(result.outOfMemory);
  EXPECT_EQ(result.allocatorStalls, 0u);
  // One blocking copy of 32 MiB at 1 GB/s.
  EXPECT_NEAR(result.stepTime, 32 * kMiB / 1e9, 1e-12);
}

TEST_F(SimulatorTest, RuntimeCopiesSplitOverEveryLinkWhenThatIsFaster) {
  target.links[static_cast<unsigned>(MemoryTier::host)] =
      makeRoundNumbersLink(3e9);
  SimulationOptions options;
  options.budget = 80 * kMiB;
  options.mode = ExecutionMode::Reactive;
  SimulationResult result = simulate(kEvictUntilItFits, options);
  // The 32 MiB fetch of %w goes a quarter over the pool link and three
  // quarters over the host link: 4 GB/s in all.
  ASSERT_EQ(result.transfers.size(), 2u);
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            8 * kMiB);
  EXPECT_EQ(result.getTraffic(MemoryTier::host, Direction::ToDevice).bytes,
            24 * kMiB);
  EXPECT_NEAR(result.stallTime, 32 * kMiB / 4e9, 1e-12);

  // With 5 ms of host overhead per copy, the host link alone is faster for
  // 32 MiB: 5 + 11.2 ms against 10 + 8.4 ms.
  target.getLink(MemoryTier::pool)->issueOverhead = 5e-3;
  target.getLink(MemoryTier::host)->issueOverhead = 5e-3;
  result = simulate(kEvictUntilItFits, options);
  ASSERT_EQ(result.transfers.size(), 1u);
  EXPECT_EQ(result.transfers[0].tier, MemoryTier::host);
  EXPECT_NEAR(result.stallTime, 5e-3 + 32 * kMiB / 3e9, 1e-12);
}

// %b is placed over %a, which is still live: a static plan that is wrong.
TEST_F(SimulatorTest, OverlapsAreCountedWhenTheRunMustGoOn) {
  llvm::StringLiteral ir = R"mlir(
    func.func @f() -> tensor<0xf32> {
      %a = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64, ho.offsets = array<i64: 0>} : () -> tensor<256xf32>
      %b = ho.compute "p"() {flops = 0 : i64, bytes = 0 : i64, ho.offsets = array<i64: 512>} : () -> tensor<256xf32> loc("b")
      %c = ho.compute "use"(%a, %b) {flops = 0 : i64, bytes = 0 : i64, ho.offsets = array<i64: 2048>}
          : (tensor<256xf32>, tensor<256xf32>) -> tensor<0xf32>
      return %c : tensor<0xf32>
    }
  )mlir";
  SimulationOptions options;
  options.allocator = AllocatorKind::Static;
  options.continueOnOverlap = true;
  SimulationResult result = simulate(ir, options);
  EXPECT_EQ(result.overlaps, 1u);
  ASSERT_TRUE(result.firstOverlapOp);
  EXPECT_EQ(result.firstOverlapOp->getLoc(),
            Location(NameLoc::get(StringAttr::get(&context, "b"))));
}

TEST_F(SimulatorTest, JitterIsSeededBoundedAndReproducible) {
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  SimulationResult plain = simulate(kOnePrefetch, options);
  options.computeJitter = 0.5;
  options.jitterSeed = 7;
  SimulationResult first = simulate(kOnePrefetch, options);
  SimulationResult again = simulate(kOnePrefetch, options);
  EXPECT_EQ(first.computeTime, again.computeTime);
  EXPECT_EQ(first.stepTime, again.stepTime);
  // Within half the op's 1 ms either way, and not the plain run.
  EXPECT_NE(first.computeTime, plain.computeTime);
  EXPECT_GE(first.computeTime, 0.5 * plain.computeTime);
  EXPECT_LE(first.computeTime, 1.5 * plain.computeTime);
  options.jitterSeed = 8;
  EXPECT_NE(simulate(kOnePrefetch, options).computeTime, first.computeTime);
}

// Three 1 KiB buffers fit; each new one evicts the least recently used.
constexpr llvm::StringLiteral kLeastRecentlyUsed = R"mlir(
  func.func @f() {
    %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32> loc("a")
    %b = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32> loc("b")
    %c = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32> loc("c")
    %d = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32> loc("d")
    %e = ho.compute "k"(%c) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32> loc("e")
    %z1 = ho.compute "k"(%a) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<0xf32>
    %z2 = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<0xf32>
    %z3 = ho.compute "k"(%c, %d, %e) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<0xf32>
    return
  }
)mlir";

TEST_F(SimulatorTest, ReactiveEvictsLeastRecentlyUsedFirst) {
  pool().issueOverhead = 10e-6;
  SimulationOptions options;
  options.budget = 3072;
  options.allocator = AllocatorKind::Ideal;
  options.mode = ExecutionMode::Reactive;
  SimulationResult result = simulate(kLeastRecentlyUsed, options);

  // %d evicts %a (last touched first); %e evicts %b (touched by %d at the
  // same point as %d itself, lower id on the tie); fetching %a back evicts
  // %d, which is older than %c and %e.
  SmallVector<std::string> copies;
  for (const TimelineEvent &event : result.events)
    if (event.kind == TimelineEvent::Kind::Transfer)
      copies.push_back(event.name);
  EXPECT_EQ(copies,
            (SmallVector<std::string>{"evict a", "evict b", "evict d",
                                      "fetch a", "fetch b", "fetch d"}));
  EXPECT_EQ(result.evictions, 3u);
  EXPECT_EQ(result.fetches, 3u);
  EXPECT_FALSE(result.outOfMemory);
  // Every copy blocks compute: 10 us of host overhead plus 1024 B at 1 GB/s.
  EXPECT_EQ(result.stallCount, 6u);
  EXPECT_NEAR(result.hostOverheadTime, 60e-6, kTolerance);
  EXPECT_NEAR(result.stallTime, 6 * (10e-6 + 1.024e-6), kTolerance);
  EXPECT_NEAR(result.stepTime, result.stallTime, kTolerance);
}

// Three layers, each appending the 4 KB %x to its own 1 MB KV cache in 1 ms
// of compute, beside a 1 MB weight; 100 KB blocks.
constexpr llvm::StringLiteral kThreeLayers = R"mlir(
  func.func @f(%w: tensor<250000xf32> {ho.role = "weight"},
               %x: tensor<1000xf32> {ho.role = "input"},
               %k0: tensor<250000xf32> {ho.role = "kv_cache"},
               %k1: tensor<250000xf32> {ho.role = "kv_cache"},
               %k2: tensor<250000xf32> {ho.role = "kv_cache"}) {
    %a0 = ho.compute "append0"(%k0, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
    %a1 = ho.compute "append1"(%k1, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
    %a2 = ho.compute "append2"(%k2, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
    return
  }
)mlir";

class PagedTest : public SimulatorTest {
protected:
  SimulationResult simulatePaged(int64_t budget) {
    SimulationOptions options;
    options.budget = budget;
    options.mode = ExecutionMode::Paged;
    options.allocator = AllocatorKind::Paged;
    options.blockBytes = 100000;
    return simulate(kThreeLayers, options);
  }
};

TEST_F(PagedTest, CachesThatFitStayInThePoolAndNothingMoves) {
  // 11 blocks of weight and input leave 30 for the three caches.
  SimulationResult result = simulatePaged(4100000);
  EXPECT_TRUE(result.transfers.empty());
  EXPECT_FALSE(result.outOfMemory);
  EXPECT_FALSE(result.notRunnable);
  EXPECT_NEAR(result.stepTime, 3 * kMs, kTolerance);
}

TEST_F(PagedTest, ALayerWiseConnectorHidesEachLoadBehindOneLayer) {
  // 32 blocks leave 21 beside weight and input: no cache fits once two
  // caches in flight and one dirty block are set aside. The connector
  // loads %k0 at the start and %k1 as append0 starts (queued behind it on
  // the one queue); append0 waits 1 ms for %k0. %k2 loads while append1
  // runs. Each append dirties one block (its 4 KB), stored back after the
  // cache's last use: 0.1 ms, the last one past the end of compute.
  SimulationResult result = simulatePaged(3200000);
  EXPECT_FALSE(result.outOfMemory);
  EXPECT_EQ(result.fetches, 3u);
  EXPECT_EQ(result.evictions, 3u);
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            3000000);
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::FromDevice).bytes,
            300000);
  EXPECT_NEAR(result.stepTime, 4.1 * kMs, 1e-9);
  EXPECT_NEAR(result.stallTime, 1.1 * kMs, 1e-9);
  // At append1: weight, input, %k0's dirty block still storing, %k1, %k2.
  EXPECT_EQ(result.peakLiveBytes, 3200000);
}

TEST_F(PagedTest, WeightsOverTheBudgetDoNotStart) {
  SimulationResult result = simulatePaged(1000000);
  EXPECT_TRUE(result.notRunnable);
  EXPECT_TRUE(result.outOfMemory);
}

TEST_F(SimulatorTest, PagedModeNeedsThePagedAllocator) {
  module = parseSourceString<ModuleOp>(kThreeLayers, &context);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  SimulationOptions options;
  options.mode = ExecutionMode::Paged;
  auto function = *module->getOps<func::FuncOp>().begin();
  EXPECT_TRUE(
      failed(ho::simulate(function.getBody().front(), target, options)));
  EXPECT_EQ(message, "paged mode moves KV caches in fixed-size blocks: "
                     "simulate it with the paged allocator, not the caching "
                     "one");
}

// A 1 MB store is waited for before a 1 MB buffer is created: compute waits
// the 1 ms the copy takes, and the two buffers are never live together.
constexpr llvm::StringLiteral kWaitForOffload = R"mlir(
  func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, !ho.remote<tensor<250000xf32>>) {
    %a = ho.compute "produce"(%x) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<250000xf32>
    %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
    ho.wait_offload %r : !ho.remote<tensor<250000xf32>>
    %b = ho.compute "big"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<250000xf32>
    %y = ho.compute "use"(%b) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>) -> tensor<4xf32>
    return %y, %r : tensor<4xf32>, !ho.remote<tensor<250000xf32>>
  }
)mlir";

TEST_F(SimulatorTest, WaitForOffloadStallsUntilTheStoreHasLanded) {
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  SimulationResult result = simulate(kWaitForOffload, options);
  EXPECT_EQ(result.stallCount, 1u);
  EXPECT_NEAR(result.stallTime, 1 * kMs, kTolerance);
  EXPECT_NEAR(result.stepTime, 2 * kMs, kTolerance);
  ASSERT_EQ(result.awaitStalls.size(), 1u);
  EXPECT_NEAR(result.awaitStalls.begin()->second, 1 * kMs, kTolerance);
  // %x, %y and one of %a and %b.
  EXPECT_EQ(result.peakLiveBytes, 1000000 + 2 * 16);
}
} // namespace
