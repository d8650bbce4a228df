//===- StaticPlan.h - Offsets from a simulated run --------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_PLANNING_STATICPLAN_H
#define HYPEROFFLOAD_PLANNING_STATICPLAN_H

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Planning/OffsetAssignment.h"
#include "hyperoffload/Simulation/Simulator.h"

#include <optional>

namespace mlir {
namespace ho {

/// Places the buffers of `liveness`, live over the allocation event
/// intervals that `run` recorded. An offloaded buffer stays allocated until
/// its copy completes, and its interval says so. Over `limit`, other
/// placement orders are tried, then an exact search (OffsetAssignment).
OffsetAssignment assignOffsets(const BufferLiveness &liveness,
                               const SimulationResult &run,
                               std::optional<int64_t> limit = std::nullopt,
                               PackingSearchLimits searchLimits = {});

/// Whether the static offsets of the buffers of `body`, which `run`
/// simulated, fit in `budget`: what ho-assign-offsets will require of it.
bool fitsStaticPlan(Block &body, const Target &target,
                    const SimulationResult &run, int64_t budget);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_STATICPLAN_H
