//===- RoutedExpertsTest.cpp - Experts picked at run time, by hand --------===//
//
// The round-numbers target (RoundNumbersTarget.h): an expert of 1e6 bytes
// takes 1 ms to fetch, 1e9 FLOPs take 1 ms. Routing comes from traces, so
// that each test knows which experts the router picks.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Simulation/Routing.h"
#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr double kMs = 1e-3;
constexpr double kTolerance = 1e-9;

class RoutedExpertsTest : public ::testing::Test {
protected:
  RoutedExpertsTest() { context.loadDialect<HODialect, func::FuncDialect>(); }

  Block &parse(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
    return (*module->getOps<func::FuncOp>().begin()).getBody().front();
  }

  /// Routing read from `trace`, the JSON text of a trace file.
  SimulationOptions withTrace(llvm::StringRef trace) {
    SimulationOptions options;
    options.allocator = AllocatorKind::Ideal;
    llvm::Expected<std::shared_ptr<const RoutingTrace>> parsed =
        parseRoutingTrace(trace, "test.json");
    EXPECT_TRUE(static_cast<bool>(parsed)) << toString(parsed.takeError());
    options.routing.distribution = RoutingDistribution::Trace;
    options.routing.trace = *parsed;
    return options;
  }

  SimulationResult simulate(Block &body, const SimulationOptions &options) {
    FailureOr<SimulationResult> result = ho::simulate(body, target, options);
    EXPECT_TRUE(succeeded(result));
    return succeeded(result) ? *result : SimulationResult();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Target target = makeRoundNumbersTarget();
};

// The router takes 1 ms; the fetch of what it picks starts after it, and
// 0.5 ms of shared-expert compute hides half of that 1 ms copy.
constexpr llvm::StringLiteral kFetchAfterRouter = R"mlir(
  func.func @f(%x: tensor<4xf32>, %e0: tensor<250000xf32>,
               %e1: !ho.remote<tensor<250000xf32>>) -> tensor<4xf32> {
    %ids = ho.compute "topk"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<1x1xi32>
    %f = ho.prefetch_routed %ids : tensor<1x1xi32>
        experts(%e1 : !ho.remote<tensor<250000xf32>>)
        {expert_ids = array<i64: 1>, total_experts = 2 : i64}
        -> !ho.future<tensor<1x250000xf32>>
    %shared = ho.compute "shared"(%x) {flops = 500000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<4xf32>
    %slots = ho.await %f : !ho.future<tensor<1x250000xf32>>
        -> tensor<1x250000xf32>
    %y = ho.routed "expert_ffn"(%shared : tensor<4xf32>) by %ids : tensor<1x1xi32>
        experts(%e0, %e1 : tensor<250000xf32>, !ho.remote<tensor<250000xf32>>)
        staged(%slots : tensor<1x250000xf32>)
        {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
)mlir";

TEST_F(RoutedExpertsTest, FetchAfterTheRouterExposesWhatComputeDoesNotCover) {
  Block &body = parse(kFetchAfterRouter);
  SimulationResult picked =
      simulate(body, withTrace(R"({"steps": [[[[1]]]]})"));
  EXPECT_NEAR(picked.stallTime, 0.5 * kMs, kTolerance);
  EXPECT_EQ(picked.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            1000000);
  EXPECT_EQ(picked.expertsPicked, 1u);
  EXPECT_EQ(picked.expertsHit, 1u);
  EXPECT_EQ(picked.expertsFetchedOnDemand, 0u);

  // The resident expert moves nothing, and the kernel reads one expert
  // either way: the step is 1.5 ms of compute plus the stall.
  SimulationResult resident =
      simulate(body, withTrace(R"({"steps": [[[[0]]]]})"));
  EXPECT_EQ(resident.stallTime, 0);
  EXPECT_EQ(resident.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            0);
  EXPECT_NEAR(picked.stepTime - resident.stepTime, 0.5 * kMs, kTolerance);
}

// Both experts in the pool, one slot, fetched 2 ms ahead on a prediction
// (an argument standing for an earlier layer's picks).
constexpr llvm::StringLiteral kPredictedFetch = R"mlir(
  func.func @f(%x: tensor<4xf32>, %guess: tensor<1x1xi32>,
               %e0: !ho.remote<tensor<250000xf32>>,
               %e1: !ho.remote<tensor<250000xf32>>) -> tensor<4xf32> {
    %f = ho.prefetch_routed %guess : tensor<1x1xi32>
        experts(%e0, %e1 : !ho.remote<tensor<250000xf32>>,
                           !ho.remote<tensor<250000xf32>>)
        {expert_ids = array<i64: 0, 1>, total_experts = 2 : i64}
        -> !ho.future<tensor<1x250000xf32>>
    %ids = ho.compute "topk"(%x) {flops = 2000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>) -> tensor<1x1xi32>
    %slots = ho.await %f : !ho.future<tensor<1x250000xf32>>
        -> tensor<1x250000xf32>
    %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
        experts(%e0, %e1 : !ho.remote<tensor<250000xf32>>,
                           !ho.remote<tensor<250000xf32>>)
        staged(%slots : tensor<1x250000xf32>)
        {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
)mlir";

TEST_F(RoutedExpertsTest, PredictionThatMissesFetchesThePickOnDemand) {
  Block &body = parse(kPredictedFetch);
  SimulationOptions options = withTrace(R"({"steps": [[[[1]]]]})");
  options.routing.predictorAccuracy = 1;
  SimulationResult right = simulate(body, options);
  EXPECT_EQ(right.stallTime, 0);
  EXPECT_EQ(right.expertsHit, 1u);
  EXPECT_EQ(right.expertsFetchedOnDemand, 0u);

  // With two experts a wrong guess is the other one: its copy is hidden,
  // then the pick's copy is exposed whole, once.
  options.routing.predictorAccuracy = 0;
  SimulationResult wrong = simulate(body, options);
  EXPECT_NEAR(wrong.stallTime, 1 * kMs, kTolerance);
  EXPECT_EQ(wrong.expertsHit, 0u);
  EXPECT_EQ(wrong.expertsFetchedOnDemand, 1u);
  EXPECT_EQ(wrong.getTraffic(MemoryTier::pool, Direction::ToDevice).bytes,
            2000000);
  EXPECT_NEAR(wrong.stepTime - right.stepTime, 1 * kMs, kTolerance);
}

// Two devices of four experts hold two each; both tokens pick experts of
// device 1, whose kernel then reads 2 MB more than device 0's.
constexpr llvm::StringLiteral kTwoDevices = R"mlir(
  func.func @f(%x: tensor<2x4xf32>, %ids: tensor<2x1xi32>,
               %e0: tensor<250000xf32>, %e1: tensor<250000xf32>)
      -> tensor<2x4xf32> {
    %y = ho.routed "expert_ffn"(%x : tensor<2x4xf32>) by %ids : tensor<2x1xi32>
        experts(%e0, %e1 : tensor<250000xf32>, tensor<250000xf32>)
        {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
)mlir";

TEST_F(RoutedExpertsTest, TheSlowestDeviceEndsTheStep) {
  Block &body = parse(kTwoDevices);
  EXPECT_EQ(getExpertParallelism(body), 2u);
  FailureOr<StepStatistics> steps = simulateSteps(
      body, target, withTrace(R"({"steps": [[[[2], [3]]]]})"), /*steps=*/3);
  ASSERT_TRUE(succeeded(steps));
  EXPECT_EQ(steps->devices, 2u);
  // 2 MB at 1 TB/s, and 2 assignments of 5e5 FLOPs hidden under it.
  EXPECT_NEAR(steps->mean - steps->deviceMean, 2e-6, 1e-12);
  EXPECT_EQ(steps->p99, steps->mean);
  EXPECT_EQ(steps->expertsPicked, 3u * 2u);
  EXPECT_EQ(steps->hitRate, 1.0);
}

TEST_F(RoutedExpertsTest, TraceShapeMustMatchTheRoutedOps) {
  Block &body = parse(kTwoDevices);
  ScopedDiagnosticHandler silence(&context, [](Diagnostic &) {});
  for (llvm::StringRef trace :
       {R"({"steps": [[[[2]]]]})", R"({"steps": [[[[2, 3], [1, 0]]]]})",
        R"({"steps": [[[[4], [0]]]]})", R"({"steps": [[]]})"}) {
    llvm::Expected<std::shared_ptr<const RoutingTrace>> parsed =
        parseRoutingTrace(trace, "t.json");
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      continue;
    }
    SimulationOptions options;
    options.routing.distribution = RoutingDistribution::Trace;
    options.routing.trace = *parsed;
    EXPECT_TRUE(failed(ho::simulate(body, target, options))) << trace.str();
  }
}

TEST(RoutingTest, BadTraceFilesNameTheField) {
  auto error = [](llvm::StringRef text) {
    llvm::Expected<std::shared_ptr<const RoutingTrace>> parsed =
        parseRoutingTrace(text, "t.json");
    return parsed ? std::string() : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(error("{"), error("{")); // deterministic
  EXPECT_NE(error("{").find("t.json: file: not valid JSON"), std::string::npos);
  EXPECT_NE(error(R"({"step": []})").find("t.json: steps:"), std::string::npos);
  EXPECT_NE(error(R"({"steps": [[[[1, -2]]]]})").find("steps[0][0][0][1]"),
            std::string::npos);
  EXPECT_NE(error(R"({"steps": [[[[1, 1]]]]})").find("picked twice"),
            std::string::npos);
  EXPECT_NE(error(R"({"steps": [[[[1]], [[2]]], [[]]]})").find("steps[1][0]"),
            std::string::npos);
  EXPECT_EQ(error(R"({"steps": [[[[1, 2], [3, 0]]]]})"), "");
  // Blocks are read like experts, and named as blocks.
  EXPECT_EQ(error(R"({"blocks": [[[[1, 1]]]]})"),
            "t.json: blocks[0][0][0][1]: block 1 is picked twice by one row");
  EXPECT_EQ(error(R"({"steps": [[[[1]]]], "blocks": []})"),
            "t.json: blocks: expected a non-empty array of steps, each an "
            "array of ho.gather_blocks ops, each an array of rows' block ids");
}

TEST_F(RoutedExpertsTest, TraceOfBlocksAloneIsAnErrorAtTheRoutedOp) {
  Block &body = parse(kTwoDevices);
  std::string message;
  ScopedDiagnosticHandler capture(
      &context, [&](Diagnostic &diagnostic) { message = diagnostic.str(); });
  SimulationOptions options = withTrace(R"({"blocks": [[[[1]]]]})");
  EXPECT_TRUE(failed(ho::simulate(body, target, options)));
  EXPECT_NE(message.find("test.json: steps: is missing, but the function has "
                         "a ho.routed op; give its picks per step"),
            std::string::npos)
      << message;
}

TEST(RoutingTest, SpecsAndAccuraciesAreChecked) {
  RoutingOptions options;
  EXPECT_FALSE(static_cast<bool>(parseRoutingSpec("uniform", options)));
  EXPECT_FALSE(static_cast<bool>(parseRoutingSpec("zipf:1.2", options)));
  EXPECT_EQ(options.distribution, RoutingDistribution::Zipf);
  EXPECT_EQ(options.zipfExponent, 1.2);
  for (llvm::StringRef bad :
       {"zipf:-1", "zipf:x", "zipf", "normal", "trace:", "uniform:1"}) {
    llvm::Error error = parseRoutingSpec(bad, options);
    EXPECT_TRUE(static_cast<bool>(error)) << bad.str();
    llvm::consumeError(std::move(error));
  }
  llvm::Error missing = parseRoutingSpec("trace:/no/such/file.json", options);
  EXPECT_NE(toString(std::move(missing)).find("/no/such/file.json: file:"),
            std::string::npos);
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    llvm::Error error = checkPredictorAccuracy(bad);
    EXPECT_TRUE(static_cast<bool>(error));
    llvm::consumeError(std::move(error));
  }
  EXPECT_FALSE(static_cast<bool>(checkPredictorAccuracy(0.9)));
}

TEST(RoutingTest, DrawsAreSeededAndZipfSkews) {
  RoutingOptions options;
  auto draw = [&] {
    return cantFail(drawPicks(options, /*layer=*/3, /*tokens=*/256,
                              /*top=*/8, /*total=*/64));
  };
  std::vector<int64_t> first = draw();
  EXPECT_EQ(draw(), first);
  for (size_t token = 0; token < first.size(); token += 8) {
    llvm::SmallVector<int64_t> ids(first.begin() + token,
                                   first.begin() + token + 8);
    llvm::sort(ids);
    EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
  }
  options.seed = 2;
  EXPECT_NE(draw(), first);

  // The most popular expert's share of picks: about 1/64 uniform, far more
  // under Zipf with exponent 1.2.
  auto topShare = [&] {
    std::vector<int64_t> picks = draw();
    std::vector<int64_t> counts(64, 0);
    for (int64_t id : picks)
      ++counts[id];
    return static_cast<double>(*llvm::max_element(counts)) / picks.size();
  };
  double uniform = topShare();
  ASSERT_FALSE(static_cast<bool>(parseRoutingSpec("zipf:1.2", options)));
  EXPECT_GT(topShare(), 3 * uniform);

  // A prediction keeps about its accuracy's share of picks.
  options.predictorAccuracy = 0.9;
  std::vector<int64_t> picks = draw();
  std::vector<int64_t> guess = predictPicks(options, 3, picks, 8, 64);
  double right = 0;
  for (auto [pick, guessed] : llvm::zip(picks, guess))
    right += pick == guessed;
  EXPECT_NEAR(right / picks.size(), 0.9, 0.03);
}
} // namespace
