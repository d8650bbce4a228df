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

#include "hyperoffload/Compare/TensorRoles.h"
#include "hyperoffload/Simulation/Simulator.h"

#include <array>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// A tensor on the device at some instant.
struct LiveTensor {
  std::string name;
  TensorRole role;
  int64_t bytes;
};

/// The device memory over one bucket of time: the highest values in it.
struct MemoryBucket {
  double start;
  int64_t liveBytes;
  int64_t footprintBytes;
  /// At the bucket's highest live bytes: those bytes by role (indexed by
  /// TensorRole), and the largest tensors, largest first.
  std::array<int64_t, kTensorRoleCount> roleBytes = {};
  std::vector<LiveTensor> largest;
};

/// The memory curve of `result` in `buckets` equal slices of the step, each
/// holding the highest sample taken in it (or the value carried into it), so
/// that no peak is lost, with up to `largest` of the tensors then on the
/// device. Empty when the run recorded no memory samples.
std::vector<MemoryBucket> bucketMemory(const SimulationResult &result,
                                       unsigned buckets, unsigned largest = 0);

/// The tensors on the device when the live bytes of `result` first peak,
/// largest first, at most `count` of them; and when that was.
struct MemoryPeak {
  double time = 0;
  int64_t liveBytes = 0;
  std::array<int64_t, kTensorRoleCount> roleBytes = {};
  std::vector<LiveTensor> largest;
};
MemoryPeak findMemoryPeak(const SimulationResult &result, unsigned count);

/// The busy stretches of one track of the timeline.
struct TrackDigest {
  enum class Kind { Compute, Stall, AllocatorStall, Link };
  Kind kind;
  /// "compute", "stalls", "allocator", or the link such as "pool -> device".
  std::string name;
  /// Disjoint, sorted [start, end) stretches; events whose gap is under the
  /// resolution are merged.
  std::vector<std::pair<double, double>> stretches;
  /// For each stretch, what ran in it: the event's name, or the first and
  /// last of several and how many.
  std::vector<std::string> labels;
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

/// Where a part of the graph (a layer) starts in the order compute ran it.
struct GraphPart {
  std::string name;
  /// The index of its first compute op among the run's compute ops.
  size_t firstOp;
};

/// The part of the graph (a layer) an op named `name` belongs to: its
/// " / "-separated components up to the first that holds a number, and of
/// that component, if it is a dotted module path, the parts up to the first
/// that holds one: "layer 3" of "layer 3 / attn / q", "encoder.layers.3" of
/// "encoder.layers.3.mlp.0", "backward / encoder.layers.3" of "backward /
/// encoder.layers.3.mlp.0". Empty where the name has no number.
llvm::StringRef getGraphPartName(llvm::StringRef name);

/// The parts of the graph in the order `result` computed them, from the
/// ops' names (getGraphPartName). Empty where the names have no such parts.
/// `opCount` is set to the number of compute ops.
std::vector<GraphPart> findGraphParts(const SimulationResult &result,
                                      size_t &opCount);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_TIMELINEDIGEST_H
