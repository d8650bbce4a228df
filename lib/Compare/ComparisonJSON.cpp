//===- ComparisonJSON.cpp - A policy comparison as JSON -------------------===//
//
// The schema is documented in docs/Compare.md; bump kComparisonSchemaVersion
// when a field changes meaning or goes away.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Simulation/Report.h"

using namespace mlir;
using namespace mlir::ho;

static llvm::json::Value toJSON(std::optional<double> value) {
  return value ? llvm::json::Value(*value) : llvm::json::Value(nullptr);
}

/// The distribution over drawn routing steps.
static llvm::json::Object stepsToJSON(const StepStatistics &steps) {
  return llvm::json::Object{
      {"steps", static_cast<int64_t>(steps.steps)},
      {"devices", static_cast<int64_t>(steps.devices)},
      {"mean_step_time_s", steps.mean},
      {"p50_step_time_s", steps.p50},
      {"p99_step_time_s", steps.p99},
      {"device_mean_step_time_s", steps.deviceMean},
      {"expert_hit_rate", steps.hitRate},
      {"experts_picked", static_cast<int64_t>(steps.expertsPicked)},
      {"experts_fetched_on_demand",
       static_cast<int64_t>(steps.expertsFetchedOnDemand)},
      {"block_hit_rate", steps.blockHitRate},
      {"blocks_selected", static_cast<int64_t>(steps.blocksSelected)},
      {"blocks_fetched_on_demand",
       static_cast<int64_t>(steps.blocksFetchedOnDemand)},
      {"peak_footprint_bytes", steps.peakFootprintBytes},
      {"fits", !steps.outOfMemory},
      {"overlaps", static_cast<int64_t>(steps.overlaps)},
  };
}

static llvm::json::Value runToJSON(const PolicyComparison &comparison,
                                   const PolicyRun &run) {
  const SimulationResult &result = run.result;
  llvm::json::Object object{
      {"name", stringifyComparedPolicy(run.policy)},
      {"mode", stringifyExecutionMode(run.simulation.mode)},
      {"allocator", stringifyAllocatorKind(run.simulation.allocator)},
      {"step_time_s", result.stepTime},
      {"slowdown", toJSON(comparison.getSlowdown(run))},
      {"compute_time_s", result.computeTime},
      {"stall_time_s", result.stallTime},
      {"stall_count", static_cast<int64_t>(result.stallCount)},
      {"host_overhead_time_s", result.hostOverheadTime},
      {"allocator_stalls", static_cast<int64_t>(result.allocatorStalls)},
      {"allocator_stall_time_s", result.allocatorStallTime},
      {"released_bytes", result.releasedBytes},
      {"remapped_pages", result.remappedPages},
      {"peak_live_bytes", result.peakLiveBytes},
      {"peak_footprint_bytes", result.peakFootprintBytes},
      {"peak_reduction", toJSON(comparison.getPeakReduction(run))},
      {"traffic", trafficToJSON(result)},
      {"time_bound_s", comparison.getTimeBound(run)},
      {"gap_to_time_bound", toJSON(comparison.getGap(run))},
      {"fits", comparison.fits(run)},
      {"overlaps", static_cast<int64_t>(run.result.overlaps)},
      {"safe", comparison.isSafe(run)},
      {"runnable", !run.result.notRunnable},
  };
  // Only functions with routed ops have a distribution over steps.
  if (run.steps)
    object["routing_steps"] = stepsToJSON(*run.steps);
  return object;
}

llvm::json::Value ho::comparisonToJSON(const PolicyComparison &comparison) {
  const LowerBounds &bounds = comparison.bounds;
  llvm::json::Array runs;
  for (const PolicyRun &run : comparison.runs)
    runs.push_back(runToJSON(comparison, run));
  llvm::json::Array skipped;
  for (const SkippedPolicy &policy : comparison.skipped)
    skipped.push_back(llvm::json::Object{
        {"policy", stringifyComparedPolicy(policy.policy)},
        {"reason", policy.reason},
    });
  llvm::json::Value perturbation = nullptr;
  if (const std::optional<Perturbation> &given = comparison.perturbation)
    perturbation = llvm::json::Object{
        {"link_bandwidth", given->linkBandwidth},
        {"compute_speed", given->computeSpeed},
        {"jitter", given->jitter},
        {"seed", static_cast<int64_t>(given->seed)},
    };
  llvm::json::Object object{
      {"perturbation", std::move(perturbation)},
      {"version", kComparisonSchemaVersion},
      {"function", comparison.function},
      {"target", comparison.target.name},
      {"budget_bytes", comparison.budget},
      {"kv_cache_bytes", comparison.kvCacheBytes},
      {"lower_bounds",
       llvm::json::Object{
           {"memory_bytes", bounds.memoryBytes},
           {"fits_budget", bounds.fitsBudget()},
           {"compute_time_s", bounds.computeSeconds},
           {"time_s", bounds.getTimeSeconds()},
           {"deadline_time_s", bounds.deadlineSeconds},
           {"copied_arguments_deadline_time_s",
            bounds.copiedArgumentsDeadlineSeconds},
       }},
      {"baseline",
       llvm::json::Object{
           {"step_time_s", comparison.baseline.stepTime},
           {"peak_footprint_bytes", comparison.baseline.peakFootprintBytes},
       }},
      {"policies", std::move(runs)},
      {"skipped", std::move(skipped)},
  };
  if (const std::optional<StepStatistics> &steps = comparison.baselineSteps) {
    object["routing"] = llvm::json::Object{
        {"distribution", describeRouting(comparison.routing)},
        {"seed", static_cast<int64_t>(comparison.routing.seed)},
        {"predictor_accuracy", comparison.routing.predictorAccuracy},
    };
    (*object.getObject("baseline"))["routing_steps"] = stepsToJSON(*steps);
  }
  if (const std::optional<Admission> &admission = comparison.admission)
    object["admission"] = llvm::json::Object{
        {"requested_sequences", admission->requested},
        {"admitted_sequences", admission->admitted},
        {"step_time_s", admission->stepTime},
        {"tokens_per_second", admission->tokensPerSecond},
    };
  return object;
}
