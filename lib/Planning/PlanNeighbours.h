//===- PlanNeighbours.h - Plans one change away from a plan -----*- C++ -*-===//
//
// The moves of the planner's local search (PlanSelection.cpp): each
// neighbour differs from a plan in one decision, within the space the
// exact search covers (ExactPlan.h), so that a plan the planner improves
// stays one PlanWriter writes and the oracle could have found.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_PLANNEIGHBOURS_H
#define HYPEROFFLOAD_LIB_PLANNING_PLANNEIGHBOURS_H

#include "PlanningContext.h"

#include <vector>

namespace mlir {
namespace ho {

/// A plan one decision away from another.
struct NeighbourPlan {
  OffloadPlan plan;
  /// Whether the change keeps a buffer off the device longer (a prefetch
  /// issued later, a store or a wait for it earlier, a gap taken): what a
  /// change that frees time but needs memory can be paired with.
  bool savesMemory = false;
  /// Whether the change can make the step shorter on its own: taking a gap
  /// cannot, with copies in program order, and is only paired.
  bool alone = true;
};

/// The plans that differ from `plan` of `context`'s body in one decision:
///   - a gap not taken (an argument's first stretch with all its gaps: the
///     argument stays on the device);
///   - a prefetch issued one op earlier or later within its gap;
///   - a wait for a store dropped, or moved one op earlier or later;
///   - a wait for an argument's store-back dropped;
///   - a gap, or an argument with all its gaps, in another tier;
///   - a gap not in the plan taken, as the planner times it on an idle
///     link (an argument's first stretch: the argument kept in the
///     fastest tier; a later gap only of an argument already kept), only
///     to be paired.
/// Adding a wait is left out: with copies in program order it never makes
/// a step shorter.
std::vector<NeighbourPlan> getNeighbourPlans(const OffloadPlan &plan,
                                             const PlanningContext &context);
/// The plans that differ from `plan` in where one store is issued: one op
/// earlier or later, from the op that makes its data final to the last
/// use before the gap. The search tries them only where no other move
/// helps: with first improvement, the moves offered decide where a search
/// ends, and offered with the others they led it to worse ends.
std::vector<NeighbourPlan> getStoreMoves(const OffloadPlan &plan,
                                         const PlanningContext &context);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_PLANNEIGHBOURS_H
