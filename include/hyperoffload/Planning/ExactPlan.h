//===- ExactPlan.h - The fastest plan that fits, proven ---------*- C++ -*-===//
//
// For small functions: a branch and bound over every plan the planner could
// write, each scored by the simulator, that returns the fastest one that
// fits the budget together with a proof status. It is the oracle that the
// planner is measured against (docs/Planning.md, "The exact optimum").
//
// The space: every gap the planner may take (PlanningContext::enumerateGaps)
// on every tier the target reaches, not taken, or taken with
//   - the store issued after any op from the one that makes the data to
//     the use before the gap (none when the tier already holds a current
//     copy): a store may overlap the last reads;
//   - compute waiting for that store before no op, or before any op from
//     the first in the gap to the one the prefetch is issued before;
//   - the prefetch issued before any op in the gap, and awaited right before
//     the next use; or, for a computed result handed back, no fetch at all
//     (the caller receives it in the tier).
// An argument's first stretch is fetched before any op up to its first
// use, and compute may wait for the store-back of a result aliasing it
// before any op after its last use; its later gaps come with its first
// stretch, in the same tier. The ops keep their order.
//
// A plan fits when its simulated run on the ideal allocator never exceeds
// the budget, starts no prefetch before its store has completed, and its
// static offsets (assignOffsets) fit in the budget. Its score is the
// simulated step time.
//
// The search decides one gap at a time: where the plan decided so far goes
// over the budget, a gap that relieves that point, else the next. Its cuts
// rest on one fact of the simulator with one copy queue per link direction,
// where copies run in program order: adding a gap, or a wait, never makes a
// step shorter. So a partial plan as slow as the best found is cut; so is
// one that some point stays over the budget in even if every undecided gap
// kept its buffer off the device as long as it could; and so is an option
// that cannot relieve the point where the plan first goes over the budget
// by enough. Options that relieve no point over the budget, and waits
// before ops within it, cannot bring the live bytes under the budget: they
// are left out, unless no plan fits without them (the static arena's
// packing may need them), when every plan is searched again. With
// several queues per direction a copy's queue depends on timing and the
// cuts may, rarely, cut the optimum. ExactPlanTest checks the search
// against enumeration without cuts.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_PLANNING_EXACTPLAN_H
#define HYPEROFFLOAD_PLANNING_EXACTPLAN_H

#include "hyperoffload/Planning/OffloadPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace ho {

enum class ExactStatus {
  /// The plan is the fastest in the space that fits.
  Optimal,
  /// No plan in the space fits the budget.
  Infeasible,
  /// The search stopped at `maxSimulations`: the plan, if any, is the best
  /// found, not proven optimal.
  GaveUp,
  /// Not searched: more gaps than `maxGaps`, or ops the space does not
  /// cover (routed experts and block gathers, whose picks are drawn).
  NotSearched,
};

llvm::StringRef stringifyExactStatus(ExactStatus status);

struct ExactPlanResult {
  ExactStatus status = ExactStatus::NotSearched;
  /// Why it was not searched, for a diagnostic.
  std::string reason;
  /// The fastest plan found that fits, and its simulated step time.
  std::optional<OffloadPlan> plan;
  double stepTime = 0;
  /// The gaps searched over (those that can keep a buffer off the device
  /// at a point over the budget), and the plans simulated.
  unsigned gaps = 0;
  uint64_t simulations = 0;
};

/// Searches the plans of `function` (which it does not change) on `target`
/// for the fastest that fits `budget` bytes.
ExactPlanResult searchExactPlan(func::FuncOp function, const Target &target,
                                int64_t budget,
                                const ExactSearchLimits &limits = {});

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_EXACTPLAN_H
