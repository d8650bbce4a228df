//===- SteppedSimulation.cpp - Many steps of drawn routing ----------------===//

#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "TimelineSimulator.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/Threading.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ho;

bool ho::hasRunTimeSelections(Block &body) {
  return !body.getOps<RoutedOp>().empty() ||
         !body.getOps<GatherBlocksOp>().empty();
}

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
  if (!hasRunTimeSelections(body)) {
    steps = 1;
    devices = 1;
  } else if (devices == 0) {
    devices = getExpertParallelism(body);
  }
  steps = std::max(steps, 1u);
  devices = std::max(devices, 1u);

  // Every run is independent: they run in parallel (the context's threads)
  // and are summed in order, so the figures do not depend on scheduling.
  // They share one analysis of the body, which no run changes.
  BufferLiveness liveness(body, target.device.allocationGranularity);
  std::vector<SimulationResult> results(steps * devices);
  MLIRContext *context = body.getParentOp()->getContext();
  if (failed(failableParallelForEachN(
          context, 0, results.size(), [&](size_t index) -> LogicalResult {
            SimulationOptions run = options;
            run.routing.step = index / devices;
            run.routing.device = index % devices;
            FailureOr<SimulationResult> result =
                detail::TimelineSimulator(body, liveness, target, run).run();
            if (failed(result))
              return failure();
            results[index] = std::move(*result);
            return success();
          })))
    return failure();

  StepStatistics stats;
  stats.steps = steps;
  stats.devices = devices;
  std::vector<double> stepTimes(steps, 0);
  uint64_t hits = 0, blockHits = 0;
  for (auto [index, run] : llvm::enumerate(results)) {
    unsigned step = index / devices, device = index % devices;
    stepTimes[step] = std::max(stepTimes[step], run.stepTime);
    if (device == 0) {
      stats.deviceMean += run.stepTime;
      stats.deviceStallMean += run.stallTime;
    }
    stats.expertsPicked += run.expertsPicked;
    stats.expertsFetchedOnDemand += run.expertsFetchedOnDemand;
    hits += run.expertsHit;
    stats.blocksSelected += run.blocksSelected;
    stats.blocksFetchedOnDemand += run.blocksFetchedOnDemand;
    blockHits += run.blocksHit;
    stats.peakFootprintBytes =
        std::max(stats.peakFootprintBytes, run.peakFootprintBytes);
    stats.outOfMemory |= run.outOfMemory;
    stats.overlaps += run.overlaps;
  }
  for (double time : stepTimes)
    stats.mean += time;
  stats.mean /= steps;
  stats.deviceMean /= steps;
  stats.deviceStallMean /= steps;
  if (stats.expertsPicked)
    stats.hitRate = static_cast<double>(hits) / stats.expertsPicked;
  if (stats.blocksSelected)
    stats.blockHitRate = static_cast<double>(blockHits) / stats.blocksSelected;
  std::sort(stepTimes.begin(), stepTimes.end());
  stats.p50 = getPercentile(stepTimes, 50);
  stats.p99 = getPercentile(stepTimes, 99);
  return stats;
}
