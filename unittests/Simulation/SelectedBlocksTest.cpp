//===- SelectedBlocksTest.cpp - Blocks picked at run time, by hand --------===//
//
// The round-numbers target (RoundNumbersTarget.h): a block of 62500 f32
// (250 KB) takes 0.25 ms to fetch, 1e9 FLOPs take 1 ms. The cache holds one
// row of 8 blocks; the selection picks some of them.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr double kMs = 1e-3;
constexpr double kTolerance = 1e-9;

class SelectedBlocksTest : public ::testing::Test {
protected:
  SelectedBlocksTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  }

  Block &parse(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
    return (*module->getOps<func::FuncOp>().begin()).getBody().front();
  }

  SimulationResult simulate(Block &body, double accuracy = 1) {
    SimulationOptions options;
    options.allocator = AllocatorKind::Ideal;
    options.routing.predictorAccuracy = accuracy;
    FailureOr<SimulationResult> result = ho::simulate(body, target, options);
    EXPECT_TRUE(succeeded(result));
    return succeeded(result) ? *result : SimulationResult();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Target target = makeRoundNumbersTarget();
};

// The selection takes 1 ms; the copy of the 4 blocks it picks (1 ms)
// starts after it, and 0.5 ms of window attention hides half of it. The
// new row goes back alone.
constexpr llvm::StringLiteral kFetchAfterSelection = R"mlir(
  func.func @f(%q: tensor<4xf32>, %cache: !ho.remote<tensor<1x8x62500xf32>>,
               %row: tensor<1x1x62500xf32>)
      -> (tensor<4xf32>, !ho.remote<tensor<1x8x62500xf32>>) {
    %sel = ho.compute "select"(%q) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<1x4xi32>
    %f = ho.prefetch_blocks %cache[%sel] {axis = 1 : i64, block_size = 1 : i64}
        : !ho.remote<tensor<1x8x62500xf32>>, tensor<1x4xi32>
        -> !ho.future<tensor<1x4x62500xf32>>
    %win = ho.compute "window"(%q) {flops = 500000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<4xf32>
    %staged = ho.await %f : !ho.future<tensor<1x4x62500xf32>>
        -> tensor<1x4x62500xf32>
    %blocks = ho.gather_blocks %cache[%sel] staged(%staged : tensor<1x4x62500xf32>)
        {axis = 1 : i64, block_size = 1 : i64}
        : !ho.remote<tensor<1x8x62500xf32>>, tensor<1x4xi32> -> tensor<1x4x62500xf32>
    %o = ho.compute "selected"(%win, %blocks) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4xf32>, tensor<1x4x62500xf32>) -> tensor<4xf32>
    %next = ho.offload_slice %row into %cache [0, 7, 0]
        : tensor<1x1x62500xf32> into !ho.remote<tensor<1x8x62500xf32>>
    return %o, %next : tensor<4xf32>, !ho.remote<tensor<1x8x62500xf32>>
  }
)mlir";

TEST_F(SelectedBlocksTest,
       FetchAfterTheSelectionExposesWhatComputeDoesNotCover) {
  Block &body = parse(kFetchAfterSelection);
  SimulationResult result = simulate(body);
  // 0.5 ms at the await, and 0.25 ms for the row's store at the end.
  EXPECT_NEAR(result.stallTime, 0.75 * kMs, kTolerance);
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            4 * 250000);
  EXPECT_EQ(result.blocksSelected, 4u);
  EXPECT_EQ(result.blocksHit, 4u);
  EXPECT_EQ(result.blocksFetchedOnDemand, 0u);
  // Only the row moves back, 0.25 ms after the last kernel: the step ends
  // when it has landed.
  EXPECT_EQ(result.getTraffic(MemoryTier::pool, Direction::FromDevice).bytes,
            250000);
  EXPECT_NEAR(result.stepTime, (1 + 0.5 + 0.5 + 0.25) * kMs, kTolerance);
}

// One block fetched 2 ms ahead on a prediction (an argument standing for
// the previous layer's selection).
constexpr llvm::StringLiteral kPredictedFetch = R"mlir(
  func.func @f(%q: tensor<4xf32>, %guess: tensor<1x1xi32>,
               %cache: !ho.remote<tensor<1x8x62500xf32>>) -> tensor<4xf32> {
    %f = ho.prefetch_blocks %cache[%guess] {axis = 1 : i64, block_size = 1 : i64}
        : !ho.remote<tensor<1x8x62500xf32>>, tensor<1x1xi32>
        -> !ho.future<tensor<1x1x62500xf32>>
    %sel = ho.compute "select"(%q) {flops = 2000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<1x1xi32>
    %staged = ho.await %f : !ho.future<tensor<1x1x62500xf32>>
        -> tensor<1x1x62500xf32>
    %blocks = ho.gather_blocks %cache[%sel] staged(%staged : tensor<1x1x62500xf32>)
        {axis = 1 : i64, block_size = 1 : i64}
        : !ho.remote<tensor<1x8x62500xf32>>, tensor<1x1xi32> -> tensor<1x1x62500xf32>
    %o = ho.compute "selected"(%q, %blocks) {flops = 0 : i64, bytes = 0 : i64}
        : (tensor<4xf32>, tensor<1x1x62500xf32>) -> tensor<4xf32>
    return %o : tensor<4xf32>
  }
)mlir";

TEST_F(SelectedBlocksTest, PredictionThatMissesFetchesTheBlockOnDemand) {
  Block &body = parse(kPredictedFetch);
  SimulationResult right = simulate(body, /*accuracy=*/1);
  EXPECT_EQ(right.stallTime, 0);
  EXPECT_EQ(right.blocksHit, 1u);
  EXPECT_EQ(right.blocksFetchedOnDemand, 0u);

  // A wrong guess is another block: its copy is hidden, then the pick's
  // copy is exposed whole, once.
  SimulationResult wrong = simulate(body, /*accuracy=*/0);
  EXPECT_NEAR(wrong.stallTime, 0.25 * kMs, kTolerance);
  EXPECT_EQ(wrong.blocksHit, 0u);
  EXPECT_EQ(wrong.blocksFetchedOnDemand, 1u);
  EXPECT_EQ(wrong.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            2 * 250000);
  EXPECT_NEAR(wrong.stepTime - right.stepTime, 0.25 * kMs, kTolerance);
}

TEST_F(SelectedBlocksTest, DrawsAreSeededAndVaryFromStepToStep) {
  Block &body = parse(kPredictedFetch);
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  options.routing.predictorAccuracy = 0.5;
  FailureOr<StepStatistics> first = simulateSteps(body, target, options, 40);
  FailureOr<StepStatistics> again = simulateSteps(body, target, options, 40);
  ASSERT_TRUE(succeeded(first) && succeeded(again));
  EXPECT_EQ(first->blocksSelected, 40u);
  EXPECT_EQ(first->blocksFetchedOnDemand, again->blocksFetchedOnDemand);
  EXPECT_EQ(first->mean, again->mean);
  // Half the guesses are right, give or take: some steps stall, some not.
  EXPECT_GT(first->blocksFetchedOnDemand, 5u);
  EXPECT_LT(first->blocksFetchedOnDemand, 35u);
  EXPECT_GT(first->p99, first->p50);
}

TEST_F(SelectedBlocksTest, PicksFollowTheRoutingSpecAndTheTrace) {
  // Zipf ranks the blocks of each gather too: the most popular of 64
  // takes far more than 1/64 of the picks.
  RoutingOptions options;
  auto topShare = [&] {
    std::vector<int64_t> picks =
        cantFail(drawBlockPicks(options, /*gather=*/0, /*rows=*/256,
                                /*perRow=*/4, /*blocks=*/64));
    std::vector<int64_t> counts(64, 0);
    for (int64_t id : picks)
      ++counts[id];
    return static_cast<double>(*llvm::max_element(counts)) / picks.size();
  };
  EXPECT_LT(topShare(), 0.04);
  ASSERT_FALSE(static_cast<bool>(parseRoutingSpec("zipf:1.2", options)));
  EXPECT_GT(topShare(), 0.1);

  // A trace's "blocks" are the picks, step after step.
  llvm::Expected<std::shared_ptr<const RoutingTrace>> trace = parseRoutingTrace(
      R"({"blocks": [[[[7, 1, 2, 3]]], [[[4, 5, 6, 0]]]]})", "t.json");
  ASSERT_TRUE(static_cast<bool>(trace)) << toString(trace.takeError());
  options.distribution = RoutingDistribution::Trace;
  options.trace = *trace;
  options.step = 3;
  EXPECT_EQ(cantFail(drawBlockPicks(options, 0, 1, 4, 8)),
            (std::vector<int64_t>{4, 5, 6, 0}));
  // Picks past the source's blocks, or a count other than the gather's,
  // are named with the field.
  auto error = [&](int64_t perRow, int64_t blocks) {
    llvm::Expected<std::vector<int64_t>> picks =
        drawBlockPicks(options, 0, 1, perRow, blocks);
    return picks ? std::string() : toString(picks.takeError());
  };
  EXPECT_EQ(error(4, 6), "t.json: blocks[1][0][0][2]: block 6 is out of "
                         "range: its source has 6 blocks");
  EXPECT_EQ(error(2, 8), "t.json: blocks[1][0][0]: has 4 block ids, but each "
                         "row picks 2");
}

TEST_F(SelectedBlocksTest, TraceWithoutTheGathersIsAnErrorAtTheGather) {
  Block &body = parse(kFetchAfterSelection);
  SimulationOptions options;
  options.allocator = AllocatorKind::Ideal;
  options.routing.distribution = RoutingDistribution::Trace;
  // Experts only: the blocks are drawn uniformly, as without a trace.
  options.routing.trace =
      cantFail(parseRoutingTrace(R"({"steps": [[[[1]]]]})", "experts.json"));
  EXPECT_TRUE(succeeded(ho::simulate(body, target, options)));
  // Blocks for no gather but another: the gather says what is missing.
  options.routing.trace = cantFail(parseRoutingTrace(
      R"({"blocks": [[[[1, 2, 3, 4], [5, 6, 7, 0]]]]})", "rows.json"));
  std::string message;
  ScopedDiagnosticHandler capture(
      &context, [&](Diagnostic &diagnostic) { message = diagnostic.str(); });
  EXPECT_TRUE(failed(ho::simulate(body, target, options)));
  EXPECT_EQ(message, "cannot draw its block selection: rows.json: "
                     "blocks[0][0]: has 2 rows, but the ho.gather_blocks op "
                     "has 1");
}

} // namespace
