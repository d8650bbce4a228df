//===- ReportDigestTest.cpp - What the HTML report reads from a run -------===//

#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Compare/TensorRoles.h"
#include "hyperoffload/Compare/TimelineDigest.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "TinyWorkload.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class ReportDigestTest : public TinyWorkloadTest {
protected:
  PolicyComparison compare(std::vector<ComparedPolicy> policies) {
    ComparisonOptions options;
    options.budget = "5MB";
    options.policies = std::move(policies);
    options.recordTimelines = true;
    FailureOr<PolicyComparison> comparison = comparePolicies(*module, options);
    EXPECT_TRUE(succeeded(comparison));
    return std::move(*comparison);
  }

  /// The bytes of the input's arguments with each role.
  std::array<int64_t, kTensorRoleCount> getArgumentBytes() {
    std::array<int64_t, kTensorRoleCount> bytes = {};
    auto function = *module->getOps<func::FuncOp>().begin();
    for (BlockArgument arg : function.getArguments())
      bytes[static_cast<unsigned>(classifyTensor(arg))] +=
          getTensorSizeInBytes(arg.getType()).value_or(0);
    return bytes;
  }
};

unsigned index(TensorRole role) { return static_cast<unsigned>(role); }
} // namespace

TEST_F(ReportDigestTest, ArgumentsHaveTheirRoles) {
  std::array<int64_t, kTensorRoleCount> bytes = getArgumentBytes();
  EXPECT_GT(bytes[index(TensorRole::Weight)], 0);
  EXPECT_GT(bytes[index(TensorRole::KVCache)], 0);
  EXPECT_EQ(bytes[index(TensorRole::Gradient)], 0);
  EXPECT_EQ(stringifyTensorRole(TensorRole::KVCache), "KV cache");
}

TEST_F(ReportDigestTest, MemoryByRoleAddsUpToTheLiveBytes) {
  PolicyComparison comparison =
      compare({ComparedPolicy::None, ComparedPolicy::HyperOffload});
  for (const PolicyRun &run : comparison.runs) {
    std::vector<MemoryBucket> curve = bucketMemory(run.result, 50, 2);
    ASSERT_EQ(curve.size(), 50u);
    for (const MemoryBucket &bucket : curve) {
      int64_t total = 0;
      for (int64_t bytes : bucket.roleBytes)
        total += bytes;
      EXPECT_EQ(total, bucket.liveBytes);
      ASSERT_LE(bucket.largest.size(), 2u);
      if (bucket.largest.size() == 2)
        EXPECT_GE(bucket.largest[0].bytes, bucket.largest[1].bytes);
    }
    MemoryPeak peak = findMemoryPeak(run.result, 3);
    EXPECT_EQ(peak.liveBytes, run.result.peakLiveBytes);
    ASSERT_EQ(peak.largest.size(), 3u);
    EXPECT_FALSE(peak.largest[0].name.empty());
  }
  // Without offload, every argument is on the device at the peak: all the
  // weights and the whole KV cache (rounded up to the allocation
  // granularity).
  std::array<int64_t, kTensorRoleCount> arguments = getArgumentBytes();
  MemoryPeak none = findMemoryPeak(comparison.runs[0].result, 1);
  for (TensorRole role : {TensorRole::Weight, TensorRole::KVCache}) {
    EXPECT_GE(none.roleBytes[index(role)], arguments[index(role)]);
    EXPECT_LE(none.roleBytes[index(role)], arguments[index(role)] * 101 / 100);
  }
  // The plan's copies of the KV cache count as KV cache, not activations:
  // the planned run still shows KV cache on the device at its peak.
  MemoryPeak planned = findMemoryPeak(comparison.runs[1].result, 1);
  EXPECT_GT(planned.roleBytes[index(TensorRole::KVCache)], 0);
  EXPECT_LT(planned.liveBytes, none.liveBytes);
}

TEST_F(ReportDigestTest, GraphPartsAreTheLayersInOrder) {
  PolicyComparison comparison = compare({ComparedPolicy::None});
  size_t ops = 0;
  std::vector<GraphPart> parts = findGraphParts(comparison.runs[0].result, ops);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "layer 0");
  EXPECT_EQ(parts[1].name, "layer 1");
  EXPECT_LT(parts[0].firstOp, parts[1].firstOp);
  EXPECT_LT(parts[1].firstOp, ops);
}

TEST(GraphPartNameTest, IsTheLayerOfBuiltAndImportedNames) {
  EXPECT_EQ(getGraphPartName("layer 3 / attention / q"), "layer 3");
  EXPECT_EQ(getGraphPartName("backward / layer 3 / mlp / gate"),
            "backward / layer 3");
  EXPECT_EQ(getGraphPartName("encoder.layers.3.mlp.0"), "encoder.layers.3");
  EXPECT_EQ(getGraphPartName("encoder.layers.encoder_layer_3.mlp.0"),
            "encoder.layers.encoder_layer_3");
  EXPECT_EQ(getGraphPartName("backward / encoder.layers.11.mlp.0"),
            "backward / encoder.layers.11");
  EXPECT_EQ(getGraphPartName("optimizer / layer3.2.conv2.weight"),
            "optimizer / layer3");
  EXPECT_EQ(getGraphPartName("embedding"), "");
  EXPECT_EQ(getGraphPartName("backward / loss"), "");
}

TEST_F(ReportDigestTest, StretchesNameTheirOps) {
  PolicyComparison comparison = compare({ComparedPolicy::Reactive});
  const SimulationResult &result = comparison.runs[0].result;
  // At full resolution one stretch per op; merged, the first and last.
  std::vector<TrackDigest> exact = digestTracks(result, 0);
  std::vector<TrackDigest> merged = digestTracks(result, result.stepTime);
  ASSERT_FALSE(exact.empty());
  ASSERT_EQ(exact[0].name, "compute");
  EXPECT_EQ(exact[0].labels.size(), exact[0].stretches.size());
  EXPECT_NE(exact[0].labels.front().find("embed"), std::string::npos);
  ASSERT_EQ(merged[0].stretches.size(), 1u);
  EXPECT_NE(
      merged[0].labels[0].find(std::to_string(merged[0].events) + " events, "),
      std::string::npos);
  EXPECT_NE(merged[0].labels[0].find(exact[0].labels.front()),
            std::string::npos);
}
