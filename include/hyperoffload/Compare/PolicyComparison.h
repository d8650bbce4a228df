//===- PolicyComparison.h - Every offload policy on one graph ---*- C++ -*-===//
//
// Scores the offload policies on the same function, target and budget: no
// offload, the reactive and paged runtimes, and the plans of
// ho-plan-offload. Each policy runs on its own clone of the module, planned
// by the passes that make it and simulated with the allocator its real
// counterpart uses, as utils/compare-policies.py does, so that the numbers
// agree with docs/Results.md. docs/Compare.md describes the policies and the
// JSON schema of comparisonToJSON.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_POLICYCOMPARISON_H
#define HYPEROFFLOAD_COMPARE_POLICYCOMPARISON_H

#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Compare/Admission.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Simulation/SteppedSimulation.h"
#include "hyperoffload/Target/MemoryBudget.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

enum class ComparedPolicy {
  /// No offload: the input as written, on the ideal allocator.
  None,
  /// No plan: fetch on demand, evict least recently used, on PyTorch's
  /// caching allocator or with expandable segments, whichever runs faster.
  Reactive,
  /// vLLM's paged KV cache: KV blocks swapped on demand, paged allocator.
  Paged,
  /// The policies of ho-plan-offload. Naive and Window are runtimes in real
  /// life and run on a runtime allocator as Reactive does; the others are
  /// compiled plans with static offsets from ho-assign-offsets.
  Naive,
  Window,
  Distance,
  PT2,
  /// PyTorch's activation offloading in its shipped configuration: offload
  /// and reload on the compute stream (activation_offload_separate_stream
  /// and activation_reload_prefetch off), so each copy blocks compute.
  PT2Default,
  /// The --hyperoffload pipeline without the rewrites that change the
  /// program (eager updates, column blocks): what scheduling alone gains.
  HyperOffloadScheduleOnly,
  /// The passes of the --hyperoffload pipeline: refine the order to lower
  /// the peak, plan, refine the order to hide stalls, assign offsets.
  HyperOffload,
};

/// Every policy, in the order a comparison lists them.
llvm::ArrayRef<ComparedPolicy> getComparedPolicies();
llvm::StringRef stringifyComparedPolicy(ComparedPolicy policy);
std::optional<ComparedPolicy> parseComparedPolicy(llvm::StringRef name);

/// Hardware other than the one a plan was made for: every policy is
/// planned for the target, then scored on it with the links' bandwidth and
/// the device's speed (peak FLOP/s and HBM bandwidth) scaled, and each op's
/// time jittered.
struct Perturbation {
  double linkBandwidth = 1;
  double computeSpeed = 1;
  double jitter = 0;
  uint64_t seed = 1;
};

/// Parses "link=0.8,compute=1.25,jitter=0.1,seed=7" (any subset, in any
/// order). The error names the key and what was expected.
llvm::Expected<Perturbation> parsePerturbation(llvm::StringRef text);
/// `target` with the perturbation's factors applied.
Target perturbTarget(const Target &target, const Perturbation &perturbation);

struct ComparisonOptions {
  /// The hardware as the passes take it: a preset or a JSON file (the
  /// default preset when empty), and field overrides ("links.host.x=1").
  std::string hw;
  std::vector<std::string> hwOverrides;
  /// The device memory every policy must fit in, as the passes take it
  /// (44GB, 0.75, 75%); the HBM capacity when empty.
  std::string budget;
  /// The policies to run, in this order; all of them when empty.
  std::vector<ComparedPolicy> policies;
  /// The policies that run, in order.
  llvm::ArrayRef<ComparedPolicy> getPolicies() const {
    return policies.empty() ? getComparedPolicies()
                            : llvm::ArrayRef<ComparedPolicy>(policies);
  }
  /// Keep each run's timeline, for traces.
  bool recordTimelines = false;
  /// Score the plans on perturbed hardware; overlaps in a static plan are
  /// then counted (PolicyRun::result.overlaps) rather than errors.
  std::optional<Perturbation> perturbation;
  /// Functions with ho.routed ops: the routing every run draws (its
  /// predictor accuracy is also what the planner is told), and the steps
  /// each policy is run for on every device of the expert-parallel group.
  RoutingOptions routing;
  unsigned routingSteps = kDefaultRoutingSteps;
  static constexpr unsigned kDefaultRoutingSteps = 20;
  /// The workload the module was built from, when it was: a decode step
  /// compared with `paged` also gets vLLM's admission (Admission.h).
  std::optional<workloads::WorkloadOptions> workload;
};

/// One policy's run.
struct PolicyRun {
  ComparedPolicy policy;
  /// The mode, allocator and budget it was simulated with.
  SimulationOptions simulation;
  SimulationResult result;
  /// The module the policy planned; null for the policies that run the
  /// input as it is (none and the runtimes). `result` points into it.
  OwningOpRef<ModuleOp> planned;
  /// The lower bounds of the program the run executes, where that is not
  /// the input's: a `hyperoffload` plan refines the op order (and may
  /// rewrite the program), and the deadlines follow the order. Null for the
  /// runs that keep the input's order, whose bounds are the input's.
  std::optional<LowerBounds> bounds;
  /// Wall-clock seconds spent planning and simulating.
  double seconds = 0;
  /// Functions with ho.routed ops: the run over drawn steps and devices;
  /// `result` is step 0 on device 0.
  std::optional<StepStatistics> steps;
};

/// A policy that could not run on the input, and why: the diagnostics its
/// planning or simulation emitted (a runtime mode on IR that already holds
/// transfers, a plan the pipeline's checks reject).
struct SkippedPolicy {
  ComparedPolicy policy;
  std::string reason;
};

struct PolicyComparison {
  // Move-only, as its runs own their modules; saying so lets containers
  // move it.
  PolicyComparison() = default;
  PolicyComparison(PolicyComparison &&) = default;
  PolicyComparison &operator=(PolicyComparison &&) = default;
  PolicyComparison(const PolicyComparison &) = delete;
  PolicyComparison &operator=(const PolicyComparison &) = delete;

  Target target;
  /// What the runs were scored on: `target`, perturbed when asked.
  Target simulatedTarget;
  std::optional<Perturbation> perturbation;
  /// The routing the runs drew, for functions with ho.routed ops.
  RoutingOptions routing;
  /// The budget in bytes.
  int64_t budget = 0;
  /// The function compared (the only one with a body).
  std::string function;
  /// The bytes of its KV-cache arguments (role "kv_cache"): the share of
  /// memory the paper's headline tracks.
  int64_t kvCacheBytes = 0;
  /// The policies that could not run, in the order asked; the others still
  /// ran.
  std::vector<SkippedPolicy> skipped;
  /// The lower bounds of the input function at the budget: every run is
  /// measured against the graph it was planned from.
  LowerBounds bounds;
  /// The input without offload, which reductions and slowdowns are
  /// measured against, whether or not `none` is among the runs.
  SimulationResult baseline;
  std::optional<StepStatistics> baselineSteps;
  std::vector<PolicyRun> runs;
  /// vLLM's admission at the budget, for a decode workload with `paged`.
  std::optional<Admission> admission;

  /// How much lower the run's peak footprint is than the baseline's, as a
  /// fraction (0.29 for 29% lower); std::nullopt when the baseline's is 0.
  std::optional<double> getPeakReduction(const PolicyRun &run) const;
  /// The run's step time over the baseline's; std::nullopt when that is 0.
  std::optional<double> getSlowdown(const PolicyRun &run) const;
  /// The bound the run is measured against: the time bound or, where
  /// higher, the deadlines for where the run finds the arguments.
  double getTimeBound(const PolicyRun &run) const {
    return getBounds(run).getTighterTimeSeconds(
        getArgumentResidence(run.simulation.mode));
  }
  /// The run's step time over that bound, minus 1.
  std::optional<double> getGap(const PolicyRun &run) const {
    return getBounds(run).getGap(run.result.stepTime,
                                 getArgumentResidence(run.simulation.mode));
  }
  /// The bounds of the program `run` executes: the input's unless the run
  /// reordered it. `--ho-report` on the planned file reports the same.
  const LowerBounds &getBounds(const PolicyRun &run) const {
    return run.bounds ? *run.bounds : bounds;
  }
  /// The units reports show bytes in: binary where the budget was given in
  /// them (getBudgetUnits).
  ByteUnits byteUnits = ByteUnits::Decimal;
  ByteUnits getByteUnits() const { return byteUnits; }
  /// Whether every allocation of the run fit in the budget.
  bool fits(const PolicyRun &run) const { return !run.result.outOfMemory; }
  /// Whether the run fit and no buffer of a static plan landed on a live
  /// one: what a slower or faster machine must not change.
  bool isSafe(const PolicyRun &run) const {
    return fits(run) && run.result.overlaps == 0;
  }
};

/// What a caller hears while a comparison runs, to show progress.
struct ComparisonProgress {
  /// The input's bounds are known; no policy has run yet.
  std::function<void(const PolicyComparison &)> started;
  /// `policy`, the `done`-th of `total`, has run (or could not: then the
  /// comparison's `skipped` says why).
  std::function<void(const PolicyComparison &, ComparedPolicy policy,
                     size_t done, size_t total)>
      finished;
};

/// Runs every policy of `options` on the function of `module` (which must
/// hold exactly one function with a body), each on its own clone. First
/// `module`'s embedded weights become arguments (ho-constants-as-arguments,
/// as the pipeline does it); otherwise it is left as it was, and the bounds
/// and the baseline point into it. Emits the
/// error through the context's diagnostics and fails when the hardware,
/// the budget or the function is invalid, or a pass or simulation fails.
FailureOr<PolicyComparison>
comparePolicies(ModuleOp module, const ComparisonOptions &options,
                const ComparisonProgress &progress = {});

/// The comparison as JSON, in the versioned schema of docs/Compare.md.
llvm::json::Value comparisonToJSON(const PolicyComparison &comparison);

/// The version of that schema; it changes when a field changes meaning or
/// goes away, not when one is added.
constexpr int64_t kComparisonSchemaVersion = 3;

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_POLICYCOMPARISON_H
