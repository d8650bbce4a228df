//===- ExecutedSelectionTest.cpp - Routed experts and picked blocks run ---===//
//
// Placed plans whose copies depend on picks made at run time, fetched on a
// prediction (an earlier hidden state's picks), JIT-compiled and run next
// to the program they came from. The synthetic router's picks depend on
// the inputs, so over a few seeds the prediction both hits and misses;
// either way the bits are the program's, and a plan that does not fetch
// its misses, or overwrites a slot, is caught.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTest.h"

#include <string>

using namespace mlir;
using namespace mlir::ho;

namespace {
// Four remote experts, one slot, filled on the picks of a guess made from
// the earlier hidden state h; the router's picks come from x.
constexpr llvm::StringLiteral kRoutedPlan = R"mlir(
  func.func @step(%x: tensor<4xf32> {ho.offset = 0 : i64},
                  %h: tensor<4xf32> {ho.offset = 16 : i64},
                  %e0: !ho.remote<tensor<16xf32>>, %e1: !ho.remote<tensor<16xf32>>,
                  %e2: !ho.remote<tensor<16xf32>>, %e3: !ho.remote<tensor<16xf32>>)
      -> (tensor<4xf32>, tensor<4xf32>) attributes {ho.arena_size = 256 : i64} {
    %guess = ho.compute "predict"(%h) {ho.offsets = array<i64: 32>} : (tensor<4xf32>) -> tensor<1x1xi32>
    %f = ho.prefetch_routed %guess : tensor<1x1xi32>
        experts(%e0, %e1, %e2, %e3 : !ho.remote<tensor<16xf32>>, !ho.remote<tensor<16xf32>>,
                                     !ho.remote<tensor<16xf32>>, !ho.remote<tensor<16xf32>>)
        {expert_ids = array<i64: 0, 1, 2, 3>, total_experts = 4 : i64,
         ho.offsets = array<i64: 64>} -> !ho.future<tensor<1x16xf32>>
    %ids = ho.compute "topk"(%x) {ho.offsets = array<i64: 48>} : (tensor<4xf32>) -> tensor<1x1xi32>
    %s = ho.await %f : !ho.future<tensor<1x16xf32>> -> tensor<1x16xf32>
    %z = ho.compute "other"(%x) {ho.offsets = array<i64: 144>} : (tensor<4xf32>) -> tensor<4xf32> loc("other")
    %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
        experts(%e0, %e1, %e2, %e3 : !ho.remote<tensor<16xf32>>, !ho.remote<tensor<16xf32>>,
                                     !ho.remote<tensor<16xf32>>, !ho.remote<tensor<16xf32>>)
        staged(%s : tensor<1x16xf32>)
        {first_expert = 0 : i64, total_experts = 4 : i64,
         ho.offsets = array<i64: 128>} -> tensor<4xf32> loc("expert_ffn")
    return %y, %z : tensor<4xf32>, tensor<4xf32>
  }
)mlir";

constexpr llvm::StringLiteral kRoutedProgram = R"mlir(
  func.func @step(%x: tensor<4xf32>, %h: tensor<4xf32>,
                  %e0: tensor<16xf32>, %e1: tensor<16xf32>,
                  %e2: tensor<16xf32>, %e3: tensor<16xf32>)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %ids = ho.compute "topk"(%x) : (tensor<4xf32>) -> tensor<1x1xi32>
    %z = ho.compute "other"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
        experts(%e0, %e1, %e2, %e3 : tensor<16xf32>, tensor<16xf32>,
                                     tensor<16xf32>, tensor<16xf32>)
        {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<4xf32>
    return %y, %z : tensor<4xf32>, tensor<4xf32>
  }
)mlir";

// A cache of 7 rows kept in the pool, read in blocks of 2 (the last one
// short), 2 picked: the places are filled on a guess made from h.
constexpr llvm::StringLiteral kBlocksPlan = R"mlir(
  func.func @step(%x: tensor<4xf32> {ho.offset = 0 : i64},
                  %h: tensor<4xf32> {ho.offset = 16 : i64},
                  %c: !ho.remote<tensor<1x7x4xf32>>) -> tensor<4xf32>
      attributes {ho.arena_size = 256 : i64} {
    %guess = ho.compute "predict"(%h) {ho.offsets = array<i64: 32>} : (tensor<4xf32>) -> tensor<1x2xi32>
    %f = ho.prefetch_blocks %c[%guess] {axis = 1 : i64, block_size = 2 : i64, ho.offsets = array<i64: 64>}
        : !ho.remote<tensor<1x7x4xf32>>, tensor<1x2xi32> -> !ho.future<tensor<1x4x4xf32>>
    %sel = ho.compute "select"(%x) {ho.offsets = array<i64: 48>} : (tensor<4xf32>) -> tensor<1x2xi32>
    %s = ho.await %f : !ho.future<tensor<1x4x4xf32>> -> tensor<1x4x4xf32>
    %g = ho.gather_blocks %c[%sel] staged(%s : tensor<1x4x4xf32>) {axis = 1 : i64, block_size = 2 : i64}
        : !ho.remote<tensor<1x7x4xf32>>, tensor<1x2xi32> -> tensor<1x4x4xf32>
    %y = ho.compute "attend"(%x, %g) {ho.offsets = array<i64: 128>} : (tensor<4xf32>, tensor<1x4x4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
)mlir";

constexpr llvm::StringLiteral kBlocksProgram = R"mlir(
  func.func @step(%x: tensor<4xf32>, %h: tensor<4xf32>, %c: tensor<1x7x4xf32>) -> tensor<4xf32> {
    %sel = ho.compute "select"(%x) : (tensor<4xf32>) -> tensor<1x2xi32>
    %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = 2 : i64}
        : tensor<1x7x4xf32>, tensor<1x2xi32> -> tensor<1x4x4xf32>
    %y = ho.compute "attend"(%x, %g) : (tensor<4xf32>, tensor<1x4x4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
)mlir";

/// The seeds tried: enough that a guess both hits and misses.
constexpr uint64_t kSeeds = 16;

/// The seeds whose guess was right, and those whose guess missed.
struct SeedsByOutcome {
  std::vector<uint64_t> hits;
  std::vector<uint64_t> misses;
};

class ExecutedSelectionTest : public ExecutionTest {
protected:
  /// Runs `plan` against `program` for every seed, checking that each run
  /// computes the program's bits; a run that fetched a miss made more
  /// copies than the prefetch.
  SeedsByOutcome runEverySeed(StringRef program, StringRef plan,
                              int64_t prefetchCopies) {
    SeedsByOutcome seeds;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      ExecutionComparison comparison =
          compare(program, plan, nullptr, /*checkIntegrity=*/true, seed);
      EXPECT_TRUE(comparison.isIdentical()) << "seed " << seed;
      EXPECT_EQ(comparison.integrityErrors, std::vector<std::string>())
          << "seed " << seed;
      int64_t copies = comparison.queues[0].copies;
      EXPECT_GE(copies, prefetchCopies) << "seed " << seed;
      (copies > prefetchCopies ? seeds.misses : seeds.hits).push_back(seed);
    }
    return seeds;
  }
};

/// Erases every call of `callee` in `module`.
void eraseCalls(ModuleOp module, StringRef callee) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  for (func::CallOp call : calls)
    call.erase();
}
} // namespace

TEST_F(ExecutedSelectionTest, RoutedPlanComputesTheSameBitsHitOrMiss) {
  SeedsByOutcome seeds =
      runEverySeed(kRoutedProgram, kRoutedPlan, /*prefetchCopies=*/1);
  EXPECT_FALSE(seeds.hits.empty());
  EXPECT_FALSE(seeds.misses.empty());
}

TEST_F(ExecutedSelectionTest, UnfetchedMissGivesWrongNumbers) {
  std::vector<uint64_t> misses =
      runEverySeed(kRoutedProgram, kRoutedPlan, /*prefetchCopies=*/1).misses;
  ASSERT_FALSE(misses.empty());
  // Without its ensure calls the kernel finds the guessed expert in the
  // slot, not the picked one.
  ExecutionComparison comparison = compare(
      kRoutedProgram, kRoutedPlan,
      [](ModuleOp module) { eraseCalls(module, "ho_routed_ensure"); },
      /*checkIntegrity=*/true, misses.front());
  EXPECT_FALSE(comparison.isIdentical());
}

TEST_F(ExecutedSelectionTest, OverwrittenSlotIsReportedAtTheKernel) {
  // "other" placed over the slot, after the guessed expert has landed
  // there; with a right guess nothing fetches into the slot again.
  std::vector<uint64_t> hits =
      runEverySeed(kRoutedProgram, kRoutedPlan, /*prefetchCopies=*/1).hits;
  ASSERT_FALSE(hits.empty());
  std::string plan = kRoutedPlan.str();
  size_t at = plan.find("{ho.offsets = array<i64: 144>}");
  ASSERT_NE(at, std::string::npos);
  plan.replace(plan.find("144", at), 3, "64");
  ExecutionComparison comparison = compare(
      kRoutedProgram, plan, nullptr, /*checkIntegrity=*/true, hits.front());
  ASSERT_FALSE(comparison.integrityErrors.empty());
  EXPECT_NE(comparison.integrityErrors.front().find(
                "loc(\"expert_ffn\"): reads arena bytes [64, 80) as buffer"),
            std::string::npos)
      << comparison.integrityErrors.front();
}

TEST_F(ExecutedSelectionTest, BlocksPlanComputesTheSameBitsHitOrMiss) {
  // The prefetch copies the row's picked blocks at once.
  SeedsByOutcome seeds =
      runEverySeed(kBlocksProgram, kBlocksPlan, /*prefetchCopies=*/1);
  EXPECT_FALSE(seeds.hits.empty());
  EXPECT_FALSE(seeds.misses.empty());
}

TEST_F(ExecutedSelectionTest, UnfetchedBlockGivesWrongNumbers) {
  std::vector<uint64_t> misses =
      runEverySeed(kBlocksProgram, kBlocksPlan, /*prefetchCopies=*/1).misses;
  ASSERT_FALSE(misses.empty());
  ExecutionComparison comparison = compare(
      kBlocksProgram, kBlocksPlan,
      [](ModuleOp module) { eraseCalls(module, "ho_blocks_ensure"); },
      /*checkIntegrity=*/true, misses.front());
  EXPECT_FALSE(comparison.isIdentical());
}
