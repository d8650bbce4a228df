//===- OptimalitySurvey.h - The planner against the exact optimum -*- C++ -*-=//
//
// Draws seeded random functions and hardware (RandomProgram.h), and at
// budgets between each function's memory lower bound and its peak without
// offload plans it with `ho-plan-offload` (policy hyperoffload, as users get
// it) and with the exact search (ExactPlan.h), both scored alike: simulated
// on the ideal allocator in the budget, fitting when the run and its static
// offsets stay within it. `hyperoffload optimality` prints the statistics;
// ExactPlanTest holds the planner to them.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_OPTIMALITYSURVEY_H
#define HYPEROFFLOAD_COMPARE_OPTIMALITYSURVEY_H

#include "hyperoffload/Planning/ExactPlan.h"
#include "hyperoffload/Workloads/RandomProgram.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <vector>

namespace mlir {
namespace ho {

struct OptimalitySurveyOptions {
  /// Functions drawn, from seeds firstSeed, firstSeed + 1, ...
  unsigned functions = 100;
  uint64_t firstSeed = 0;
  workloads::RandomFunctionOptions function = {6, 14};
  /// One link, one queue, no latency by default: the setting in which the
  /// exact search is cheapest and its optimum easiest to check by hand.
  workloads::RandomTargetOptions target = {1, 1, 1, false};
  /// Budgets per function, evenly spaced from the memory lower bound
  /// (included) towards the peak without offload (excluded, where nothing
  /// moves).
  unsigned budgetsPerFunction = 3;
  ExactSearchLimits limits;
  /// Whether the planner searches around its plan (PlannerOptions::
  /// localSearch); off, the survey shows what the search adds.
  bool localSearch = true;
};

/// One function at one budget.
struct OptimalityCase {
  uint64_t seed = 0;
  unsigned ops = 0;
  int64_t budget = 0;
  int64_t memoryBound = 0;
  int64_t peak = 0;
  /// The exact search's verdict, and its step time when it found a plan.
  ExactPlanResult exact;
  /// The planner's step time, when its plan fits.
  std::optional<double> plannerTime;
  /// The time lower bound (LowerBounds.h) at this budget, and the one with
  /// the deadlines at the points of excess.
  double timeBound = 0;
  double tighterTimeBound = 0;
  /// The planner's simulated live peak: how much of the budget it used.
  int64_t plannerPeak = 0;
};

/// Mean, median, 90th percentile and maximum of some ratios, and how many
/// of them are 1 (within rounding).
struct RatioDistribution {
  unsigned count = 0;
  double mean = 0, median = 0, p90 = 0, max = 0;
  unsigned ones = 0;
};
RatioDistribution describeRatios(std::vector<double> ratios);

struct OptimalityStatistics {
  unsigned cases = 0;
  unsigned optimal = 0, infeasible = 0, gaveUp = 0, notSearched = 0;
  /// Cases the exact search found a plan for that the planner missed, and
  /// the other way round.
  unsigned plannerMissed = 0, plannerOnlyFits = 0;
  /// Over the cases with both a planner plan and a proven optimum.
  std::vector<double> plannerOverExact;
  /// Over the proven optima: the optimum over the time bound, and over the
  /// one with deadlines.
  std::vector<double> exactOverBound;
  std::vector<double> exactOverTighterBound;
  /// Planned cases that left more than 3% of the budget unused.
  unsigned budgetUnused = 0;
};

/// The target and function of `seed` in the survey.
struct SurveyFunction {
  Target target;
  OwningOpRef<ModuleOp> module;
};
SurveyFunction drawSurveyFunction(MLIRContext &context,
                                  const OptimalitySurveyOptions &options,
                                  uint64_t seed);

/// Runs the survey; `onFunction(done, total)` is called after each
/// function.
std::vector<OptimalityCase> runOptimalitySurvey(
    MLIRContext &context, const OptimalitySurveyOptions &options,
    llvm::function_ref<void(unsigned, unsigned)> onFunction = {});

OptimalityStatistics summarizeOptimality(llvm::ArrayRef<OptimalityCase> cases);

/// The statistics and every case, as JSON.
llvm::json::Value toJSON(const OptimalitySurveyOptions &options,
                         llvm::ArrayRef<OptimalityCase> cases);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_OPTIMALITYSURVEY_H
