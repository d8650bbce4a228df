//===- StarvedPrefetchesTest.cpp - The starved-fetch repair by hand -------===//
//
// On the round-numbers target (1 GB/s pool link with one queue, no
// latency): w0 lands at 1 ms, while a 3 ms op runs; w1 is issued only after
// that op and the matmul that frees w0, so the link idles from 1 ms to
// about 3 ms and w1 lands at about 4 ms. Issued before the long op, w1
// queues behind w0 and lands at 2 ms, a millisecond earlier, if the
// budget holds both weights at once.
//
//===----------------------------------------------------------------------===//

#include "StarvedPrefetches.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr llvm::StringLiteral kStarvedLink = R"mlir(
func.func @f(%x: tensor<1000xf32>, %w0: !ho.remote<tensor<250000xf32>>,
             %w1: !ho.remote<tensor<250000xf32>>) -> tensor<1000xf32> {
  %f0 = ho.prefetch %w0 : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %a = ho.compute "attention"(%x) {flops = 3000000000 : i64} : (tensor<1000xf32>) -> tensor<1000xf32>
  %v0 = ho.await %f0 : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %m0 = ho.compute "matmul"(%a, %v0) {flops = 1000000 : i64} : (tensor<1000xf32>, tensor<250000xf32>) -> tensor<1000xf32>
  %f1 = ho.prefetch %w1 : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %v1 = ho.await %f1 : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %m1 = ho.compute "matmul"(%m0, %v1) {flops = 1000000 : i64} : (tensor<1000xf32>, tensor<250000xf32>) -> tensor<1000xf32>
  return %m1 : tensor<1000xf32>
}
)mlir";

class StarvedPrefetchesTest : public ::testing::Test {
protected:
  StarvedPrefetchesTest() {
    context.loadDialect<HODialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kStarvedLink, &context);
    function = *module->getOps<func::FuncOp>().begin();
  }

  SimulationOptions inBudget(int64_t budget) const {
    SimulationOptions options;
    options.allocator = AllocatorKind::Ideal;
    options.budget = budget;
    options.recordTimeline = false;
    return options;
  }

  double getStepTime(func::FuncOp planned, int64_t budget) {
    FailureOr<SimulationResult> run =
        simulate(planned.getBody().front(), target, inBudget(budget));
    EXPECT_TRUE(succeeded(run) && !run->outOfMemory);
    return succeeded(run) ? run->stepTime : 0;
  }

  MLIRContext context;
  Target target = makeRoundNumbersTarget();
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
};

TEST_F(StarvedPrefetchesTest,
       TheFetchMovesBeforeTheOpThatRanWhileItsLinkIdled) {
  const int64_t budget = 4'000'000;
  OwningOpRef<func::FuncOp> repaired =
      issueStarvedPrefetchesEarlier(function, target, inBudget(budget));
  ASSERT_TRUE(repaired);
  SmallVector<Operation *> prefetches;
  Operation *attention = nullptr;
  for (Operation &op : repaired->getBody().front()) {
    if (isa<PrefetchOp>(op))
      prefetches.push_back(&op);
    if (auto compute = dyn_cast<ComputeOp>(op);
        compute && compute.getKind() == "attention")
      attention = &op;
  }
  ASSERT_EQ(prefetches.size(), 2u);
  ASSERT_TRUE(attention);
  EXPECT_TRUE(prefetches[1]->isBeforeInBlock(attention));
  EXPECT_NEAR(getStepTime(function, budget) - getStepTime(*repaired, budget),
              1e-3, 1e-6);
}

TEST_F(StarvedPrefetchesTest, AMoveThatOverflowsTheBudgetIsNotKept) {
  // One weight at a time fits; both at once do not.
  const int64_t budget = 1'500'000;
  EXPECT_NEAR(getStepTime(function, budget), 4e-3, 1e-5);
  EXPECT_FALSE(
      issueStarvedPrefetchesEarlier(function, target, inBudget(budget)));
}
} // namespace
