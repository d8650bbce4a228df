//===- ThreadedRuntimeTest.cpp - Asynchronous copies and their checks -----===//
//
// Runs transfers on the threaded runtime's worker threads and checks that
// the bytes land where a plan says, in the order the interface promises,
// and that integrity checking names each way a broken plan misuses the
// arena. Transfers are kept in flight deterministically by holding the
// queues, never by timing.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "gtest/gtest.h"

#include <cstring>
#include <numeric>

using namespace mlir::ho;

namespace {
std::vector<int8_t> makePattern(size_t size, int8_t first) {
  std::vector<int8_t> bytes(size);
  std::iota(bytes.begin(), bytes.end(), first);
  return bytes;
}

ThreadedRuntime::Options withArena(int64_t bytes) {
  ThreadedRuntime::Options options;
  options.arenaBytes = bytes;
  return options;
}

/// Writes `bytes` into the arena at `offset` as compute would, recording it.
void computeWrites(ThreadedRuntime &runtime, int64_t offset,
                   const std::vector<int8_t> &bytes, int64_t owner) {
  std::memcpy(runtime.getArena() + offset, bytes.data(), bytes.size());
  runtime.recordWrite(offset, bytes.size(), owner, "producer");
}

std::vector<int8_t> arenaBytes(ThreadedRuntime &runtime, int64_t offset,
                               int64_t bytes) {
  return std::vector<int8_t>(runtime.getArena() + offset,
                             runtime.getArena() + offset + bytes);
}

// A buffer stored, its arena bytes reused by another, and fetched back to
// another offset: the bytes come back, each queue counts its copy, and a
// plan that waits where it must has no integrity error.
TEST(ThreadedRuntimeTest, RoundTripRestoresTheBytes) {
  ThreadedRuntime runtime(withArena(256));
  std::vector<int8_t> data = makePattern(64, 1);
  computeWrites(runtime, 0, data, /*owner=*/1);
  ho_remote_t stored =
      runtime.offloadStart(HO_TIER_HOST, ho_queue_from_device(HO_TIER_HOST),
                           /*deviceOffset=*/0, 64);
  runtime.offloadWait(stored);
  computeWrites(runtime, 0, makePattern(64, 100), /*owner=*/2);
  ho_event_t fetched = runtime.prefetchStart(
      HO_TIER_HOST, ho_queue_to_device(HO_TIER_HOST), stored, 128, 64);
  runtime.eventWait(fetched);
  runtime.checkRead(128, 64, /*owner=*/1, "consumer");

  EXPECT_EQ(arenaBytes(runtime, 128, 64), data);
  EXPECT_EQ(runtime.readCopy(stored), data);
  EXPECT_TRUE(runtime.getIntegrityErrors().empty());
  std::map<int32_t, ThreadedRuntime::QueueStats> stats =
      runtime.getQueueStats();
  EXPECT_EQ(stats[ho_queue_from_device(HO_TIER_HOST)].copies, 1);
  EXPECT_EQ(stats[ho_queue_to_device(HO_TIER_HOST)].bytes, 64);
}

// A prefetch issued while the offload that makes its source is still on
// another queue reads the copy only once that offload has completed.
TEST(ThreadedRuntimeTest, PrefetchFollowsTheOffloadOfItsSource) {
  ThreadedRuntime runtime(withArena(128));
  std::vector<int8_t> data = makePattern(32, 7);
  computeWrites(runtime, 0, data, 1);
  runtime.holdQueues(true);
  ho_remote_t stored = runtime.offloadStart(HO_TIER_POOL, 1, 0, 32);
  ho_event_t fetched = runtime.prefetchStart(HO_TIER_POOL, 0, stored, 64, 32);
  runtime.holdQueues(false);
  runtime.eventWait(fetched);
  EXPECT_EQ(arenaBytes(runtime, 64, 32), data);
}

// An await removed: compute reads bytes whose prefetch has not landed. The
// bytes are poisoned until it does, and the read is reported at its op.
TEST(ThreadedRuntimeTest, ReadBeforeThePrefetchLandsIsReported) {
  ThreadedRuntime runtime(withArena(64));
  ho_remote_t weight = runtime.createCopy(HO_TIER_POOL, makePattern(16, 3),
                                          /*owner=*/5);
  runtime.holdQueues(true);
  ho_event_t fetched = runtime.prefetchStart(HO_TIER_POOL, 0, weight, 16, 16);
  EXPECT_EQ(arenaBytes(runtime, 16, 16),
            std::vector<int8_t>(16, ThreadedRuntime::kPoison));
  runtime.checkRead(16, 16, 5, "loc(\"matmul\")");
  runtime.holdQueues(false);
  runtime.eventWait(fetched);
  runtime.checkRead(16, 16, 5, "loc(\"after the await\")");

  std::vector<std::string> errors = runtime.getIntegrityErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "loc(\"matmul\"): reads arena bytes [16, 32) before the "
                       "prefetch into [16, 32) has landed");
}

// A wait for a store removed: compute overwrites bytes an offload is still
// copying, so the tier would get a mix of old and new data.
TEST(ThreadedRuntimeTest, WriteUnderAStoreInFlightIsReported) {
  ThreadedRuntime runtime(withArena(64));
  computeWrites(runtime, 0, makePattern(32, 0), 1);
  runtime.holdQueues(true);
  runtime.offloadStart(HO_TIER_HOST, 3, 0, 32);
  runtime.recordWrite(16, 32, 2, "loc(\"next op\")");
  runtime.holdQueues(false);
  runtime.synchronize();

  std::vector<std::string> errors = runtime.getIntegrityErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "loc(\"next op\"): writes arena bytes [16, 48) while "
                       "the offload of [0, 32) has not completed");
}

// An offset overlapped: two live buffers share arena bytes, so the later
// read of the first finds the second's data.
TEST(ThreadedRuntimeTest, OverlappingLiveBuffersAreReported) {
  ThreadedRuntime runtime(withArena(256));
  computeWrites(runtime, 0, makePattern(100, 0), 1);
  computeWrites(runtime, 64, makePattern(100, 0), 2);
  runtime.checkRead(0, 100, 1, "loc(\"reader\")");
  runtime.checkRead(200, 8, 3, "loc(\"uninitialized\")");

  std::vector<std::string> errors = runtime.getIntegrityErrors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "loc(\"reader\"): reads arena bytes [64, 100) as "
                       "buffer 1, but buffer 2 has overwritten them");
  EXPECT_EQ(errors[1],
            "loc(\"uninitialized\"): reads arena bytes [200, 208), which "
            "nothing wrote");
}

// A slice of the arena written into part of a copy, run by run.
TEST(ThreadedRuntimeTest, OffloadSliceUpdatesPartOfACopy) {
  ThreadedRuntime runtime(withArena(64));
  ho_remote_t cache =
      runtime.createCopy(HO_TIER_HOST, std::vector<int8_t>(16, 0), 9);
  computeWrites(runtime, 0, {1, 2, 3, 4}, 9);
  runtime.offloadSliceStart(HO_TIER_HOST, 3, cache, 0, /*runBytes=*/2,
                            /*runs=*/2, /*destOffset=*/4, /*destStride=*/8);
  std::vector<int8_t> expected(16, 0);
  expected[4] = 1;
  expected[5] = 2;
  expected[12] = 3;
  expected[13] = 4;
  EXPECT_EQ(runtime.readCopy(cache), expected);
}

// A throttled queue emulates its link: no copy on it is faster than
// bytes / bandwidth (a lower bound the runtime enforces by sleeping, so it
// holds on any machine).
TEST(ThreadedRuntimeTest, ThrottledQueueTakesAtLeastBytesOverBandwidth) {
  ThreadedRuntime::Options options = withArena(1 << 20);
  options.queueBandwidth[1] = 100e6;
  ThreadedRuntime runtime(options);
  computeWrites(runtime, 0, std::vector<int8_t>(1 << 20, 1), 1);
  runtime.offloadWait(runtime.offloadStart(HO_TIER_POOL, 1, 0, 1 << 20));
  EXPECT_GE(runtime.getQueueStats()[1].busySeconds, (1 << 20) / 100e6);
}

// A queue's latency comes before its bytes: a copy lands no earlier than
// latency + bytes / bandwidth after it was issued.
TEST(ThreadedRuntimeTest, QueueLatencyComesFirst) {
  ThreadedRuntime::Options options = withArena(4096);
  options.queueBandwidth[0] = 100e6;
  options.queueLatency[0] = 0.01;
  ThreadedRuntime runtime(options);
  ho_remote_t source =
      runtime.createCopy(HO_TIER_POOL, makePattern(4096, 5), /*owner=*/2);
  int64_t issued = clockNanoseconds();
  runtime.eventWait(runtime.prefetchStart(HO_TIER_POOL, 0, source, 0, 4096));
  EXPECT_GE(clockNanoseconds() - issued, (0.01 + 4096 / 100e6) * 1e9);
  EXPECT_EQ(arenaBytes(runtime, 0, 4096), makePattern(4096, 5));
}

// A queue with an issue overhead costs the caller that long per copy
// started on it, before the copy is queued; other queues cost nothing.
// Lower bounds again: the caller waits at least the overhead.
TEST(ThreadedRuntimeTest, IssueOverheadIsSpentByTheCaller) {
  ThreadedRuntime::Options options = withArena(4096);
  options.queueIssueOverhead[1] = 0.02;
  ThreadedRuntime runtime(options);
  computeWrites(runtime, 0, makePattern(4096, 3), 1);
  int64_t start = clockNanoseconds();
  ho_remote_t copy = runtime.offloadStart(HO_TIER_POOL, 1, 0, 4096);
  EXPECT_GE(clockNanoseconds() - start, 20000000);
  runtime.offloadWait(copy);
  EXPECT_EQ(runtime.readCopy(copy), makePattern(4096, 3));
}

// The wait of synthetic kernels ends no earlier than asked.
TEST(ThreadedRuntimeTest, WaitUntilEndsNoEarlier) {
  int64_t end = clockNanoseconds() + 3000000;
  waitUntilNanoseconds(end);
  EXPECT_GE(clockNanoseconds(), end);
}
} // namespace

/// Writes int32 `picks` into the arena at `offset`, as a router would.
static void writePicks(ThreadedRuntime &runtime, int64_t offset,
                       const std::vector<int32_t> &picks, int64_t owner) {
  std::vector<int8_t> bytes(picks.size() * 4);
  std::memcpy(bytes.data(), picks.data(), bytes.size());
  computeWrites(runtime, offset, bytes, owner);
}

// Two experts of four picked, one of them guessed right: the guess is
// fetched, the miss replaces the wrong guess, and the slot table says
// which slot holds which expert.
TEST(ThreadedRuntimeTest, RoutedMissReplacesAWrongGuess) {
  ThreadedRuntime runtime(withArena(128));
  std::vector<ho_remote_t> experts;
  for (int8_t e = 0; e < 4; ++e)
    experts.push_back(
        runtime.createCopy(HO_TIER_POOL, makePattern(16, 16 * e), 10 + e));
  writePicks(runtime, 0, {1, 3}, 1); // the guess
  writePicks(runtime, 8, {1, 2}, 2); // the router's picks
  ho_routed_t group = runtime.routedBegin(0, 2, 64, 16, 2);
  for (int64_t e = 0; e < 4; ++e)
    runtime.routedOffer(group, HO_TIER_POOL, 0, e, experts[e]);
  runtime.eventWait(runtime.routedEvent(group));
  for (int64_t e = 0; e < 4; ++e)
    runtime.routedEnsure(group, 8, 2, HO_TIER_POOL, 0, e, experts[e]);
  EXPECT_EQ(runtime.routedSlotExpert(group, 0), 1);
  EXPECT_EQ(runtime.routedSlotExpert(group, 1), 2);
  EXPECT_EQ(arenaBytes(runtime, 64, 16), makePattern(16, 16));
  EXPECT_EQ(arenaBytes(runtime, 80, 16), makePattern(16, 32));
  runtime.checkSlotsRead(group, "loc(\"expert_ffn\")");
  EXPECT_EQ(runtime.getIntegrityErrors(), std::vector<std::string>());
  EXPECT_EQ(runtime.getQueueStats()[0].copies, 3);
}

// Blocks of 3 bytes of a 7-byte row (the last one short) picked on a
// guess: ensure moves the block the row holds elsewhere, fetches the one
// it lacks, and a short block's place ends in zeros.
TEST(ThreadedRuntimeTest, BlocksEnsureMovesHeldBlocksAndFetchesMissing) {
  ThreadedRuntime runtime(withArena(128));
  ho_remote_t cache = runtime.createCopy(HO_TIER_POOL, makePattern(7, 1), 9);
  writePicks(runtime, 0, {2, 0}, 1); // the guess
  writePicks(runtime, 8, {1, 2}, 2); // the selection
  ho_blocks_t group =
      runtime.blocksBegin(HO_TIER_POOL, 0, cache, 0, 1, 2, 7, 3, 64);
  runtime.eventWait(runtime.blocksEvent(group));
  EXPECT_EQ(arenaBytes(runtime, 64, 6),
            (std::vector<int8_t>{7, 0, 0, 1, 2, 3}));
  runtime.blocksEnsure(group, 8);
  EXPECT_EQ(arenaBytes(runtime, 64, 6),
            (std::vector<int8_t>{4, 5, 6, 7, 0, 0}));
  runtime.checkRead(64, 6, 9, "loc(\"gather\")");
  EXPECT_EQ(runtime.getIntegrityErrors(), std::vector<std::string>());
  EXPECT_EQ(runtime.getQueueStats()[0].copies, 2);
}
