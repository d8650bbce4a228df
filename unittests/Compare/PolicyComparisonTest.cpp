//===- PolicyComparisonTest.cpp - Every offload policy on one graph -------===//

#include "hyperoffload/Compare/PolicyComparison.h"

#include "TinyWorkload.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class PolicyComparisonTest : public TinyWorkloadTest {
protected:
  /// Compares `policies` at a 5 MB budget.
  PolicyComparison compare(std::vector<ComparedPolicy> policies = {}) {
    ComparisonOptions options;
    options.budget = "5MB";
    options.policies = std::move(policies);
    FailureOr<PolicyComparison> comparison = comparePolicies(*module, options);
    EXPECT_TRUE(succeeded(comparison));
    return std::move(*comparison);
  }
};
} // namespace

TEST_F(PolicyComparisonTest, NamesRoundTrip) {
  EXPECT_EQ(getComparedPolicies().size(), 10u);
  for (ComparedPolicy policy : getComparedPolicies())
    EXPECT_EQ(parseComparedPolicy(stringifyComparedPolicy(policy)), policy);
  EXPECT_EQ(parseComparedPolicy("fast"), std::nullopt);
}

TEST_F(PolicyComparisonTest, EveryPolicyOnItsAllocator) {
  PolicyComparison comparison = compare();
  ASSERT_EQ(comparison.runs.size(), 10u);
  EXPECT_EQ(comparison.function, "llama3_tiny_decode");
  EXPECT_EQ(comparison.budget, 5000000);
  auto allocatorOf = [&](size_t index) {
    return comparison.runs[index].simulation.allocator;
  };
  // The runtimes run on PyTorch's allocator, with or without expandable
  // segments.
  auto isRuntimeAllocator = [&](size_t index) {
    return allocatorOf(index) == AllocatorKind::Caching ||
           allocatorOf(index) == AllocatorKind::Expandable;
  };
  EXPECT_EQ(allocatorOf(0), AllocatorKind::Ideal);  // none
  EXPECT_TRUE(isRuntimeAllocator(1));               // reactive
  EXPECT_EQ(allocatorOf(2), AllocatorKind::Paged);  // paged
  EXPECT_TRUE(isRuntimeAllocator(3));               // naive
  EXPECT_TRUE(isRuntimeAllocator(4));               // window
  EXPECT_EQ(allocatorOf(5), AllocatorKind::Static); // distance
  EXPECT_EQ(allocatorOf(6), AllocatorKind::Static); // pt2
  EXPECT_EQ(allocatorOf(7), AllocatorKind::Static); // pt2-default
  EXPECT_EQ(allocatorOf(8), AllocatorKind::Static); // hyperoffload-schedule
  EXPECT_EQ(allocatorOf(9), AllocatorKind::Static); // hyperoffload
  EXPECT_EQ(comparison.runs[1].simulation.mode, ExecutionMode::Reactive);
  EXPECT_EQ(comparison.runs[2].simulation.mode, ExecutionMode::Paged);

  // The reactive run kept is the faster of the two allocators.
  const PolicyRun &reactive = comparison.runs[1];
  SimulationOptions other = reactive.simulation;
  other.allocator = allocatorOf(1) == AllocatorKind::Caching
                        ? AllocatorKind::Expandable
                        : AllocatorKind::Caching;
  auto function = *module->getOps<func::FuncOp>().begin();
  FailureOr<SimulationResult> otherRun =
      simulate(function.getBody().front(), comparison.target, other);
  ASSERT_TRUE(succeeded(otherRun));
  EXPECT_LE(
      std::make_pair(reactive.result.outOfMemory, reactive.result.stepTime),
      std::make_pair(otherRun->outOfMemory, otherRun->stepTime));

  // Without offload it does not fit; the plan does, no slower than the bound
  // allows, and only the planned policies changed a module.
  const PolicyRun &none = comparison.runs.front();
  const PolicyRun &plan = comparison.runs.back();
  EXPECT_FALSE(comparison.fits(none));
  EXPECT_EQ(comparison.getSlowdown(none), 1.0);
  EXPECT_EQ(comparison.getPeakReduction(none), 0.0);
  EXPECT_TRUE(comparison.fits(plan));
  EXPECT_GT(*comparison.getPeakReduction(plan), 0.0);
  EXPECT_GE(*comparison.getGap(plan), 0.0);
  EXPECT_FALSE(none.planned);
  EXPECT_TRUE(plan.planned);
  // The input is left as it was: no transfers.
  func::FuncOp input = *module->getOps<func::FuncOp>().begin();
  EXPECT_TRUE(input.getBody().getOps<PrefetchOp>().empty());
}

TEST_F(PolicyComparisonTest, BaselineWithoutNone) {
  PolicyComparison all = compare();
  PolicyComparison some = compare({ComparedPolicy::HyperOffload});
  ASSERT_EQ(some.runs.size(), 1u);
  EXPECT_EQ(some.baseline.stepTime, all.baseline.stepTime);
  EXPECT_EQ(some.baseline.peakFootprintBytes, all.baseline.peakFootprintBytes);
  EXPECT_EQ(some.runs[0].result.stepTime, all.runs.back().result.stepTime);
}

TEST_F(PolicyComparisonTest, JSONHasTheSchemaVersion) {
  llvm::json::Value json = comparisonToJSON(compare({ComparedPolicy::None}));
  llvm::json::Object *object = json.getAsObject();
  ASSERT_TRUE(object);
  EXPECT_EQ(object->getInteger("version"), kComparisonSchemaVersion);
  ASSERT_TRUE(object->getArray("policies"));
  EXPECT_EQ(object->getArray("policies")->size(), 1u);
}

TEST_F(PolicyComparisonTest, InvalidBudgetFails) {
  ComparisonOptions options;
  options.budget = "lots";
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(comparePolicies(*module, options)));
  EXPECT_NE(message.find("invalid budget"), std::string::npos) << message;
}
