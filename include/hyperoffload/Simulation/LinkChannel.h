//===- LinkChannel.h - Transfers sharing one link direction -----*- C++ -*-===//
//
// One direction of the link between the device and a memory tier. A transfer
// takes one of the direction's queues from the moment it starts until it
// completes; when all queues are taken it waits, first come first served.
// After the link latency its bytes move, sharing the bandwidth equally with
// every other transfer that is moving bytes at the same time.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_LINKCHANNEL_H
#define HYPEROFFLOAD_SIMULATION_LINKCHANNEL_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace mlir {
namespace ho {

class LinkChannel {
public:
  using TransferId = unsigned;

  LinkChannel(double bandwidth, double latency, unsigned queues);

  /// Issues a transfer of `bytes` at `time`, which must not precede the time
  /// of any earlier call. The transfer does not start before `notBefore`
  /// (the completion of a transfer it depends on); transfers issued after it
  /// may start first meanwhile.
  TransferId issue(double time, int64_t bytes, double notBefore = 0);

  /// Runs the channel up to `time`.
  void advanceTo(double time);

  /// Runs the channel until transfer `id` has completed; returns when it did.
  double finish(TransferId id);

  /// Runs the channel until every transfer has completed; returns the time
  /// the last one did (or the current time when idle).
  double drain();

  /// Transfers moving bytes or waiting out their latency at the current time.
  unsigned getNumActive() const { return active.size(); }
  /// Whether some transfer is moving bytes (past its latency) right now.
  bool isMovingBytes() const { return getNumMovingBytes() > 0; }
  bool isIdle() const { return active.empty() && waiting.empty(); }

  bool isFinished(TransferId id) const { return transfers[id].end >= 0; }
  double getIssueTime(TransferId id) const { return transfers[id].issue; }
  /// When the transfer got a queue; its latency starts then.
  double getStartTime(TransferId id) const { return transfers[id].start; }
  /// When the transfer completed; negative while it has not.
  double getEndTime(TransferId id) const { return transfers[id].end; }
  int64_t getBytes(TransferId id) const { return transfers[id].bytes; }

private:
  struct Transfer {
    int64_t bytes;
    double issue;
    double notBefore = 0;
    double start = -1;
    double dataStart = -1;
    double remaining;
    double end = -1;
  };

  void startWaitingTransfers();
  double getNextEventTime() const;
  void progressTo(double time);
  void completeFinishedTransfers();
  unsigned getNumMovingBytes() const;

  double bandwidth;
  double latency;
  unsigned queues;
  double clock = 0;
  std::vector<Transfer> transfers;
  std::deque<TransferId> waiting;
  llvm::SmallVector<TransferId> active;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_LINKCHANNEL_H
