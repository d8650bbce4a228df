//===- PolicySweepTest.cpp - Every policy across a range of hardware ------===//

#include "hyperoffload/Compare/PolicySweep.h"

#include "TinyWorkload.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ho;

static std::string errorOf(llvm::Expected<SweepAxis> axis) {
  return axis ? "" : llvm::toString(axis.takeError());
}

TEST(SweepAxis, RangesIncludeBothEnds) {
  llvm::Expected<SweepAxis> axis =
      parseSweepAxis("links.host.bandwidth_gbps=10:40:10");
  ASSERT_TRUE(static_cast<bool>(axis));
  EXPECT_EQ(axis->field, "links.host.bandwidth_gbps");
  EXPECT_EQ(axis->values, (std::vector<double>{10, 20, 30, 40}));
  // Decimal steps land on decimal values, and HI is reached.
  axis = parseSweepAxis("x=0.1:0.3:0.1");
  ASSERT_TRUE(static_cast<bool>(axis));
  EXPECT_EQ(axis->values, (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(getSweepOverride(*axis, axis->values[2]), "x=0.3");
  // HI between steps is not passed.
  axis = parseSweepAxis("x=1:10:4");
  ASSERT_TRUE(static_cast<bool>(axis));
  EXPECT_EQ(axis->values, (std::vector<double>{1, 5, 9}));
}

TEST(SweepAxis, ListsKeepTheirOrder) {
  llvm::Expected<SweepAxis> axis = parseSweepAxis("device.hbm_capacity_gib="
                                                  "64, 32,48");
  ASSERT_TRUE(static_cast<bool>(axis));
  EXPECT_EQ(axis->values, (std::vector<double>{64, 32, 48}));
  EXPECT_EQ(getSweepOverride(*axis, 33.6), "device.hbm_capacity_gib=33.6");
}

TEST(SweepAxis, BadAxesSayWhatIsWrong) {
  EXPECT_EQ(errorOf(parseSweepAxis("links.bandwidth_gbps")),
            "'links.bandwidth_gbps': expected FIELD=LO:HI:STEP or "
            "FIELD=V1,V2,..., e.g. links.host.bandwidth_gbps=10:400:10");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1:2")),
            "'x=1:2': expected LO:HI:STEP, got '1:2'");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1:a:1")),
            "'x=1:a:1': LO, HI and STEP must be numbers");
  EXPECT_EQ(errorOf(parseSweepAxis("x=5:1:1")), "'x=5:1:1': HI is below LO");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1:5:0")),
            "'x=1:5:0': STEP must be positive");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1:5000:1")),
            "'x=1:5000:1': 5000 points; at most 1000 are allowed");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1:2:1e-300")),
            "'x=1:2:1e-300': 1e+300 points; at most 1000 are allowed");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1,,2")), "'x=1,,2': '' is not a number");
  EXPECT_EQ(errorOf(parseSweepAxis("x=1,nan")),
            "'x=1,nan': 'nan' is not a number");
}

namespace {
using PolicySweepTest = TinyWorkloadTest;
} // namespace

TEST_F(PolicySweepTest, ReplansAtEveryPointAndSlowsAsBandwidthShrinks) {
  ComparisonOptions options;
  options.budget = "5MB";
  options.policies = {ComparedPolicy::Reactive, ComparedPolicy::HyperOffload};
  SweepAxis axis{"links.bandwidth_gbps", {5, 50, 400}};
  std::vector<std::pair<size_t, size_t>> progress;
  FailureOr<PolicySweep> sweep = sweepPolicies(
      *module, options, axis, [&](const PolicySweep &sofar, size_t total) {
        progress.push_back({sofar.points.size(), total});
      });
  ASSERT_TRUE(succeeded(sweep));
  EXPECT_EQ(progress,
            (std::vector<std::pair<size_t, size_t>>{{1, 3}, {2, 3}, {3, 3}}));
  ASSERT_EQ(sweep->points.size(), 3u);
  for (const SweepPoint &point : sweep->points) {
    ASSERT_EQ(point.comparison.runs.size(), 2u);
    // Each point ran on the changed target.
    EXPECT_EQ(
        point.comparison.target.getLink(MemoryTier::pool)->bandwidthToDevice,
        point.value * 1e9);
  }
  // Less bandwidth never makes a policy faster on this graph.
  for (size_t policy = 0; policy < 2; ++policy)
    for (size_t i = 1; i < 3; ++i)
      EXPECT_LE(sweep->points[i].comparison.runs[policy].result.stepTime,
                sweep->points[i - 1].comparison.runs[policy].result.stepTime);

  // One CSV row per point and policy, after the header.
  std::string csv;
  llvm::raw_string_ostream os(csv);
  writeSweepCSV(os, *sweep);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2);
  EXPECT_EQ(csv.find("field,value,policy,step_time_s,slowdown,"), 0u);
  EXPECT_NE(csv.find("\nlinks.bandwidth_gbps,400,hyperoffload,"),
            std::string::npos);

  llvm::json::Value json = sweepToJSON(*sweep);
  llvm::json::Object *root = json.getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->getInteger("version"), kComparisonSchemaVersion);
  EXPECT_EQ(root->getString("field"), "links.bandwidth_gbps");
  ASSERT_EQ(root->getArray("points")->size(), 3u);

  ComparisonTable table = tabulateSweep(*sweep);
  ASSERT_EQ(table.columns.size(), 3u);
  EXPECT_EQ(table.columns[0].header, "LINKS.BANDWIDTH_GBPS");
  EXPECT_EQ(table.columns[2].header, "HYPEROFFLOAD");
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0][0], "5");

  std::string html;
  llvm::raw_string_ostream page(html);
  writeSweepHtml(page, *sweep, "hyperoffload sweep ...");
  EXPECT_NE(html.find("data-plot=\"sweep-slowdown\""), std::string::npos);
  EXPECT_NE(html.find("data-plot=\"sweep-step-time\""), std::string::npos);
}

TEST_F(PolicySweepTest, AValueTheFieldRejectsFailsTheSweep) {
  ComparisonOptions options;
  options.budget = "5MB";
  options.policies = {ComparedPolicy::None};
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  SweepAxis axis{"links.bandwidth_gbps", {10, -1}};
  EXPECT_TRUE(failed(sweepPolicies(*module, options, axis)));
  EXPECT_EQ(message, "invalid hardware override: override "
                     "'links.bandwidth_gbps=-1': "
                     "links.pool.bandwidth_to_device_gbps: expected a "
                     "positive number, got -1");
}
