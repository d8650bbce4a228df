//===- LinkChannel.cpp - Transfers sharing one link direction -------------===//

#include "hyperoffload/Simulation/LinkChannel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace mlir::ho;

/// Bytes left over from floating-point rounding when a transfer completes.
static constexpr double kByteTolerance = 1e-3;

LinkChannel::LinkChannel(double bandwidth, double latency, unsigned queues)
    : bandwidth(bandwidth), latency(latency), queues(std::max(queues, 1u)) {}

LinkChannel::TransferId LinkChannel::issue(double time, int64_t bytes,
                                           double notBefore) {
  advanceTo(time);
  Transfer transfer;
  transfer.bytes = bytes;
  transfer.issue = time;
  transfer.notBefore = notBefore;
  transfer.remaining = static_cast<double>(bytes);
  transfers.push_back(transfer);
  TransferId id = transfers.size() - 1;
  waiting.push_back(id);
  startWaitingTransfers();
  return id;
}

void LinkChannel::startWaitingTransfers() {
  // First come, first served among the transfers that may start now.
  for (auto it = waiting.begin();
       it != waiting.end() && active.size() < queues;) {
    Transfer &transfer = transfers[*it];
    if (transfer.notBefore > clock) {
      ++it;
      continue;
    }
    transfer.start = clock;
    transfer.dataStart = clock + latency;
    active.push_back(*it);
    it = waiting.erase(it);
  }
}

unsigned LinkChannel::getNumMovingBytes() const {
  return llvm::count_if(
      active, [&](TransferId id) { return transfers[id].dataStart <= clock; });
}

double LinkChannel::getNextEventTime() const {
  double next = std::numeric_limits<double>::infinity();
  double smallestRemaining = std::numeric_limits<double>::infinity();
  for (TransferId id : active) {
    const Transfer &transfer = transfers[id];
    if (transfer.dataStart > clock)
      next = std::min(next, transfer.dataStart);
    else
      smallestRemaining = std::min(smallestRemaining, transfer.remaining);
  }
  if (unsigned moving = getNumMovingBytes())
    next = std::min(next, clock + smallestRemaining * moving / bandwidth);
  // A transfer held back by a dependency becomes ready.
  if (active.size() < queues)
    for (TransferId id : waiting)
      if (transfers[id].notBefore > clock)
        next = std::min(next, transfers[id].notBefore);
  return next;
}

void LinkChannel::progressTo(double time) {
  if (time <= clock)
    return;
  if (unsigned moving = getNumMovingBytes()) {
    double bytesEach = (time - clock) * bandwidth / moving;
    for (TransferId id : active)
      if (transfers[id].dataStart <= clock)
        transfers[id].remaining -= bytesEach;
  }
  clock = time;
}

void LinkChannel::completeFinishedTransfers() {
  unsigned moving = getNumMovingBytes();
  // Done when the bytes left are rounding residue, or so few that moving
  // them would not advance the clock: past a minute of simulated time a
  // double no longer resolves a few bytes' worth of nanoseconds, and the
  // next event would never come.
  auto isDone = [&](TransferId id) {
    const Transfer &transfer = transfers[id];
    if (transfer.dataStart > clock)
      return false;
    return transfer.remaining <= kByteTolerance ||
           clock + transfer.remaining * moving / bandwidth <= clock;
  };
  for (TransferId id : active)
    if (isDone(id))
      transfers[id].end = clock;
  llvm::erase_if(active, isDone);
  startWaitingTransfers();
}

void LinkChannel::advanceTo(double time) {
  while (true) {
    double next = getNextEventTime();
    if (next > time) {
      progressTo(time);
      return;
    }
    progressTo(next);
    completeFinishedTransfers();
  }
}

double LinkChannel::finish(TransferId id) {
  while (!isFinished(id)) {
    double next = getNextEventTime();
    assert(next < std::numeric_limits<double>::infinity() &&
           "an unfinished transfer must be active or waiting");
    progressTo(next);
    completeFinishedTransfers();
  }
  return transfers[id].end;
}

double LinkChannel::drain() {
  double last = clock;
  for (TransferId id = 0; id < transfers.size(); ++id)
    last = std::max(last, finish(id));
  return last;
}
