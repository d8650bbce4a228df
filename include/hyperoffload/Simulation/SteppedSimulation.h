//===- SteppedSimulation.h - Many steps of drawn routing ---------*- C++
//-*-===//
//
// A function with ho.routed or ho.gather_blocks ops behaves differently at
// every step: its router picks other experts, its selections other blocks. This
// runs it for a number of steps, each on every device of its expert-parallel
// group (a step ends when the slowest device's does), and reports the
// distribution. Without routed ops every step is the same and one run is the
// answer.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_STEPPEDSIMULATION_H
#define HYPEROFFLOAD_SIMULATION_STEPPEDSIMULATION_H

#include "hyperoffload/Simulation/Simulator.h"

namespace mlir {
namespace ho {

struct StepStatistics {
  unsigned steps = 0;
  unsigned devices = 0;
  /// Step time, the slowest device's in each step: mean, median, 99th
  /// percentile (nearest rank).
  double mean = 0;
  double p50 = 0;
  double p99 = 0;
  /// Mean step and stall time of device 0 alone, the one the function
  /// describes.
  double deviceMean = 0;
  double deviceStallMean = 0;
  /// Picked experts that were on the device when their kernel started
  /// (resident or prefetched), over all picked, on every device; 1 when
  /// nothing was picked.
  double hitRate = 1;
  uint64_t expertsPicked = 0;
  uint64_t expertsFetchedOnDemand = 0;
  /// The same for the blocks ho.gather_blocks ops pick.
  double blockHitRate = 1;
  uint64_t blocksSelected = 0;
  uint64_t blocksFetchedOnDemand = 0;
  /// The worst of every run.
  int64_t peakFootprintBytes = 0;
  bool outOfMemory = false;
  unsigned overlaps = 0;
};

/// Whether `body` reads what only the run picks (ho.routed or
/// ho.gather_blocks ops); and the expert-parallel degree the first routed
/// op implies (total experts over the experts it holds), 1 without.
bool hasRunTimeSelections(Block &body);
unsigned getExpertParallelism(Block &body);

/// Simulates `steps` steps of `body` on `devices` devices (0: the
/// expert-parallel degree), step s and device d drawn with `options`'
/// routing at that step and device. Timelines are not recorded.
FailureOr<StepStatistics> simulateSteps(Block &body, const Target &target,
                                        SimulationOptions options,
                                        unsigned steps, unsigned devices = 0);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_STEPPEDSIMULATION_H
