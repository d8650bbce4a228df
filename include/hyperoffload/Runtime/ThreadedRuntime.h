//===- ThreadedRuntime.h - Asynchronous copies on worker threads -*- C++
//-*-===//
//
// An implementation of the transfer calls of HyperOffloadRuntime.h that
// runs a plan's copies for real: one device arena, tier copies as separate
// allocations, one worker thread per transfer queue copying asynchronously
// in issue order, and events that waits block on. A queue can be given a
// bandwidth and a latency, so that a copy on it lands no earlier than a
// link's would and a slow link is emulated honestly.
//
// Integrity checking records, for every arena byte range, whether its data
// is current and which buffer it holds. Compute reports what it reads and
// writes (`checkRead`, `recordWrite`), so that a read before the prefetch
// of its bytes has landed, a write into bytes an offload is still copying
// or a prefetch is still filling, and a read of bytes another buffer has
// since overwritten (two live buffers at overlapping offsets) are reported
// with the op that did it. Bytes a prefetch has not filled yet are poisoned.
//
// Routed and picked-block prefetches (ho_routed_*, ho_blocks_*) read the
// picks compute wrote into the arena and copy only what they name, like
// any prefetch; their ensure calls, right before the kernel, wait for the
// group's copies and fetch what a wrong prediction missed, blocking the
// caller (a stall). Slots and places are checked like any arena bytes.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_RUNTIME_THREADEDRUNTIME_H
#define HYPEROFFLOAD_RUNTIME_THREADEDRUNTIME_H

#include "hyperoffload/Runtime/HyperOffloadRuntime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// A monotonic clock in nanoseconds, and a wait until it reads `end`:
/// asleep for most of the wait, so that copy threads get the cores as a
/// device's copy engines would, then spinning for the last 100 us, which
/// the scheduler's wake-up latency would overshoot.
int64_t clockNanoseconds();
void waitUntilNanoseconds(int64_t end);

class ThreadedRuntime {
public:
  /// The buffer of bytes nobody has said.
  static constexpr int64_t kUnknownOwner = -1;
  /// The byte arena bytes a prefetch has not filled yet hold.
  static constexpr int8_t kPoison = static_cast<int8_t>(0xA5);

  struct Options {
    int64_t arenaBytes = 0;
    /// Bytes per second of each queue; a copy on a listed queue takes at
    /// least bytes / bandwidth. Other queues copy as fast as memory does.
    std::map<int32_t, double> queueBandwidth;
    /// Seconds before a copy on a listed queue moves its first byte (a
    /// link's latency), from when it could start (its issue, or its
    /// source's completion); it overlaps the copies ahead on the queue, so
    /// a copy lands no earlier than latency + bytes / bandwidth after it
    /// could start, nor before the copies ahead plus its bytes.
    std::map<int32_t, double> queueLatency;
    /// Seconds the issuing thread spends in each copy started on a listed
    /// queue before the copy is queued: the host-side inspect/issue cost a
    /// runtime that decides transfers as it goes pays per transfer (a
    /// link's `issue_overhead_us`). A compiled plan issues prebuilt copies
    /// and is run without it.
    std::map<int32_t, double> queueIssueOverhead;
    bool checkIntegrity = true;
    /// Starts a copy only once a wait needs it (or a copy a wait needs
    /// follows it): the slowest links a plan must tolerate, and the same
    /// order on every run, so that a missing wait always shows.
    bool copyOnlyWhenWaited = false;
  };

  /// What one queue did.
  struct QueueStats {
    int64_t copies = 0;
    int64_t bytes = 0;
    /// Wall-clock seconds the queue spent copying (and throttling).
    double busySeconds = 0;
  };

  /// How long callers blocked in eventWait and offloadWait: the stalls.
  struct WaitStats {
    int64_t blockedWaits = 0;
    double seconds = 0;
  };

  explicit ThreadedRuntime(Options options);
  /// Waits for every copy in flight.
  ~ThreadedRuntime();
  ThreadedRuntime(const ThreadedRuntime &) = delete;
  ThreadedRuntime &operator=(const ThreadedRuntime &) = delete;

  int8_t *getArena();
  int64_t getArenaSize() const;

  /// Creates a copy in `tier` holding `bytes`, as a caller passes a remote
  /// argument, of the buffer `owner`.
  ho_remote_t createCopy(int32_t tier, llvm::ArrayRef<int8_t> bytes,
                         int64_t owner = kUnknownOwner);
  /// The bytes of a copy once every copy into it has completed, as a
  /// caller reads a remote result.
  std::vector<int8_t> readCopy(ho_remote_t copy);
  /// The buffer a copy holds: its creator's, or that of the arena bytes an
  /// offload copied (kUnknownOwner when they held several).
  int64_t getCopyOwner(ho_remote_t copy);

  /// The transfer calls of HyperOffloadRuntime.h.
  ho_remote_t offloadStart(int32_t tier, int32_t queue, int64_t deviceOffset,
                           int64_t bytes);
  void offloadWait(ho_remote_t copy);
  ho_event_t prefetchStart(int32_t tier, int32_t queue, ho_remote_t source,
                           int64_t deviceOffset, int64_t bytes);
  void eventWait(ho_event_t event);
  ho_remote_t offloadSliceStart(int32_t tier, int32_t queue, ho_remote_t dest,
                                int64_t deviceOffset, int64_t runBytes,
                                int64_t runs, int64_t destOffset,
                                int64_t destStride);

  /// Routed prefetches (HyperOffloadRuntime.h). A group's copies run on
  /// one queue, so its event is that of its last copy.
  ho_routed_t routedBegin(int64_t selectionOffset, int64_t numPicks,
                          int64_t deviceOffset, int64_t slotBytes,
                          int64_t slots);
  void routedOffer(ho_routed_t group, int32_t tier, int32_t queue,
                   int64_t expertId, ho_remote_t source);
  ho_event_t routedEvent(ho_routed_t group);
  void routedEnsure(ho_routed_t group, int64_t selectionOffset,
                    int64_t numPicks, int32_t tier, int32_t queue,
                    int64_t expertId, ho_remote_t source);
  int64_t routedSlotExpert(ho_routed_t group, int64_t slot);
  /// Picked blocks: one copy per row; a block shorter than its place (the
  /// last of a row) leaves the rest of the place zero.
  ho_blocks_t blocksBegin(int32_t tier, int32_t queue, ho_remote_t source,
                          int64_t selectionOffset, int64_t rows,
                          int64_t picksPerRow, int64_t rowBytes,
                          int64_t blockBytes, int64_t deviceOffset);
  ho_event_t blocksEvent(ho_blocks_t group);
  void blocksEnsure(ho_blocks_t group, int64_t selectionOffset);

  /// Integrity checking: compute at `where` is about to read the arena
  /// bytes [offset, offset + bytes) as the buffer `owner`...
  void checkRead(int64_t offset, int64_t bytes, int64_t owner,
                 llvm::StringRef where);
  /// ...or the slots of a routed group that hold an expert, each as the
  /// data of the copy it was filled from...
  void checkSlotsRead(ho_routed_t group, llvm::StringRef where);
  /// ...or has written them as `owner`.
  void recordWrite(int64_t offset, int64_t bytes, int64_t owner,
                   llvm::StringRef where);
  /// Marks arena bytes the caller filled before the run (device-resident
  /// arguments) as current data of `owner`.
  void recordInput(int64_t offset, int64_t bytes, int64_t owner);
  /// What integrity checking found, in the order it found it.
  std::vector<std::string> getIntegrityErrors();

  /// While held, queues take copies but start none, so that a test can
  /// look at transfers in flight; releasing lets them run.
  void holdQueues(bool hold);
  /// Waits until every queue is idle, counting a wait that blocks in the
  /// wait statistics. The queues must not be held.
  void synchronize();
  /// Per queue, once synchronized.
  std::map<int32_t, QueueStats> getQueueStats();
  WaitStats getWaitStats();

  struct State;

private:
  std::unique_ptr<State> state;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_RUNTIME_THREADEDRUNTIME_H
