//===- LiveInterval.h - When a buffer is live --------------------*- C++
//-*-===//

#ifndef HYPEROFFLOAD_PLANNING_LIVEINTERVAL_H
#define HYPEROFFLOAD_PLANNING_LIVEINTERVAL_H

#include <cstdint>

namespace mlir {
namespace ho {

/// When a buffer is live: the half-open interval [start, end) of some
/// discrete clock, such as the allocation and release events of a simulated
/// run. Two buffers may share memory exactly when their intervals do not
/// intersect; intervals that touch ([0, 4) and [4, 9)) do not. An empty
/// interval is never live.
struct LiveInterval {
  uint64_t start = 0;
  uint64_t end = 0;

  bool isEmpty() const { return end <= start; }
  bool intersects(const LiveInterval &other) const {
    return start < other.end && other.start < end && !isEmpty() &&
           !other.isEmpty();
  }
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_LIVEINTERVAL_H
