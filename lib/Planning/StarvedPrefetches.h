//===- StarvedPrefetches.h - Fetches issued where a link starved -*- C++
//-*-===//
//
// The planner times fetches on its own timeline; in the run, compute and
// links drift from it, and a link can fall idle while the next fetch for it
// waits in the program for an op to finish. When the links bound the step,
// every such gap delays it. This repair closes the gaps on the simulator,
// one fetch at a time, in the order the run reaches them.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_STARVEDPREFETCHES_H
#define HYPEROFFLOAD_LIB_PLANNING_STARVEDPREFETCHES_H

#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
namespace ho {

/// On a copy of `planned`, issues earlier each prefetch that starts on a
/// link left idle before it: first where the run under `simulation` gets
/// faster at once, then the earliest gap first wherever the run still fits
/// its budget, with static offsets too. Returns the fastest copy seen if it
/// is faster than `planned`, else null.
OwningOpRef<func::FuncOp>
issueStarvedPrefetchesEarlier(func::FuncOp planned, const Target &target,
                              const SimulationOptions &simulation);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_STARVEDPREFETCHES_H
