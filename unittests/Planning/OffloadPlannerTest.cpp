//===- OffloadPlannerTest.cpp - Placements checked by hand ----------------===//
//
// The window placement's knobs on a chain of eight named layers, each with
// an attention op that reads no weight and an MLP op that reads its layer's
// weight: which weights stay resident, and where their fetches are issued.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Planning/OffloadPlan.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr unsigned kNumLayers = 8;

/// Layer i's attention op is at point 2i + 1, its MLP op (which reads
/// weight argument i + 1) at 2i + 2.
std::string buildLayers() {
  std::string arguments = "%x: tensor<1000xf32>";
  std::string body;
  std::string previous = "%x";
  for (unsigned layer = 0; layer < kNumLayers; ++layer) {
    arguments += llvm::formatv(
        ", %w{0}: tensor<250000xf32> {{ho.role = \"weight\"}", layer);
    body += llvm::formatv(
        "  %a{0} = ho.compute \"attention\"({1}) {{flops = 1000000 : i64} "
        ": (tensor<1000xf32>) -> tensor<1000xf32> loc(\"layer {0} / "
        "attention\")\n"
        "  %m{0} = ho.compute \"matmul\"(%a{0}, %w{0}) {{flops = 1000000 : "
        "i64} : (tensor<1000xf32>, tensor<250000xf32>) -> tensor<1000xf32> "
        "loc(\"layer {0} / mlp\")\n",
        layer, previous);
    previous = llvm::formatv("%m{0}", layer);
  }
  return llvm::formatv("func.func @f({0}) -> tensor<1000xf32> {{\n{1}  "
                       "return {2} : tensor<1000xf32>\n}",
                       arguments, body, previous);
}

class OffloadPlannerTest : public ::testing::Test {
protected:
  OffloadPlannerTest() {
    context.loadDialect<HODialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(buildLayers(), &context);
    options.policy = OffloadPolicy::Window;
    options.budget = target.device.hbmCapacity;
  }

  OffloadPlan plan() {
    auto function = *module->getOps<func::FuncOp>().begin();
    return planOffload(function.getBody().front(), target, options);
  }

  /// The layers whose weights the plan keeps on the device.
  static SmallVector<unsigned> getResidentLayers(const OffloadPlan &plan) {
    SmallVector<unsigned> resident;
    for (unsigned layer = 0; layer < kNumLayers; ++layer)
      if (llvm::none_of(plan.remoteArguments, [&](const RemoteArgument &arg) {
            return arg.index == layer + 1;
          }))
        resident.push_back(layer);
    return resident;
  }

  MLIRContext context;
  Target target = makeRoundNumbersTarget();
  OwningOpRef<ModuleOp> module;
  PlannerOptions options;
};

TEST_F(OffloadPlannerTest, ResidentLayersLeadOrSpread) {
  ASSERT_TRUE(module);
  options.windowResidentLayers = 2;
  EXPECT_EQ(getResidentLayers(plan()), (SmallVector<unsigned>{0, 1}));
  // Layer floor(m * 8 / k) for each m < k: every fourth from the first...
  options.windowSpreadResidents = true;
  EXPECT_EQ(getResidentLayers(plan()), (SmallVector<unsigned>{0, 4}));
  // ...or 8/3 apart, rounded down.
  options.windowResidentLayers = 3;
  EXPECT_EQ(getResidentLayers(plan()), (SmallVector<unsigned>{0, 2, 5}));
  // More than there are layers keeps them all.
  options.windowResidentLayers = 100;
  EXPECT_TRUE(plan().isEmpty());
}

TEST_F(OffloadPlannerTest, FetchAtLayerStartOrAtUse) {
  ASSERT_TRUE(module);
  // Each weight's gap is its stretch before its first use, at 2i + 2.
  auto expectFetchesBefore = [&](auto pointOfLayer) {
    OffloadPlan planned = plan();
    ASSERT_EQ(planned.gaps.size(), kNumLayers);
    for (const PlannedGap &gap : planned.gaps) {
      unsigned layer = (gap.nextUse - 2) / 2;
      EXPECT_EQ(gap.prefetchBefore, pointOfLayer(layer)) << "layer " << layer;
    }
  };
  // Two layers ahead: as layer i - 2 starts (its attention op), the first
  // two layers at the first op.
  options.windowLayers = 2;
  expectFetchesBefore(
      [](unsigned layer) { return layer < 2 ? 1 : 2 * (layer - 2) + 1; });
  // As the layer itself starts.
  options.windowLayers = 0;
  expectFetchesBefore([](unsigned layer) { return 2 * layer + 1; });
  // Right before the use, whatever the window.
  options.windowLayers = 2;
  options.windowFetchAtUse = true;
  expectFetchesBefore([](unsigned layer) { return 2 * layer + 2; });
}

// Each weight takes 1 ms over the link and each op about 1 us: the link
// bounds the step. Hoisted as early as the budget (the whole HBM) allows,
// every fetch is issued at the first op, and all but one wait in the
// link's queue, holding their buffers. Paced, layer i's weight is issued
// right before layer i - 1's matmul, the last op before the link runs out
// of work: that matmul waits for layer i - 1's weight, which lands as the
// link frees.
TEST_F(OffloadPlannerTest, PacedFetchesKeepTheLinkBusyAndNoMore) {
  ASSERT_TRUE(module);
  options.windowLayers = 0;
  options.windowHoistFetches = true;
  options.windowFetchAtUse = true;
  auto fetchPoints = [&] {
    SmallVector<unsigned> points(kNumLayers, 0);
    for (const PlannedGap &gap : plan().gaps)
      points[(gap.nextUse - 2) / 2] = gap.prefetchBefore;
    return points;
  };
  EXPECT_EQ(fetchPoints(), SmallVector<unsigned>(kNumLayers, 1));
  options.windowPaceFetches = true;
  EXPECT_EQ(fetchPoints(), (SmallVector<unsigned>{1, 2, 4, 6, 8, 10, 12, 14}));
}

// Four layers, each with a norm (1 KB, 1 us on either link) and a matmul
// weight (1 MB, 1 ms), streamed over a pool link with two queues and no
// latency and a disk link as fast but with one queue and 0.5 ms of
// latency. The weights go to the link that is done with them first: the
// pool at 1 ms, the disk at 1.5 ms, the pool at 2 ms, the disk at 3 ms
// (the pool would be at 3 ms and a microsecond of norms). A norm would hold
// the disk 0.5 ms for 1 us of bytes: every norm takes the pool, where the
// second one would otherwise have gone to the idle disk.
/// One function of a test's own, planned on the round-numbers target with
/// the whole HBM as the budget.
class PolicyOnOneFunctionTest : public ::testing::Test {
protected:
  PolicyOnOneFunctionTest() {
    context.loadDialect<HODialect, func::FuncDialect>();
    options.budget = target.device.hbmCapacity;
  }

  void parse(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
  }

  OffloadPlan plan() {
    auto function = *module->getOps<func::FuncOp>().begin();
    return planOffload(function.getBody().front(), target, options);
  }

  MLIRContext context;
  Target target = makeRoundNumbersTarget();
  PlannerOptions options;
  OwningOpRef<ModuleOp> module;
};

// ZeRO-3 partitions every parameter, read this step or not, but keeps the
// small ones: a weight no op reads stays in the tier, one of fewer elements
// than the threshold stays on the device, and one outside any layer is
// fetched too.
TEST_F(PolicyOnOneFunctionTest, ZeroPartitionsEveryWeightButTheSmallOnes) {
  parse(R"mlir(
    func.func @f(%x: tensor<1000xf32>,
                 %used: tensor<250000xf32> {ho.role = "weight"},
                 %idle: tensor<250000xf32> {ho.role = "weight"},
                 %norm: tensor<1000xf32> {ho.role = "weight"},
                 %head: tensor<250000xf32> {ho.role = "weight"}) -> tensor<1000xf32> {
      %a = ho.compute "matmul"(%x, %used, %norm) {flops = 1000000 : i64}
          : (tensor<1000xf32>, tensor<250000xf32>, tensor<1000xf32>) -> tensor<1000xf32> loc("layer 0 / mlp")
      %b = ho.compute "matmul"(%a, %head) {flops = 1000000 : i64}
          : (tensor<1000xf32>, tensor<250000xf32>) -> tensor<1000xf32> loc("head")
      return %b : tensor<1000xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  options.policy = OffloadPolicy::Window;
  options.windowPartitionAll = true;
  auto remoteIndices = [&] {
    SmallVector<unsigned> indices;
    for (const RemoteArgument &arg : plan().remoteArguments)
      indices.push_back(arg.index);
    llvm::sort(indices);
    return indices;
  };
  // %norm has 1000 elements, under DeepSpeed's 1e5.
  EXPECT_EQ(remoteIndices(), (SmallVector<unsigned>{1, 2, 4}));
  options.windowPersistenceThreshold = 0;
  EXPECT_EQ(remoteIndices(), (SmallVector<unsigned>{1, 2, 3, 4}));
  // Without partitioning, only weights read inside a layer move.
  options.windowPartitionAll = false;
  EXPECT_EQ(remoteIndices(), (SmallVector<unsigned>{1, 3}));
}

// One saved activation: stored after its forward use (point 1), read again
// by the backward op at point 4, with 1 ms of forward and backward compute
// between; its 0.5 MB copy takes 0.5 ms.
TEST_F(PolicyOnOneFunctionTest, PT2AsShippedReloadsAtTheUseAndWaitsForStores) {
  parse(R"mlir(
    func.func @f(%x: tensor<1000xf32>) -> tensor<1000xf32> {
      %s = ho.compute "p"(%x) {flops = 0 : i64} : (tensor<1000xf32>) -> tensor<125000xf32> loc("layer 0 / saved")
      %a = ho.compute "f"(%x) {flops = 1000000000 : i64} : (tensor<1000xf32>) -> tensor<1000xf32> loc("layer 1 / f")
      %b = ho.compute "g"(%a) {flops = 1000000000 : i64} : (tensor<1000xf32>) -> tensor<1000xf32> loc("backward / layer 1 / g")
      %c = ho.compute "h"(%b, %s) {flops = 0 : i64} : (tensor<1000xf32>, tensor<125000xf32>) -> tensor<1000xf32> loc("backward / layer 0 / h")
      return %c : tensor<1000xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  options.policy = OffloadPolicy::PT2;
  auto planGap = [&] {
    OffloadPlan planned = plan();
    EXPECT_EQ(planned.gaps.size(), 1u);
    return planned.gaps.empty() ? PlannedGap() : planned.gaps.front();
  };
  // Prefetched: the reload is hoisted before "g", whose 1 ms covers it.
  PlannedGap hoisted = planGap();
  EXPECT_EQ(hoisted.storeAfter, 1u);
  EXPECT_EQ(hoisted.prefetchBefore, 3u);
  EXPECT_EQ(hoisted.waitBefore, std::nullopt);
  // As shipped: the reload right before "h", and compute waits for the
  // store before "f".
  options.pt2ReloadPrefetch = false;
  options.pt2SeparateStream = false;
  PlannedGap shipped = planGap();
  EXPECT_EQ(shipped.prefetchBefore, 4u);
  EXPECT_EQ(shipped.nextUse, 4u);
  EXPECT_EQ(shipped.waitBefore, 2u);
}

TEST(OffloadPlannerTiersTest, CopiesThatMostlyWaitTakeTheLinkTheyHoldLeast) {
  MLIRContext context;
  context.loadDialect<HODialect, func::FuncDialect>();
  std::string arguments = "%x: tensor<1000xf32>";
  std::string body;
  std::string previous = "%x";
  for (unsigned layer = 0; layer < 4; ++layer) {
    arguments +=
        llvm::formatv(", %n{0}: tensor<250xf32> {{ho.role = \"weight\"}"
                      ", %w{0}: tensor<250000xf32> {{ho.role = \"weight\"}",
                      layer);
    body += llvm::formatv(
        "  %r{0} = ho.compute \"rmsnorm\"({1}, %n{0}) {{flops = 1000 : i64} "
        ": (tensor<1000xf32>, tensor<250xf32>) -> tensor<1000xf32> "
        "loc(\"layer {0} / norm\")\n"
        "  %m{0} = ho.compute \"matmul\"(%r{0}, %w{0}) {{flops = 1000000 : "
        "i64} : (tensor<1000xf32>, tensor<250000xf32>) -> tensor<1000xf32> "
        "loc(\"layer {0} / mlp\")\n",
        layer, previous);
    previous = llvm::formatv("%m{0}", layer);
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      llvm::formatv("func.func @f({0}) -> tensor<1000xf32> {{\n{1}  "
                    "return {2} : tensor<1000xf32>\n}",
                    arguments, body, previous)
          .str(),
      &context);
  ASSERT_TRUE(module);
  Target target = makeRoundNumbersTarget();
  target.getLink(MemoryTier::pool)->queuesPerDirection = 2;
  LinkModel disk = makeRoundNumbersLink();
  disk.latency = 0.5e-3;
  target.links[static_cast<unsigned>(MemoryTier::disk)] = disk;
  PlannerOptions options;
  options.policy = OffloadPolicy::Window;
  options.budget = target.device.hbmCapacity;
  options.windowHoistFetches = true;
  auto function = *module->getOps<func::FuncOp>().begin();
  OffloadPlan plan = planOffload(function.getBody().front(), target, options);

  SmallVector<MemoryTier> norms, weights;
  for (const RemoteArgument &argument : plan.remoteArguments)
    // Argument 0 is %x; then each layer's norm and weight.
    (argument.index % 2 ? norms : weights).push_back(argument.tier);
  EXPECT_EQ(norms, SmallVector<MemoryTier>(4, MemoryTier::pool));
  EXPECT_EQ(weights,
            (SmallVector<MemoryTier>{MemoryTier::pool, MemoryTier::disk,
                                     MemoryTier::pool, MemoryTier::disk}));
}
} // namespace
