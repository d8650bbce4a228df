//===- ExecutedPlanTest.cpp - Plans JIT-compiled and run for real ---------===//
//
// A placed plan of linalg ops, lowered, JIT-compiled and run on the
// threaded runtime next to the program it came from: intact, it computes
// the same bits; broken (a wait removed, a buffer placed over a live one),
// integrity checking names the op that goes wrong.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTest.h"

#include "mlir/IR/Diagnostics.h"

#include <cstring>
#include <string>

using namespace mlir;
using namespace mlir::ho;

namespace {
// x is device-resident at 0; the weight w is fetched into 16; exp's result
// a is stored from 32, whose bytes mul then reuses, and fetched back into
// 48 for the add, which writes where w was.
constexpr llvm::StringLiteral kPlan = R"mlir(
  func.func @step(%x: tensor<4xf32> {ho.offset = 0 : i64},
                  %w: !ho.remote<tensor<4xf32>>) -> tensor<4xf32>
      attributes {ho.arena_size = 64 : i64} {
    %f = ho.prefetch %w {ho.offsets = array<i64: 16>} : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
    %e0 = tensor.empty() {ho.offsets = array<i64: 32>} : tensor<4xf32>
    %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32> loc("exp")
    %s = ho.offload %a : tensor<4xf32> -> !ho.remote<tensor<4xf32>, host>
    ho.wait_offload %s : !ho.remote<tensor<4xf32>, host>
    %wd = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %e1 = tensor.empty() {ho.offsets = array<i64: 32>} : tensor<4xf32>
    %b = linalg.mul ins(%x, %wd : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32> loc("mul")
    %g = ho.prefetch %s {ho.offsets = array<i64: 48>} : !ho.remote<tensor<4xf32>, host> -> !ho.future<tensor<4xf32>>
    %ad = ho.await %g : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %e2 = tensor.empty() {ho.offsets = array<i64: 16>} : tensor<4xf32>
    %c = linalg.add ins(%b, %ad : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32> loc("add")
    return %c : tensor<4xf32>
  }
)mlir";

// The same computation without a plan.
constexpr llvm::StringLiteral kProgram = R"mlir(
  func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
    %e0 = tensor.empty() : tensor<4xf32>
    %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %b = linalg.mul ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4xf32>
    %c = linalg.add ins(%b, %a : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    return %c : tensor<4xf32>
  }
)mlir";

class ExecutedPlanTest : public ExecutionTest {
protected:
  ExecutionComparison run(StringRef plan,
                          std::function<void(ModuleOp)> edit = nullptr,
                          bool checkIntegrity = true) {
    return compare(kProgram, plan, std::move(edit), checkIntegrity);
  }
};

TEST_F(ExecutedPlanTest, IntactPlanComputesTheSameBits) {
  ExecutionComparison comparison = run(kPlan);
  ASSERT_EQ(comparison.results.size(), 1u);
  EXPECT_TRUE(comparison.isIdentical());
  EXPECT_EQ(comparison.integrityErrors, std::vector<std::string>());
  // The weight and the activation come in, the activation goes out.
  EXPECT_EQ(comparison.queues[0].bytes, 16);
  EXPECT_EQ(comparison.queues[2].bytes, 16);
  EXPECT_EQ(comparison.queues[3].bytes, 16);
}

TEST_F(ExecutedPlanTest, MissingAwaitIsReportedAtItsReader) {
  // The first event wait is the weight's.
  ExecutionComparison comparison = run(
      kPlan, [](ModuleOp module) { eraseCall(module, "ho_event_wait", 0); });
  ASSERT_FALSE(comparison.integrityErrors.empty());
  EXPECT_EQ(comparison.integrityErrors.front(),
            "loc(\"mul\"): reads arena bytes [16, 32) before the prefetch "
            "into [16, 32) has landed");
}

TEST_F(ExecutedPlanTest, MissingAwaitWithoutChecksGivesWrongNumbers) {
  // Without integrity checking the same plan reads the poisoned bytes the
  // prefetch had not filled, and the comparison catches it.
  ExecutionComparison comparison = run(
      kPlan, [](ModuleOp module) { eraseCall(module, "ho_event_wait", 0); },
      /*checkIntegrity=*/false);
  ASSERT_EQ(comparison.results.size(), 1u);
  EXPECT_FALSE(comparison.isIdentical());
}

TEST_F(ExecutedPlanTest, MissingStoreWaitIsReportedAtTheReuse) {
  ExecutionComparison comparison = run(
      kPlan, [](ModuleOp module) { eraseCall(module, "ho_offload_wait", 0); });
  ASSERT_FALSE(comparison.integrityErrors.empty());
  EXPECT_EQ(comparison.integrityErrors.front(),
            "loc(\"mul\"): writes arena bytes [32, 48) while the offload of "
            "[32, 48) has not completed");
}

TEST_F(ExecutedPlanTest, OverlappingOffsetIsReportedAtTheReader) {
  // exp's result placed over x, which mul reads afterwards.
  std::string plan = kPlan.str();
  size_t at = plan.find("%e0 = tensor.empty() {ho.offsets = array<i64: 32>}");
  ASSERT_NE(at, std::string::npos);
  plan.replace(plan.find("32", at), 2, "0");
  ExecutionComparison comparison = run(plan);
  ASSERT_FALSE(comparison.integrityErrors.empty());
  EXPECT_NE(comparison.integrityErrors.front().find(
                "loc(\"mul\"): reads arena bytes [0, 16) as buffer 0, but "
                "buffer"),
            std::string::npos)
      << comparison.integrityErrors.front();
}

// A schedule that no one placed has no arena to run in: compiling it says
// so at its first transfer.
TEST_F(ExecutedPlanTest, UnplacedScheduleIsRefusedAtItsFirstTransfer) {
  std::string plan = kPlan.str();
  size_t at = plan.find("\n      attributes {ho.arena_size = 64 : i64}");
  ASSERT_NE(at, std::string::npos);
  plan.erase(at, std::strlen("\n      attributes {ho.arena_size = 64 : i64}"));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(plan, &context);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(
      failed(JitFunction::compile(*module, "step", JitFunction::Options())));
  EXPECT_EQ(message, "cannot run: 'ho.prefetch' in a function without a "
                     "static memory plan (ho.arena_size); place the schedule "
                     "first (ho-assign-offsets)");
}
} // namespace
