//===- PolicyComparison.cpp - Every offload policy on one graph -----------===//

#include "hyperoffload/Compare/PolicyComparison.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Target/MemoryBudget.h"
#include "hyperoffload/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::ho;

static const ComparedPolicy kPolicies[] = {
    ComparedPolicy::None,
    ComparedPolicy::Reactive,
    ComparedPolicy::Paged,
    ComparedPolicy::Naive,
    ComparedPolicy::Window,
    ComparedPolicy::Distance,
    ComparedPolicy::PT2,
    ComparedPolicy::PT2Default,
    ComparedPolicy::HyperOffloadScheduleOnly,
    ComparedPolicy::HyperOffload};

llvm::ArrayRef<ComparedPolicy> ho::getComparedPolicies() { return kPolicies; }

llvm::StringRef ho::stringifyComparedPolicy(ComparedPolicy policy) {
  switch (policy) {
  case ComparedPolicy::None:
    return "none";
  case ComparedPolicy::Reactive:
    return "reactive";
  case ComparedPolicy::Paged:
    return "paged";
  case ComparedPolicy::Naive:
    return "naive";
  case ComparedPolicy::Window:
    return "window";
  case ComparedPolicy::Distance:
    return "distance";
  case ComparedPolicy::PT2:
    return "pt2";
  case ComparedPolicy::PT2Default:
    return "pt2-default";
  case ComparedPolicy::HyperOffloadScheduleOnly:
    return "hyperoffload-schedule";
  case ComparedPolicy::HyperOffload:
    return "hyperoffload";
  }
  llvm_unreachable("unknown policy");
}

std::optional<ComparedPolicy> ho::parseComparedPolicy(llvm::StringRef name) {
  for (ComparedPolicy policy : kPolicies)
    if (stringifyComparedPolicy(policy) == name)
      return policy;
  return std::nullopt;
}

std::optional<double>
PolicyComparison::getPeakReduction(const PolicyRun &run) const {
  if (baseline.peakFootprintBytes == 0)
    return std::nullopt;
  return 1.0 - static_cast<double>(run.result.peakFootprintBytes) /
                   baseline.peakFootprintBytes;
}

std::optional<double>
PolicyComparison::getSlowdown(const PolicyRun &run) const {
  if (baseline.stepTime == 0)
    return std::nullopt;
  return run.result.stepTime / baseline.stepTime;
}

//===----------------------------------------------------------------------===//
// Perturbed hardware
//===----------------------------------------------------------------------===//

llvm::Expected<Perturbation> ho::parsePerturbation(llvm::StringRef text) {
  Perturbation perturbation;
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "perturbation '" + text + "': " + message);
  };
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (items.empty())
    return fail("expected key=value pairs: link, compute, jitter, seed");
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    double number = 0;
    if (key == "seed") {
      if (value.getAsInteger(10, perturbation.seed))
        return fail("seed: expected a non-negative integer, got '" + value +
                    "'");
      continue;
    }
    if (value.getAsDouble(number) || !std::isfinite(number))
      return fail(key + ": expected a number, got '" + value + "'");
    if (key == "link" || key == "compute") {
      if (number <= 0 || number > 1e3)
        return fail(key + ": expected a factor in (0, 1000], got " + value);
      (key == "link" ? perturbation.linkBandwidth : perturbation.computeSpeed) =
          number;
    } else if (key == "jitter") {
      if (number < 0 || number >= 1)
        return fail("jitter: expected a fraction in [0, 1), got " + value);
      perturbation.jitter = number;
    } else {
      return fail("unknown key '" + key +
                  "'; valid keys are link, compute, jitter, seed");
    }
  }
  return perturbation;
}

Target ho::perturbTarget(const Target &target,
                         const Perturbation &perturbation) {
  Target perturbed = target;
  DeviceModel &device = perturbed.device;
  for (double *speed : {&device.peakFlopsF32, &device.peakFlopsBF16,
                        &device.peakFlopsFP8, &device.hbmBandwidth})
    *speed *= perturbation.computeSpeed;
  for (std::optional<LinkModel> &link : perturbed.links)
    if (link) {
      link->bandwidthToDevice *= perturbation.linkBandwidth;
      link->bandwidthFromDevice *= perturbation.linkBandwidth;
    }
  return perturbed;
}

//===----------------------------------------------------------------------===//
// How each policy runs
//===----------------------------------------------------------------------===//

/// The planner policy of a policy that ho-plan-offload makes.
static std::optional<OffloadPolicy> getPlannerPolicy(ComparedPolicy policy) {
  switch (policy) {
  case ComparedPolicy::None:
  case ComparedPolicy::Reactive:
  case ComparedPolicy::Paged:
    return std::nullopt;
  case ComparedPolicy::Naive:
    return OffloadPolicy::Naive;
  case ComparedPolicy::Window:
    return OffloadPolicy::Window;
  case ComparedPolicy::Distance:
    return OffloadPolicy::Distance;
  case ComparedPolicy::PT2:
  case ComparedPolicy::PT2Default:
    return OffloadPolicy::PT2;
  case ComparedPolicy::HyperOffloadScheduleOnly:
  case ComparedPolicy::HyperOffload:
    return OffloadPolicy::HyperOffload;
  }
  llvm_unreachable("unknown policy");
}

/// The mode and allocator of the policy's real counterpart: the runtimes
/// (naive and window included) allocate as they go, on PyTorch's caching
/// allocator (comparePolicies also tries expandable segments); compiled
/// plans carry a static memory plan.
static SimulationOptions getSimulationOptions(ComparedPolicy policy,
                                              int64_t budget) {
  SimulationOptions options;
  options.budget = budget;
  switch (policy) {
  case ComparedPolicy::None:
    options.allocator = AllocatorKind::Ideal;
    break;
  case ComparedPolicy::Reactive:
    options.mode = ExecutionMode::Reactive;
    options.allocator = AllocatorKind::Caching;
    break;
  case ComparedPolicy::Paged:
    options.mode = ExecutionMode::Paged;
    options.allocator = AllocatorKind::Paged;
    break;
  case ComparedPolicy::Naive:
  case ComparedPolicy::Window:
    options.allocator = AllocatorKind::Caching;
    break;
  case ComparedPolicy::Distance:
  case ComparedPolicy::PT2:
  case ComparedPolicy::PT2Default:
  case ComparedPolicy::HyperOffloadScheduleOnly:
  case ComparedPolicy::HyperOffload:
    options.allocator = AllocatorKind::Static;
    break;
  }
  return options;
}

/// A pass's options with the comparison's hardware and budget.
template <typename PassOptions>
static PassOptions getPassOptions(const ComparisonOptions &options) {
  return getTargetAndBudgetOptions<PassOptions>(options.hw, options.hwOverrides,
                                                options.budget);
}

/// Whether `policy` runs the `--hyperoffload` pipeline, which refines the
/// op order around the plan.
static bool isPipelinePolicy(ComparedPolicy policy) {
  return policy == ComparedPolicy::HyperOffload ||
         policy == ComparedPolicy::HyperOffloadScheduleOnly;
}

/// Plans `module` with `policy`, as utils/compare-policies.py does.
static LogicalResult plan(ModuleOp module, ComparedPolicy policy,
                          OffloadPolicy plannerPolicy,
                          const ComparisonOptions &options, bool everyLink) {
  PassManager pm(module->getName());
  bool pipeline = isPipelinePolicy(policy);
  if (pipeline) {
    auto lowerPeak = getPassOptions<RefineOrderOptions>(options);
    lowerPeak.hideStalls = false;
    pm.addPass(createRefineOrder(lowerPeak));
  }
  auto planOptions = getPassOptions<PlanOffloadOptions>(options);
  planOptions.policy = plannerPolicy;
  planOptions.rewrites = policy != ComparedPolicy::HyperOffloadScheduleOnly;
  planOptions.everyLink = everyLink;
  planOptions.predictorAccuracy = options.routing.predictorAccuracy;
  if (policy == ComparedPolicy::PT2Default) {
    planOptions.pt2ReloadPrefetch = false;
    planOptions.pt2SeparateStream = false;
  }
  pm.addPass(createPlanOffload(planOptions));
  if (pipeline) {
    auto hideStalls = getPassOptions<RefineOrderOptions>(options);
    hideStalls.lowerPeak = false;
    pm.addPass(createRefineOrder(hideStalls));
  }
  // With the budget, as the pipeline does, so that the layout is searched
  // harder when the first one exceeds it; a plan that misses the budget
  // still gets its offsets, and the simulation says that it does not fit.
  if (getSimulationOptions(policy, 0).allocator == AllocatorKind::Static) {
    auto offsets = getPassOptions<AssignOffsetsOptions>(options);
    offsets.allowOverBudget = true;
    pm.addPass(createAssignOffsets(offsets));
  }
  // The pipeline's own checks: a plan --hyperoffload would reject is not
  // shown as one that runs.
  if (pipeline)
    pm.addPass(
        createVerifySchedule(getPassOptions<VerifyScheduleOptions>(options)));
  return pm.run(module);
}

/// The one function of `module` with a body.
static FailureOr<FunctionOpInterface> getComparedFunction(ModuleOp module) {
  SmallVector<FunctionOpInterface> functions;
  for (auto function : module.getOps<FunctionOpInterface>())
    if (!function.isExternal())
      functions.push_back(function);
  if (functions.empty())
    return emitError(module.getLoc())
           << "the module has no function with a body to compare policies on";
  if (functions.size() > 1) {
    InFlightDiagnostic diag =
        emitError(functions[1].getLoc())
        << "policies are compared on one function, but the module has "
        << functions.size() << " with a body; compare each in a file of its "
        << "own";
    diag.attachNote(functions[0].getLoc()) << "the first one is here";
    return diag;
  }
  return functions.front();
}

//===----------------------------------------------------------------------===//
// The comparison
//===----------------------------------------------------------------------===//

namespace {
/// Runs the policies of one comparison.
class Comparer {
public:
  Comparer(const ComparisonOptions &options, PolicyComparison &comparison)
      : options(options), comparison(comparison) {}

  LogicalResult loadTargetAndBudget(ModuleOp module);
  FailureOr<PolicyRun> run(ModuleOp module, ComparedPolicy policy,
                           bool recordTimeline);

private:
  /// The policy planned (with its copies spread over every link, or on the
  /// fastest) and simulated, on the better runtime allocator for runtimes.
  FailureOr<PolicyRun> runVariant(ModuleOp module, ComparedPolicy policy,
                                  bool recordTimeline, bool everyLink);

  const ComparisonOptions &options;
  PolicyComparison &comparison;
};
} // namespace

LogicalResult Comparer::loadTargetAndBudget(ModuleOp module) {
  llvm::Expected<Target> target = loadTarget(
      options.hw.empty() ? getTargetPresetNames().front() : options.hw);
  if (!target)
    return emitError(module.getLoc())
           << "invalid hardware: " << llvm::toString(target.takeError());
  for (const std::string &assignment : options.hwOverrides)
    if (llvm::Error error = applyTargetOverride(*target, assignment))
      return emitError(module.getLoc()) << "invalid hardware override: "
                                        << llvm::toString(std::move(error));
  llvm::Expected<int64_t> budget =
      parseMemoryBudget(options.budget, target->device.hbmCapacity);
  if (!budget)
    return emitError(module.getLoc())
           << "invalid budget: " << llvm::toString(budget.takeError());
  comparison.byteUnits = getBudgetUnits(options.budget, *budget);
  comparison.target = std::move(*target);
  comparison.simulatedTarget = comparison.target;
  comparison.perturbation = options.perturbation;
  comparison.routing = options.routing;
  if (options.perturbation)
    comparison.simulatedTarget =
        perturbTarget(comparison.target, *options.perturbation);
  comparison.budget = *budget;
  return success();
}

/// Whether `a` is the run to keep over `b`: it fits where `b` does not, or
/// is faster; `b` on a tie.
static bool isBetterRun(const SimulationResult &a, const SimulationResult &b) {
  return std::make_pair(a.outOfMemory, a.stepTime) <
         std::make_pair(b.outOfMemory, b.stepTime);
}

FailureOr<PolicyRun> Comparer::runVariant(ModuleOp module,
                                          ComparedPolicy policy,
                                          bool recordTimeline, bool everyLink) {
  PolicyRun run;
  run.policy = policy;
  run.simulation = getSimulationOptions(policy, comparison.budget);
  run.simulation.recordTimeline = recordTimeline;
  run.simulation.routing = options.routing;
  if (const std::optional<Perturbation> &perturbation =
          comparison.perturbation) {
    run.simulation.computeJitter = perturbation->jitter;
    run.simulation.jitterSeed = perturbation->seed;
    run.simulation.continueOnOverlap = true;
  }
  ModuleOp simulated = module;
  if (std::optional<OffloadPolicy> plannerPolicy = getPlannerPolicy(policy)) {
    run.planned = module.clone();
    if (failed(plan(*run.planned, policy, *plannerPolicy, options, everyLink)))
      return failure();
    simulated = *run.planned;
  }
  FailureOr<FunctionOpInterface> function = getComparedFunction(simulated);
  if (failed(function))
    return failure();
  Block &body = function->getFunctionBody().front();
  FailureOr<SimulationResult> result =
      simulate(body, comparison.simulatedTarget, run.simulation);
  if (failed(result))
    return failure();
  run.result = std::move(*result);
  // A runtime on PyTorch's allocator may also run with expandable segments
  // (a VMM pool, as MindSpore's): the run kept is the one that fits and is
  // faster, the shipped default on a tie.
  if (run.simulation.allocator == AllocatorKind::Caching) {
    SimulationOptions expandable = run.simulation;
    expandable.allocator = AllocatorKind::Expandable;
    FailureOr<SimulationResult> other =
        simulate(body, comparison.simulatedTarget, expandable);
    if (failed(other))
      return failure();
    if (isBetterRun(*other, run.result)) {
      run.simulation = expandable;
      run.result = std::move(*other);
    }
  }
  return run;
}

FailureOr<PolicyRun> Comparer::run(ModuleOp module, ComparedPolicy policy,
                                   bool recordTimeline) {
  auto start = std::chrono::steady_clock::now();
  FailureOr<PolicyRun> run =
      runVariant(module, policy, recordTimeline, /*everyLink=*/false);
  if (failed(run))
    return failure();
  // A baseline plan is also made with its copies spread over every link
  // the target has (its real system uses one); the run kept is the one
  // that fits and is faster, the single link on a tie.
  std::optional<OffloadPolicy> plannerPolicy = getPlannerPolicy(policy);
  if (plannerPolicy && *plannerPolicy != OffloadPolicy::HyperOffload &&
      comparison.simulatedTarget.getDefaultTier()) {
    FailureOr<PolicyRun> spread =
        runVariant(module, policy, recordTimeline, /*everyLink=*/true);
    if (failed(spread))
      return failure();
    if (isBetterRun(spread->result, run->result))
      run = std::move(spread);
  }
  // Routed experts pick differently at every step and on every device.
  FailureOr<FunctionOpInterface> function =
      getComparedFunction(run->planned ? *run->planned : module);
  Block &body = function->getFunctionBody().front();
  if (hasRunTimeSelections(body)) {
    FailureOr<StepStatistics> steps =
        simulateSteps(body, comparison.simulatedTarget, run->simulation,
                      options.routingSteps);
    if (failed(steps))
      return failure();
    run->steps = *steps;
  }
  run->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return run;
}

static int64_t getKVCacheBytes(FunctionOpInterface function) {
  int64_t bytes = 0;
  for (BlockArgument arg : function.getArguments()) {
    auto role = function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      kRoleAttrName);
    if (role && role.getValue() == "kv_cache")
      bytes += getTensorSizeInBytes(arg.getType()).value_or(0);
  }
  return bytes;
}

/// "file:line:col: message", or the message where it has no file.
static std::string describeDiagnostic(Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = diagnostic.getLocation()->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
  os << diagnostic.str();
  return text;
}

FailureOr<PolicyComparison>
ho::comparePolicies(ModuleOp module, const ComparisonOptions &options,
                    const ComparisonProgress &progress) {
  // An input no policy can take fails before any runs, as in the pipeline;
  // every policy sees embedded weights as the pipeline plans them: as
  // weights passed in.
  PassManager prepare(module->getName());
  prepare.addPass(createCheckPlannable());
  prepare.addPass(createConstantsAsArguments());
  if (failed(prepare.run(module)))
    return failure();

  PolicyComparison comparison;
  Comparer comparer(options, comparison);
  if (failed(comparer.loadTargetAndBudget(module)))
    return failure();
  FailureOr<FunctionOpInterface> function = getComparedFunction(module);
  if (failed(function))
    return failure();
  comparison.function = function->getName().str();
  comparison.kvCacheBytes = getKVCacheBytes(*function);
  comparison.bounds =
      computeLowerBounds(function->getFunctionBody().front(),
                         comparison.simulatedTarget, comparison.budget);

  llvm::ArrayRef<ComparedPolicy> policies = options.getPolicies();
  if (progress.started)
    progress.started(comparison);
  // The baseline is the `none` run; simulate it apart when it is not asked
  // for (it costs one simulation).
  if (!llvm::is_contained(policies, ComparedPolicy::None)) {
    FailureOr<PolicyRun> baseline = comparer.run(module, ComparedPolicy::None,
                                                 /*recordTimeline=*/false);
    if (failed(baseline))
      return failure();
    comparison.baseline = std::move(baseline->result);
    comparison.baselineSteps = baseline->steps;
  }
  size_t done = 0;
  auto finished = [&](ComparedPolicy policy) {
    if (progress.finished)
      progress.finished(comparison, policy, ++done, policies.size());
  };
  for (ComparedPolicy policy : policies) {
    // A policy that cannot run on this input gets a line saying why; the
    // rest still run. Only the baseline must run: its errors are the
    // comparison's.
    std::string reason;
    FailureOr<PolicyRun> run = failure();
    if (policy == ComparedPolicy::None) {
      run = comparer.run(module, policy, options.recordTimelines);
      if (failed(run))
        return failure();
    } else {
      ScopedDiagnosticHandler capture(
          module.getContext(), [&](Diagnostic &diagnostic) {
            if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
              return success();
            if (!reason.empty())
              reason += "; ";
            reason += describeDiagnostic(diagnostic);
            return success();
          });
      run = comparer.run(module, policy, options.recordTimelines);
    }
    if (failed(run)) {
      comparison.skipped.push_back({policy, reason});
      finished(policy);
      continue;
    }
    if (policy == ComparedPolicy::None) {
      comparison.baseline = run->result;
      comparison.baselineSteps = run->steps;
    }
    // The deadlines follow the op order, which the pipeline refines: such
    // a plan is measured against the bound of the order it runs, as
    // `--ho-report` on the planned file measures it. The arguments it put
    // in a tier count as the device arguments they were.
    if (run->planned && isPipelinePolicy(policy))
      if (FailureOr<FunctionOpInterface> planned =
              getComparedFunction(*run->planned);
          succeeded(planned))
        run->bounds =
            computeLowerBounds(planned->getFunctionBody().front(),
                               comparison.simulatedTarget, comparison.budget);
    comparison.runs.push_back(std::move(*run));
    finished(policy);
  }
  // vLLM runs as many sequences as its blocks hold, at the paged run's
  // settings.
  auto paged = llvm::find_if(comparison.runs, [](const PolicyRun &run) {
    return run.policy == ComparedPolicy::Paged;
  });
  if (options.workload && options.workload->mode == workloads::Mode::Decode &&
      paged != comparison.runs.end()) {
    FailureOr<Admission> admission = admitBatch(
        *module.getContext(), *options.workload, comparison.simulatedTarget,
        paged->simulation, options.routingSteps);
    if (failed(admission))
      return failure();
    comparison.admission = *admission;
  }
  return comparison;
}
