//===- OptimalitySurvey.cpp - The planner against the exact optimum -------===//

#include "hyperoffload/Compare/OptimalitySurvey.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Planning/PlanSelection.h"
#include "hyperoffload/Planning/StaticPlan.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ho;

/// Ratios within this of 1 count as equal: step times are sums of the same
/// floating-point terms in different orders.
static constexpr double kRatioTolerance = 1e-9;

/// The planner as `ho-plan-offload` runs it, written into a copy of
/// `function`: its step time and live peak when the copy fits `budget` on
/// the ideal allocator with its static offsets. Without rewrites: the exact
/// search keeps the ops in their order, and so does the planner here.
static std::optional<std::pair<double, int64_t>>
runPlanner(func::FuncOp function, const Target &target, int64_t budget,
           bool localSearch) {
  OwningOpRef<func::FuncOp> copy = function.clone();
  PlannerOptions options;
  options.budget = budget;
  options.allowRewrites = false;
  options.localSearch = localSearch;
  PlanSelector selector(OffloadPolicy::HyperOffload, /*leastMemory=*/false);
  selector.write(*copy, target, budget,
                 selector.choose(*copy, target, options));
  Block &body = copy->getBody().front();
  SimulationOptions simulation;
  simulation.allocator = AllocatorKind::Ideal;
  simulation.budget = budget;
  simulation.recordTimeline = false;
  FailureOr<SimulationResult> result = simulate(body, target, simulation);
  if (failed(result) || result->outOfMemory ||
      !result->prematurePrefetches.empty())
    return std::nullopt;
  if (!fitsStaticPlan(body, target, *result, budget))
    return std::nullopt;
  return std::make_pair(result->stepTime, result->peakLiveBytes);
}

SurveyFunction ho::drawSurveyFunction(MLIRContext &context,
                                      const OptimalitySurveyOptions &options,
                                      uint64_t seed) {
  workloads::RandomEngine rng(seed);
  SurveyFunction drawn;
  drawn.target = workloads::drawRandomTarget(rng, options.target);
  drawn.module = workloads::buildRandomFunction(context, rng, drawn.target,
                                                options.function);
  return drawn;
}

std::vector<OptimalityCase> ho::runOptimalitySurvey(
    MLIRContext &context, const OptimalitySurveyOptions &options,
    llvm::function_ref<void(unsigned, unsigned)> onFunction) {
  std::vector<OptimalityCase> cases;
  for (unsigned index = 0; index < options.functions; ++index) {
    uint64_t seed = options.firstSeed + index;
    SurveyFunction drawn = drawSurveyFunction(context, options, seed);
    const Target &target = drawn.target;
    auto function = *drawn.module->getOps<func::FuncOp>().begin();
    Block &body = function.getBody().front();
    int64_t memoryBound =
        computeMemoryBound(body, target, target.device.hbmCapacity).memoryBytes;
    int64_t peak = BufferLiveness(body, target.device.allocationGranularity)
                       .getPeakBytes();
    for (unsigned step = 0; step < options.budgetsPerFunction; ++step) {
      if (memoryBound >= peak)
        break;
      OptimalityCase survey;
      survey.seed = seed;
      survey.ops = std::distance(body.begin(), body.end()) - 1;
      survey.memoryBound = memoryBound;
      survey.peak = peak;
      survey.budget = memoryBound +
                      (peak - memoryBound) * step / options.budgetsPerFunction;
      LowerBounds bounds = computeLowerBounds(body, target, survey.budget);
      survey.timeBound = bounds.getTimeSeconds();
      survey.tighterTimeBound = bounds.getTighterTimeSeconds();
      survey.exact =
          searchExactPlan(function, target, survey.budget, options.limits);
      if (auto planned = runPlanner(function, target, survey.budget,
                                    options.localSearch)) {
        survey.plannerTime = planned->first;
        survey.plannerPeak = planned->second;
      }
      cases.push_back(std::move(survey));
    }
    if (onFunction)
      onFunction(index + 1, options.functions);
  }
  return cases;
}

RatioDistribution ho::describeRatios(std::vector<double> ratios) {
  RatioDistribution distribution;
  distribution.count = ratios.size();
  if (ratios.empty())
    return distribution;
  llvm::sort(ratios);
  double sum = 0;
  for (double ratio : ratios) {
    sum += ratio;
    distribution.ones += std::abs(ratio - 1) <= kRatioTolerance;
  }
  distribution.mean = sum / ratios.size();
  auto at = [&](double fraction) {
    size_t rank = static_cast<size_t>(std::ceil(fraction * ratios.size()));
    return ratios[std::max<size_t>(rank, 1) - 1];
  };
  distribution.median = at(0.5);
  distribution.p90 = at(0.9);
  distribution.max = ratios.back();
  return distribution;
}

OptimalityStatistics ho::summarizeOptimality(ArrayRef<OptimalityCase> cases) {
  OptimalityStatistics statistics;
  for (const OptimalityCase &survey : cases) {
    ++statistics.cases;
    const ExactPlanResult &exact = survey.exact;
    switch (exact.status) {
    case ExactStatus::Optimal:
      ++statistics.optimal;
      break;
    case ExactStatus::Infeasible:
      ++statistics.infeasible;
      break;
    case ExactStatus::GaveUp:
      ++statistics.gaveUp;
      break;
    case ExactStatus::NotSearched:
      ++statistics.notSearched;
      break;
    }
    if (exact.plan && !survey.plannerTime)
      ++statistics.plannerMissed;
    if (exact.status == ExactStatus::Infeasible && survey.plannerTime)
      ++statistics.plannerOnlyFits;
    if (survey.plannerTime &&
        survey.plannerPeak < 0.97 * static_cast<double>(survey.budget))
      ++statistics.budgetUnused;
    if (exact.status != ExactStatus::Optimal)
      continue;
    if (survey.plannerTime)
      statistics.plannerOverExact.push_back(*survey.plannerTime /
                                            exact.stepTime);
    if (survey.timeBound > 0) {
      statistics.exactOverBound.push_back(exact.stepTime / survey.timeBound);
      statistics.exactOverTighterBound.push_back(exact.stepTime /
                                                 survey.tighterTimeBound);
    }
  }
  return statistics;
}

llvm::json::Value ho::toJSON(const OptimalitySurveyOptions &options,
                             ArrayRef<OptimalityCase> cases) {
  OptimalityStatistics statistics = summarizeOptimality(cases);
  auto ratiosToJSON = [](const std::vector<double> &ratios) {
    RatioDistribution distribution = describeRatios(ratios);
    return llvm::json::Object{
        {"count", distribution.count},   {"mean", distribution.mean},
        {"median", distribution.median}, {"p90", distribution.p90},
        {"max", distribution.max},       {"ones", distribution.ones}};
  };
  llvm::json::Array rows;
  for (const OptimalityCase &survey : cases) {
    llvm::json::Object row{
        {"seed", static_cast<int64_t>(survey.seed)},
        {"ops", survey.ops},
        {"budget_bytes", survey.budget},
        {"memory_bound_bytes", survey.memoryBound},
        {"peak_bytes", survey.peak},
        {"time_bound_seconds", survey.timeBound},
        {"deadline_time_bound_seconds", survey.tighterTimeBound},
        {"exact_status", stringifyExactStatus(survey.exact.status)},
        {"exact_simulations", static_cast<int64_t>(survey.exact.simulations)},
        {"gaps", survey.exact.gaps}};
    if (survey.exact.plan)
      row["exact_seconds"] = survey.exact.stepTime;
    if (survey.plannerTime) {
      row["planner_seconds"] = *survey.plannerTime;
      row["planner_peak_bytes"] = survey.plannerPeak;
    }
    rows.push_back(std::move(row));
  }
  return llvm::json::Object{
      {"functions", options.functions},
      {"first_seed", static_cast<int64_t>(options.firstSeed)},
      {"min_ops", options.function.minOps},
      {"max_ops", options.function.maxOps},
      {"budgets_per_function", options.budgetsPerFunction},
      {"max_tiers", options.target.maxTiers},
      {"max_queues", options.target.maxQueues},
      {"link_overheads", options.target.linkOverheads},
      {"max_simulations", static_cast<int64_t>(options.limits.maxSimulations)},
      {"cases", statistics.cases},
      {"optimal", statistics.optimal},
      {"infeasible", statistics.infeasible},
      {"gave_up", statistics.gaveUp},
      {"not_searched", statistics.notSearched},
      {"planner_missed", statistics.plannerMissed},
      {"planner_only_fits", statistics.plannerOnlyFits},
      {"budget_unused", statistics.budgetUnused},
      {"planner_over_exact", ratiosToJSON(statistics.plannerOverExact)},
      {"exact_over_bound", ratiosToJSON(statistics.exactOverBound)},
      {"exact_over_deadline_bound",
       ratiosToJSON(statistics.exactOverTighterBound)},
      {"rows", std::move(rows)}};
}
