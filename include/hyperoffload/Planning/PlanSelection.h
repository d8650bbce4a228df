//===- PlanSelection.h - Which plan ho-plan-offload writes ------*- C++ -*-===//
//
// A policy's plan is an estimate made on the planner's own timeline; the
// simulator has the last word. For the hyperoffload policy, candidates are
// written into copies of the function and simulated in the budget, with the
// static arena they need: the planner's plan (refitted to a lowered budget
// when the arena overflows), group placements (pt2, naive, distance,
// window, streamed weights with resident layers) and, when nothing else
// fits, the least-memory plan; on small functions, the fastest of them is
// then improved one decision at a time (PlanNeighbours.h). While the best
// plan stalls, the same search runs on rewritten copies of the function:
// its argument updates moved early (EagerUpdates.h), then its large weights
// in column blocks (ColumnBlocks.h). Candidates are compared finished: with
// their fetches that start on an idle link issued earlier, checked on the
// simulator (StarvedPrefetches.h). The fastest that fits is written; its copy,
// with premature prefetches delayed and waits added where the run would
// overflow, becomes the function's body. Baselines are written as their
// policies place transfers.
//
// It calls the simulator, which depends on the analyses: Planning sits
// above both.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_PLANNING_PLANSELECTION_H
#define HYPEROFFLOAD_PLANNING_PLANSELECTION_H

#include "hyperoffload/Planning/ExactPlan.h"
#include "hyperoffload/Planning/OffloadPlan.h"
#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace mlir {
namespace ho {

// Placements of run-time selections (lib/Planning).
struct BlockStaging;
class PlanningContext;
struct RoutedStaging;

/// Chooses and writes the plan of one function at a time for a policy.
class PlanSelector {
public:
  /// `leastMemory` asks the hyperoffload policy for its least-memory plan
  /// outright. Trials of functions with ho.routed ops draw uniform routing
  /// and predict it with `predictorAccuracy`.
  PlanSelector(OffloadPolicy policy, bool leastMemory,
               double predictorAccuracy = RoutingOptions().predictorAccuracy)
      : policy(policy), leastMemory(leastMemory),
        routing(getPlanningRouting(predictorAccuracy)) {}

  /// `plan` written into a copy of a function as the pass writes it, and
  /// simulated in a budget on the ideal allocator, with the arena its static
  /// memory plan needs.
  struct Trial {
    OwningOpRef<func::FuncOp> planned;
    FailureOr<SimulationResult> result;
    int64_t arena = 0;
    /// With ho.routed ops: the run over drawn steps, which scores it.
    std::optional<StepStatistics> steps;
  };
  struct ChosenPlan {
    OffloadPlan plan;
    /// Its trial, when one ran: the planned copy is what the pass writes.
    std::optional<Trial> trial;
    /// The exact policy's search: its proof status and effort.
    std::optional<ExactPlanResult> exact;
    /// Whether the trial is what the pass writes: the last repair,
    /// issueStarvedPrefetchesEarlier, has been tried on it.
    bool finished = false;
  };

  /// The plan to write for `function` under `options`.
  ChosenPlan choose(func::FuncOp function, const Target &target,
                    const PlannerOptions &options);
  /// Writes `chosen` into `function`; returns whether the simulated run
  /// fits `budget` (always false for the baselines, which do not check).
  bool write(func::FuncOp function, const Target &target, int64_t budget,
             ChosenPlan chosen);

private:
  /// The exact policy's plan: the fastest that fits, with its trial.
  ChosenPlan chooseExact(func::FuncOp function, const Target &target,
                         const PlannerOptions &options);
  /// The hyperoffload plan of `function` with its ops in their order.
  ChosenPlan chooseInBodyOrder(func::FuncOp function, const Target &target,
                               const PlannerOptions &options);
  Trial runTrial(func::FuncOp function, const Target &target, int64_t budget,
                 const OffloadPlan &plan);

  struct FittedPlan {
    /// What it was planned with: the budget may be lowered.
    PlannerOptions options;
    OffloadPlan plan;
    /// The trial of `plan` itself in the original budget, when one ran.
    std::optional<Trial> trial;
  };
  FittedPlan fitPlanToBudget(func::FuncOp function, const Target &target,
                             PlannerOptions options);
  /// The planner's own plan of `function` fitted to the budget, with
  /// early store waits or, if that does not fit, late ones: what
  /// chooseInBodyOrder starts from. chooseFitted adds its trial.
  FittedPlan fitInBodyOrder(func::FuncOp function, const Target &target,
                            const PlannerOptions &options);
  ChosenPlan chooseFitted(func::FuncOp function, const Target &target,
                          const PlannerOptions &options);
  /// The fastest plan of the window policy in `streaming` with some
  /// layers' weights resident, that fits `budget`.
  std::optional<ChosenPlan> chooseResidentLayers(func::FuncOp function,
                                                 const Target &target,
                                                 int64_t budget,
                                                 PlannerOptions streaming);
  /// The fastest variant of the least-memory plan that fits, else the one
  /// with the least memory.
  ChosenPlan chooseLeastMemoryPlan(func::FuncOp function, const Target &target,
                                   const PlannerOptions &options);
  void delayPrematurePrefetches(func::FuncOp function, const Target &target,
                                int64_t budget);
  /// Makes compute wait for the stores still copying where the run first
  /// overflows the budget, and repeats; returns whether the run then fits.
  bool waitForStoresAtOverflows(func::FuncOp function, const Target &target,
                                int64_t budget);
  /// Issues earlier each prefetch that starts on a link that went idle
  /// before it was issued, the earliest first, while the run still fits;
  /// replaces `chosen`'s trial with the fastest plan seen if it is faster.
  void issueStarvedPrefetchesEarlier(ChosenPlan &chosen, const Target &target,
                                     int64_t budget);
  struct PlanScore {
    double stepTime;
    double stallTime;
  };
  /// Finishes `chosen` as the pass writes it (the last repair, once) and
  /// returns its score, if it fits.
  std::optional<PlanScore> finish(ChosenPlan &chosen, const Target &target,
                                  int64_t budget);
  /// Takes `candidate` as `best` when, both finished, it fits and is
  /// faster; `bestScore` is then best's finished score.
  bool replaceIfFaster(ChosenPlan candidate, const Target &target,
                       int64_t budget, ChosenPlan &best,
                       std::optional<PlanScore> &bestScore);
  /// Plans copies of `function` with its block-read tensors left in a tier
  /// (BlockStaging.h), their blocks fetched on the selection or on a
  /// prediction, and with `experts` staged too when given, and takes the
  /// faster if it fits and beats `best`; returns that copy, or null when
  /// neither did. A placement already in `taken` is not tried again;
  /// `taken` becomes the one taken.
  OwningOpRef<func::FuncOp>
  chooseBlockStaging(func::FuncOp function, const Target &target,
                     const PlannerOptions &options,
                     const std::optional<RoutedStaging> &experts,
                     ChosenPlan &best, std::optional<PlanScore> &bestScore,
                     std::optional<BlockStaging> &taken);
  /// Plans copies of `function` with some experts of its routed ops left
  /// in a tier (RoutedStaging.h) and takes the fastest that fits and beats
  /// `best`; returns that copy, or null when none did, and sets `taken`.
  OwningOpRef<func::FuncOp>
  chooseRoutedStaging(func::FuncOp function, const Target &target,
                      const PlannerOptions &options, ChosenPlan &best,
                      std::optional<PlanScore> &bestScore,
                      std::optional<RoutedStaging> &taken);
  /// Whether plans that fetch on a prediction may beat fetching on the
  /// picks: the predictor is right at least sometimes.
  bool isPredictionWorthTrying() const;
  /// How the planner's fitted plan of a staged copy runs: how resident
  /// expert counts are compared before the full search.
  std::optional<PlanScore> scoreFitted(func::FuncOp function,
                                       const Target &target,
                                       const PlannerOptions &options);
  /// Plans the staged `copy` with the full search and takes it as `best`
  /// as replaceIfFaster does; returns the copy then, else null.
  OwningOpRef<func::FuncOp> takeIfFaster(OwningOpRef<func::FuncOp> copy,
                                         const Target &target,
                                         const PlannerOptions &options,
                                         ChosenPlan &best,
                                         std::optional<PlanScore> &bestScore);
  /// How a trial ran, when its static memory plan fits `budget` and no
  /// prefetch starts before its store completes.
  static std::optional<PlanScore> scoreTrial(const Trial &trial,
                                             int64_t budget);
  /// How the function is simulated on trial: the ideal allocator in the
  /// budget, with the routing trials draw.
  SimulationOptions getTrialSimulation(int64_t budget) const;
  ChosenPlan preferFasterGroupPlacement(func::FuncOp function,
                                        const Target &target,
                                        PlannerOptions options,
                                        FittedPlan fitted);
  /// Improves `chosen` by local search (descend), and the least-memory
  /// plan the same way, and keeps the faster; the larger the function, the
  /// fewer trials (kLocalSearchOps).
  void improveLocally(func::FuncOp function, const Target &target,
                      const PlannerOptions &options, ChosenPlan &chosen);
  /// Replaces `chosen` while a plan one change away from it
  /// (PlanNeighbours.h) fits `budget` and is faster, the first such found;
  /// counts the plans tried in `trials` and stops at `maxTrials`.
  void descend(func::FuncOp function, const Target &target, int64_t budget,
               const PlanningContext &context, ChosenPlan &chosen,
               unsigned &trials, unsigned maxTrials);

  OffloadPolicy policy;
  bool leastMemory;
  RoutingOptions routing;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_PLANSELECTION_H
