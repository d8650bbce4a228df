//===- SteppedSimulation.cpp - Many steps of drawn routing ----------------===//

#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ho;

bool ho::hasRoutedOps(Block &body) { return !body.getOps<RoutedOp>().empty(); }

unsigned ho::getExpertParallelism(Block &body) {
  auto ops = body.getOps<RoutedOp>();
  if (ops.empty())
    return 1;
  RoutedOp first = *ops.begin();
  return std::max<int64_t>(1,
                           first.getTotalExperts() /
                               static_cast<int64_t>(first.getExperts().size()));
}

/// The nearest-rank percentile of sorted `values`.
static double getPercentile(ArrayRef<double> sorted, double percent) {
  size_t rank = static_cast<size_t>(std::ceil(percent / 100 * sorted.size()));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

FailureOr<StepStatistics> ho::simulateSteps(Block &body, const Target &target,
                                            SimulationOptions options,
                                            unsigned steps, unsigned devices) {
  options.recordTimeline = false;
  if (!hasRoutedOps(body)) {
    steps = 1;
    devices = 1;
  } else if (devices == 0) {
    devices = getExpertParallelism(body);
  }
  steps = std::max(steps, 1u);
  devices = std::max(devices, 1u);

  StepStatistics stats;
  stats.steps = steps;
  stats.devices = devices;
  std::vector<double> stepTimes;
  uint64_t hits = 0;
  for (unsigned step = 0; step < steps; ++step) {
    double slowest = 0;
    for (unsigned device = 0; device < devices; ++device) {
      options.routing.step = step;
      options.routing.device = device;
      FailureOr<SimulationResult> run = simulate(body, target, options);
      if (failed(run))
        return failure();
      slowest = std::max(slowest, run->stepTime);
      if (device == 0) {
        stats.deviceMean += run->stepTime;
        stats.deviceStallMean += run->stallTime;
      }
      stats.expertsPicked += run->expertsPicked;
      stats.expertsFetchedOnDemand += run->expertsFetchedOnDemand;
      hits += run->expertsHit;
      stats.peakFootprintBytes =
          std::max(stats.peakFootprintBytes, run->peakFootprintBytes);
      stats.outOfMemory |= run->outOfMemory;
      stats.overlaps += run->overlaps;
    }
    stepTimes.push_back(slowest);
  }
  for (double time : stepTimes)
    stats.mean += time;
  stats.mean /= steps;
  stats.deviceMean /= steps;
  stats.deviceStallMean /= steps;
  if (stats.expertsPicked)
    stats.hitRate = static_cast<double>(hits) / stats.expertsPicked;
  std::sort(stepTimes.begin(), stepTimes.end());
  stats.p50 = getPercentile(stepTimes, 50);
  stats.p99 = getPercentile(stepTimes, 99);
  return stats;
}
