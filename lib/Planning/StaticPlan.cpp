//===- StaticPlan.cpp - Offsets from a simulated run ----------------------===//

#include "hyperoffload/Planning/StaticPlan.h"

using namespace mlir;
using namespace mlir::ho;

OffsetAssignment ho::assignOffsets(const BufferLiveness &liveness,
                                   const SimulationResult &run,
                                   std::optional<int64_t> limit,
                                   PackingSearchLimits searchLimits) {
  SmallVector<int64_t> sizes;
  SmallVector<LiveInterval> intervals;
  for (const BufferInfo &buffer : liveness.getBuffers()) {
    const BufferLifetime &lifetime = run.lifetimes[buffer.id];
    sizes.push_back(buffer.size);
    // Event numbers are distinct, so the closed interval [first, last]
    // intersects another exactly when the half-open one does.
    intervals.push_back({lifetime.firstEvent, lifetime.lastEvent});
  }
  return OffsetAssignment(sizes, intervals, limit, searchLimits);
}

bool ho::fitsStaticPlan(Block &body, const Target &target,
                        const SimulationResult &run, int64_t budget) {
  BufferLiveness liveness(body, target.device.allocationGranularity);
  return assignOffsets(liveness, run, budget).getArenaSize() <= budget;
}
