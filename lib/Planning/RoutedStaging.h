//===- RoutedStaging.h - Where the experts of routed ops live ---*- C++ -*-===//
//
// A mixture-of-experts layer reads the few experts its router picks, and
// only the run knows which. A plan can keep every expert on the device
// (the ordinary planner sees them as operands), keep a hot set there and
// leave the others in a tier, fetched with ho.prefetch_routed once the
// router has picked (exact, but the copy is exposed unless compute covers
// it), or fetched earlier on a prediction: the previous routed op's picks,
// as the cross-layer predictors of Pre-gated MoE, ProMoE and MoE-Infinity
// use, with the misses fetched by the routed op itself. ho-plan-offload
// plans each placement (RoutedStaging) and keeps the fastest that fits,
// scored over many drawn steps.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_ROUTEDSTAGING_H
#define HYPEROFFLOAD_LIB_PLANNING_ROUTEDSTAGING_H

#include "hyperoffload/Dialect/HO/HOTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace ho {

struct RoutedStaging {
  /// Experts of each routed op that stay on the device: its first ones, as
  /// a compiler cannot tell which are popular.
  unsigned residentExperts = 0;
  /// Fetch the others on the previous routed op's picks, right after its
  /// router, instead of on their own router's.
  bool predicted = false;
  /// Where the others live: the target's fastest tier.
  MemoryTier tier = MemoryTier::pool;
};

/// Rewrites `function` as `staging` says: of every ho.routed op, the
/// experts past the resident ones become `!ho.remote` arguments (when they
/// are device arguments that only routed ops read), each routed op reading
/// them gets slots from a ho.prefetch_routed, awaited right before it.
/// Returns whether any expert was moved.
bool stageRoutedExperts(func::FuncOp function, const RoutedStaging &staging);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_ROUTEDSTAGING_H
