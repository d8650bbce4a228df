//===- WorkloadsTest.cpp - Model graphs against published figures ---------===//

#include "hyperoffload/Workloads/Workloads.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

namespace {
class WorkloadsTest : public ::testing::Test {
protected:
  WorkloadsTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  }

  func::FuncOp build(const WorkloadOptions &options) {
    llvm::Expected<OwningOpRef<ModuleOp>> built =
        buildWorkload(context, options);
    if (!built) {
      ADD_FAILURE() << llvm::toString(built.takeError());
      return nullptr;
    }
    module = std::move(*built);
    EXPECT_TRUE(succeeded(verify(*module)));
    return *module->getOps<func::FuncOp>().begin();
  }

  /// The error building `bad` fails with.
  std::string buildError(const WorkloadOptions &bad) {
    llvm::Expected<OwningOpRef<ModuleOp>> built = buildWorkload(context, bad);
    EXPECT_FALSE(static_cast<bool>(built));
    return built ? std::string() : llvm::toString(built.takeError());
  }

  /// Elements of the arguments with role `role`; bytes with `bytes`.
  static int64_t sumArguments(func::FuncOp function, llvm::StringRef role,
                              bool bytes = false) {
    int64_t total = 0;
    for (BlockArgument arg : function.getArguments()) {
      auto attr = function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        kRoleAttrName);
      if (!attr || attr.getValue() != role)
        continue;
      Type type = arg.getType();
      if (auto remote = dyn_cast<RemoteType>(type))
        type = remote.getTensorType();
      total += bytes ? *getTensorSizeInBytes(type)
                     : cast<ShapedType>(type).getNumElements();
    }
    return total;
  }

  static double sumFlops(func::FuncOp function) {
    double total = 0;
    function.walk([&](CostOpInterface op) {
      total += static_cast<double>(op.getFlopCount().value_or(0));
    });
    return total;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

WorkloadOptions options(llvm::StringRef model, Mode mode, int64_t batch,
                        int64_t sequence) {
  WorkloadOptions result;
  result.model = model.str();
  result.mode = mode;
  result.batch = batch;
  result.sequence = sequence;
  return result;
}

TEST_F(WorkloadsTest, Llama3ParametersMatchThePublishedCount) {
  ModelStats stats =
      cantFail(getModelStats(options("llama3-8b", Mode::Decode, 1, 16)));
  EXPECT_NEAR(stats.totalParameters / 8.03e9, 1.0, 0.005);
  // The graph holds exactly those weights.
  func::FuncOp function = build(options("llama3-8b", Mode::Decode, 1, 16));
  EXPECT_EQ(sumArguments(function, "weight"), stats.totalParameters);
}

TEST_F(WorkloadsTest, DeepSeekV3ParametersMatchThePublishedCounts) {
  ModelStats stats =
      cantFail(getModelStats(options("deepseek-v3", Mode::Decode, 1, 16)));
  EXPECT_NEAR(stats.totalParameters / 671e9, 1.0, 0.01);
  EXPECT_NEAR(stats.activeParameters / 37e9, 1.0, 0.05);
  func::FuncOp function = build(options("deepseek-v3", Mode::Decode, 1, 16));
  EXPECT_EQ(sumArguments(function, "weight"), stats.totalParameters);
}

TEST_F(WorkloadsTest, KVCacheBytesPerToken) {
  ModelStats llama =
      cantFail(getModelStats(options("llama3-8b", Mode::Decode, 1, 16)));
  EXPECT_EQ(llama.kvCacheBytesPerToken, 128 * 1024);
  ModelStats deepseek =
      cantFail(getModelStats(options("deepseek-v3", Mode::Decode, 1, 16)));
  EXPECT_EQ(deepseek.kvCacheBytesPerToken, (512 + 64) * 61 * 2);

  // The decode graphs' caches hold that much per token of context.
  func::FuncOp function = build(options("llama3-8b", Mode::Decode, 2, 1000));
  EXPECT_EQ(sumArguments(function, "kv_cache", /*bytes=*/true),
            2 * 1000 * llama.kvCacheBytesPerToken);
}

TEST_F(WorkloadsTest, ForwardFlopsAreTwiceTheActiveParametersPlusAttention) {
  const int64_t sequence = 2048;
  ModelStats stats =
      cantFail(getModelStats(options("llama3-8b", Mode::Prefill, 1, sequence)));
  func::FuncOp function =
      build(options("llama3-8b", Mode::Prefill, 1, sequence));
  // Causal attention: each query sees (S + 1) / 2 keys on average, and
  // QK^T and PV each take 2 * head_dim FLOPs per query-key pair and head.
  double attention = 32.0 * 32 * 2 * (128 + 128) * (sequence + 1) / 2;
  double expected =
      2.0 * (stats.activeParameters - stats.embeddingParameters) + attention;
  EXPECT_NEAR(sumFlops(function) / sequence / expected, 1.0, 0.05);
}

TEST_F(WorkloadsTest, DeepSeekForwardFlopsFollowTheActiveParameters) {
  const int64_t sequence = 1024;
  ModelStats stats = cantFail(
      getModelStats(options("deepseek-v3", Mode::Prefill, 1, sequence)));
  func::FuncOp function =
      build(options("deepseek-v3", Mode::Prefill, 1, sequence));
  // MLA attends with 192-wide keys and 128-wide values over 128 heads.
  double attention = 61.0 * 128 * 2 * (192 + 128) * (sequence + 1) / 2;
  double expected =
      2.0 * (stats.activeParameters - stats.embeddingParameters) + attention;
  EXPECT_NEAR(sumFlops(function) / sequence / expected, 1.0, 0.05);
}

TEST_F(WorkloadsTest, TrainingIsAboutThreeForwardPasses) {
  double forward =
      sumFlops(build(options("llama3-8b", Mode::Prefill, 1, 1024)));
  double train = sumFlops(build(options("llama3-8b", Mode::Train, 1, 1024)));
  EXPECT_NEAR(train / forward, 3.0, 0.15);
}

TEST_F(WorkloadsTest, TinyVariantsBuildInEveryMode) {
  for (llvm::StringRef model : {"llama3-tiny", "deepseek-v3-tiny"}) {
    for (Mode mode : {Mode::Decode, Mode::Prefill, Mode::Train}) {
      WorkloadOptions tiny = options(model, mode, 2, 64);
      ASSERT_TRUE(build(tiny))
          << model.str() << " " << stringifyMode(mode).str();
      if (model.starts_with("deepseek")) {
        tiny.attention = AttentionKind::NSA;
        ASSERT_TRUE(build(tiny)) << "NSA " << stringifyMode(mode).str();
      }
    }
  }
}

// No graph tells the planner which experts its routers pick: every expert
// is an operand of a routed kernel, read or not as the run decides, and no
// weight is an argument that nothing reads.
TEST_F(WorkloadsTest, NoWeightIsLeftUnreadForThePlannerToDrop) {
  for (Mode mode : {Mode::Decode, Mode::Prefill, Mode::Train}) {
    for (int64_t ep : {1, 2}) {
      WorkloadOptions tiny = options("deepseek-v3-tiny", mode, 2, 64);
      tiny.parallelism.ep = ep;
      func::FuncOp function = build(tiny);
      ASSERT_TRUE(function);
      unsigned experts = 0;
      for (BlockArgument arg : function.getArguments()) {
        auto role = function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                          kRoleAttrName);
        if (!role || role.getValue() != "weight")
          continue;
        EXPECT_FALSE(arg.use_empty())
            << "unused weight " << arg.getArgNumber() << " in "
            << stringifyMode(mode).str() << " with ep=" << ep;
        bool routed = llvm::any_of(arg.getUses(), [](OpOperand &use) {
          auto op = dyn_cast<RoutedOp>(use.getOwner());
          return op && op.getExpertPosition(use.getOperandNumber());
        });
        experts += routed;
      }
      // Two MoE layers of 8 routed experts, split over the EP group.
      EXPECT_EQ(experts, 2u * 8 / ep) << stringifyMode(mode).str();
    }
  }
}

TEST_F(WorkloadsTest, NamesSayWhichLayerAndOpATensorBelongsTo) {
  func::FuncOp function = build(options("llama3-tiny", Mode::Decode, 1, 32));
  bool found = false;
  for (BlockArgument arg : function.getArguments())
    if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
      found |= name.getName() == "layer 1 / attention / kv_cache";
  EXPECT_TRUE(found);
}

TEST_F(WorkloadsTest, DecodeUpdatesTheCacheInPlace) {
  func::FuncOp function = build(options("llama3-tiny", Mode::Decode, 1, 32));
  int appends = 0;
  function.walk([&](ComputeOp op) {
    if (op.getKind() != "kv_append")
      return;
    ++appends;
    EXPECT_EQ(op.getTiedOperand(op->getResult(0)), &op->getOpOperand(0));
  });
  EXPECT_EQ(appends, 2);
}

TEST_F(WorkloadsTest, RemoteCachesArePrefetchedAndStored) {
  WorkloadOptions remote = options("llama3-tiny", Mode::Decode, 1, 32);
  remote.remoteKVCache = true;
  func::FuncOp function = build(remote);
  int prefetches = 0, offloads = 0;
  function.walk([&](PrefetchOp) { ++prefetches; });
  function.walk([&](OffloadOp) { ++offloads; });
  EXPECT_EQ(prefetches, 2);
  EXPECT_EQ(offloads, 2);
  for (Type type : function.getResultTypes()) {
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      EXPECT_NE(tensor.getRank(), 5) << "a cache was returned on the device";
    }
  }
}

TEST_F(WorkloadsTest, ParallelismShardsTheDeviceGraph) {
  WorkloadOptions sharded = options("llama3-8b", Mode::Decode, 1, 16);
  sharded.parallelism.tp = 4;
  func::FuncOp function = build(sharded);
  int64_t weights = sumArguments(function, "weight");
  ModelStats stats = cantFail(getModelStats(sharded));
  // Everything but the norms and the embedding table is split four ways.
  EXPECT_LT(weights, stats.totalParameters / 3);
}

TEST_F(WorkloadsTest, BadOptionsAreNamed) {
  auto error = [&](const WorkloadOptions &bad) { return buildError(bad); };
  WorkloadOptions bad = options("gpt-5", Mode::Decode, 1, 16);
  EXPECT_EQ(error(bad), "option 'model': unknown model 'gpt-5'; known models "
                        "are: llama3-8b, llama3-tiny, deepseek-v3, "
                        "deepseek-v3-tiny, resnet50-pytorch, vit-b16-pytorch, "
                        "llama3-8b-decoder-pytorch");
  bad = options("llama3-8b", Mode::Decode, 0, 16);
  EXPECT_EQ(error(bad), "option 'batch': must be positive, got 0");
  bad = options("llama3-8b", Mode::Decode, 1, 16);
  bad.parallelism.tp = 3;
  EXPECT_EQ(error(bad),
            "option 'tp': 3 does not divide the attention heads (32)");
  bad = options("deepseek-v3", Mode::Decode, 1, 16);
  bad.parallelism.ep = 48;
  EXPECT_EQ(error(bad),
            "option 'ep': 48 does not divide the routed experts (256)");
  bad = options("llama3-8b", Mode::Decode, 1, 16);
  bad.layers = 40;
  EXPECT_EQ(error(bad), "option 'layers': llama3-8b has 32 layers");
  bad.layers = std::nullopt;
  bad.parallelism.pp = 2;
  bad.parallelism.ppStage = 2;
  EXPECT_EQ(error(bad), "option 'pp-stage': must be in [0, 2), got 2");
  bad = options("llama3-8b", Mode::Train, 1, 16);
  bad.remoteKVCache = true;
  EXPECT_EQ(error(bad), "option 'remote-kv': applies to decode only");
  bad = options("llama3-8b", Mode::Decode, 1, 16);
  bad.attention = AttentionKind::NSA;
  EXPECT_EQ(error(bad),
            "option 'attention': NSA is available for DeepSeek-V3 only");
}
} // namespace

namespace {
TEST_F(WorkloadsTest, Table3ScenarioMatchesThePaper) {
  const Scenario *scenario = lookupScenario("deepseek-v3-nsa-decode");
  ASSERT_TRUE(scenario);
  func::FuncOp function = build(scenario->options);
  BufferLiveness liveness(function.getBody().front(), 512);
  double peak = liveness.getPeakBytes() / 1e9;
  double kv = sumArguments(function, "kv_cache", /*bytes=*/true) / 1e9;
  double weights = sumArguments(function, "weight", /*bytes=*/true) / 1e9;
  // The paper: 61.2 GB peak without offload, of which about 16 GB KV cache
  // (the 26% that offloading it saves).
  EXPECT_NEAR(peak, 61.2, 3.0);
  EXPECT_NEAR(kv, 16.0, 1.5);
  EXPECT_NEAR(kv / peak, 0.26, 0.02);
  EXPECT_LT(weights, peak - kv);
}
} // namespace

namespace {
// The graphs imported from PyTorch (models/pytorch) against the counts
// torchvision publishes and the figures the scenarios state.
TEST_F(WorkloadsTest, ImportedScenariosHaveTheirModelsParameters) {
  struct Expected {
    llvm::StringRef scenario;
    int64_t parameters;
    double peakGB;
  } expected[] = {
      {"resnet50-pytorch-train", 25'557'032, 11.5},
      {"vit-b16-pytorch-train", 86'567'656, 9.6},
      {"llama3-8b-decoder-pytorch-train", 8 * 218'112'000, 47.1},
  };
  for (const Expected &model : expected) {
    SCOPED_TRACE(model.scenario.str());
    const Scenario *scenario = lookupScenario(model.scenario);
    ASSERT_TRUE(scenario);
    func::FuncOp function = build(scenario->options);
    ASSERT_TRUE(function);
    EXPECT_EQ(sumArguments(function, "weight"), model.parameters);
    EXPECT_EQ(cantFail(getModelStats(scenario->options)).totalParameters,
              model.parameters);
    BufferLiveness liveness(function.getBody().front(), 512);
    EXPECT_NEAR(liveness.getPeakBytes() / 1e9, model.peakGB, 0.05);
  }
}

TEST_F(WorkloadsTest, ImportedModelsKeepTheirExportedShapes) {
  auto error = [&](const WorkloadOptions &bad) { return buildError(bad); };
  WorkloadOptions train;
  train.model = "resnet50-pytorch";
  train.mode = Mode::Train;
  EXPECT_TRUE(build(train));

  WorkloadOptions batch = train;
  batch.batch = 8;
  EXPECT_EQ(error(batch),
            "option 'batch': does not apply to 'resnet50-pytorch', a graph "
            "imported from PyTorch with the shapes and types it was exported "
            "with (batch 256 x 3x224x224, bf16, Adam); export it again to "
            "change them (docs/PyTorch.md)");
  WorkloadOptions types = train;
  types.weightType = DType::F32;
  EXPECT_NE(error(types).find("option 'weight-type': does not apply"),
            std::string::npos);
  WorkloadOptions decode = train;
  decode.mode = Mode::Decode;
  EXPECT_EQ(error(decode), "option 'mode': 'resnet50-pytorch' is a training "
                           "step imported from PyTorch; its mode is 'train'");
}
} // namespace
