//===- TimelineDigest.h - A simulated timeline reduced for plots -*- C++
//-*-===//
//
// A run's timeline can hold a million events (the paged runtime's block
// swaps); a plot needs a few hundred marks. These functions reduce a
// recorded SimulationResult to what the HTML report draws, keeping what a
// reader looks for: the peaks of the memory curve, every busy stretch of a
// track at the plot's resolution, and where in the step compute waited.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_TIMELINEDIGEST_H
#define HYPEROFFLOAD_COMPARE_TIMELINEDIGEST_H

#include "hyperoffload/Simulation/Simulator.h"

#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// The device memory over one bucket of time: the highest values in it.
struct MemoryBucket {
  double start;
  int64_t liveBytes;
  int64_t footprintBytes;
};

/// The memory curve of `result` in `buckets` equal slices of the step, each
/// holding the highest sample taken in it (or the value carried into it), so
/// that no peak is lost. Empty when the run recorded no memory samples.
std::vector<MemoryBucket> bucketMemory(const SimulationResult &result,
                                       unsigned buckets);

/// The busy stretches of one track of the timeline.
struct TrackDigest {
  enum class Kind { Compute, Stall, AllocatorStall, Link };
  Kind kind;
  /// "compute", "stalls", "allocator", or the link such as "pool -> device".
  std::string name;
  /// Disjoint, sorted [start, end) stretches; events whose gap is under the
  /// resolution are merged.
  std::vector<std::pair<double, double>> stretches;
  /// The events on the track, and their total duration, before merging.
  unsigned events = 0;
  double busySeconds = 0;
  /// The bytes the track's transfers moved (links only).
  int64_t bytes = 0;
};

/// The tracks of `result` that have events, in a fixed order: compute,
/// stalls (waits and host overhead), allocator stalls, then each link direction
/// by name. Events closer than `resolution` seconds merge into one stretch.
std::vector<TrackDigest> digestTracks(const SimulationResult &result,
                                      double resolution);

/// Compute waiting in one slice of the step.
struct StallBin {
  double transferSeconds = 0;
  double allocatorSeconds = 0;
  double getTotal() const { return transferSeconds + allocatorSeconds; }
};

/// The stall and allocator time of `result` in `bins` slices of the step's
/// progress, measured in compute ops issued (not in time), so that runs of
/// the same graph line up bin by bin however long they waited. A wait
/// counts in the bin of the compute op it delays; the tail after the last
/// op counts in the last bin.
std::vector<StallBin> binStallsByProgress(const SimulationResult &result,
                                          unsigned bins);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_TIMELINEDIGEST_H
