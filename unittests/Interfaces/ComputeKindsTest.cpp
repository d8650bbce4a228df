//===- ComputeKindsTest.cpp - Tests of the ho.compute cost formulas -------===//
//
// Every expected number is worked out by hand next to it, from the formulas
// in ComputeKinds.h.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/ComputeKinds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr int64_t kDynamic = ShapedType::kDynamic;

class ComputeKindsTest : public ::testing::Test {
protected:
  ComputeKindsTest() {
    context.loadDialect<HODialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
    b.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  }
  RankedTensorType bf16(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getBF16Type());
  }

  /// A `kind` op reading fresh values of `operands` and returning `results`.
  ComputeOp compute(StringRef kind, ArrayRef<Type> operands,
                    ArrayRef<Type> results) {
    SmallVector<Value> inputs;
    for (Type type : operands)
      inputs.push_back(ComputeOp::create(b, b.getUnknownLoc(), TypeRange{type},
                                         "source", ValueRange{})
                           .getResult(0));
    return ComputeOp::create(b, b.getUnknownLoc(), results, kind, inputs);
  }

  /// The size-based defaults, to check that an op falls back to them.
  static std::optional<int64_t> defaultFlops(ComputeOp op) {
    return ho::detail::getDefaultFlopCount(op);
  }
  static std::optional<int64_t> defaultBytes(ComputeOp op) {
    return ho::detail::getDefaultBytesAccessed(op);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  OpBuilder b{&context};
};

//===----------------------------------------------------------------------===//
// matmul, batch_matmul
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, MatmulIsTwoFlopsPerMultiplyAccumulate) {
  ComputeOp op =
      compute("matmul", {bf16({64, 128}), bf16({128, 32})}, {f32({64, 32})});
  EXPECT_EQ(op.getFlopCount(), 2 * 64 * 32 * 128);
  // Bytes stay the default: 16 KiB + 8 KiB read, 8 KiB written.
  EXPECT_EQ(op.getBytesAccessed(), 16384 + 8192 + 8192);
}

TEST_F(ComputeKindsTest, BatchMatmulBroadcastsA2DRightHandSide) {
  ComputeOp broadcast = compute(
      "batch_matmul", {f32({4, 16, 32}), f32({32, 8})}, {f32({4, 16, 8})});
  EXPECT_EQ(broadcast.getFlopCount(), 2 * (4 * 16 * 8) * 32);

  ComputeOp batched =
      compute("batch_matmul", {f32({2, 3, 4, 5}), f32({2, 3, 5, 6})},
              {f32({2, 3, 4, 6})});
  EXPECT_EQ(batched.getFlopCount(), 2 * (2 * 3 * 4 * 6) * 5);
}

TEST_F(ComputeKindsTest, MatmulOutsideItsConventionKeepsTheDefaults) {
  // K of A (8) differs from K of B (6).
  ComputeOp badK = compute("matmul", {f32({4, 8}), f32({6, 2})}, {f32({4, 2})});
  EXPECT_EQ(badK.getFlopCount(), 4 * 2);
  EXPECT_EQ(badK.getBytesAccessed(), defaultBytes(badK));

  // A vector is not [M, K].
  ComputeOp vector = compute("matmul", {f32({8}), f32({8, 2})}, {f32({2})});
  EXPECT_EQ(vector.getFlopCount(), 2);

  // Batch dimensions that differ between B and the result.
  ComputeOp badBatch = compute("batch_matmul", {f32({2, 4, 8}), f32({3, 8, 4})},
                               {f32({2, 4, 4})});
  EXPECT_EQ(badBatch.getFlopCount(), 2 * 4 * 4);

  // A third operand (a fused bias?) is not guessed at.
  ComputeOp bias =
      compute("matmul", {f32({4, 8}), f32({8, 2}), f32({2})}, {f32({4, 2})});
  EXPECT_EQ(bias.getFlopCount(), 4 * 2);
}

TEST_F(ComputeKindsTest, MatmulWithDynamicShapesIsUnknown) {
  ComputeOp op = compute("matmul", {f32({kDynamic, 8}), f32({8, 2})},
                         {f32({kDynamic, 2})});
  EXPECT_EQ(op.getFlopCount(), std::nullopt);
  EXPECT_EQ(op.getBytesAccessed(), std::nullopt);
}

TEST_F(ComputeKindsTest, OverflowIsUnknownRatherThanWrong) {
  int64_t huge = int64_t{1} << 31;
  ComputeOp op = compute("matmul", {f32({huge, huge}), f32({huge, huge})},
                         {f32({huge, huge})});
  // 2 * 2^62 * 2^31 does not fit in int64_t.
  EXPECT_EQ(op.getFlopCount(), std::nullopt);
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, AttentionCountsEveryScore) {
  // B = 2, H = 4, Sq = 8, Sk = 32, D = Dv = 16, no grouping.
  ComputeOp op =
      compute("attention",
              {f32({2, 4, 8, 16}), f32({2, 4, 32, 16}), f32({2, 4, 32, 16})},
              {f32({2, 4, 8, 16})});
  // Scores 8*32 = 256 per head; 2*(16+16) + 5 = 69 per score.
  EXPECT_EQ(op.getFlopCount(), 2 * 4 * 256 * 69);
  EXPECT_EQ(op.getBytesAccessed(), defaultBytes(op));
}

TEST_F(ComputeKindsTest, AttentionWithGroupedKeyValueHeads) {
  // H = 8 query heads share Hkv = 2; Dv = 32 differs from D = 16.
  ComputeOp op =
      compute("attention",
              {bf16({1, 8, 4, 16}), bf16({1, 2, 64, 16}), bf16({1, 2, 64, 32})},
              {bf16({1, 8, 4, 32})});
  // 4*64 = 256 scores per head; 2*(16+32) + 5 = 101 per score.
  EXPECT_EQ(op.getFlopCount(), 8 * 256 * 101);
  // 1024 + 4096 + 8192 + 2048 bytes.
  EXPECT_EQ(op.getBytesAccessed(), 1024 + 4096 + 8192 + 2048);
}

TEST_F(ComputeKindsTest, CausalAttentionWithFewerQueriesThanKeys) {
  ComputeOp op =
      compute("attention",
              {f32({1, 4, 8, 16}), f32({1, 2, 32, 16}), f32({1, 2, 32, 16})},
              {f32({1, 4, 8, 16})});
  op->setAttr("causal", b.getUnitAttr());
  // The 8 queries are positions 24..31 and see 25..32 keys: 228 scores, the
  // average Sk - (Sq - 1) / 2 = 28.5 times 8.
  EXPECT_EQ(op.getFlopCount(), 4 * 228 * 69);
}

TEST_F(ComputeKindsTest, CausalAttentionWithAsManyQueriesAsKeys) {
  ComputeOp op = compute(
      "attention", {f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8})},
      {f32({1, 2, 4, 8})});
  op->setAttr("causal", b.getUnitAttr());
  // 1 + 2 + 3 + 4 = 10 of the 16 scores; 2*(8+8) + 5 = 37 per score.
  EXPECT_EQ(op.getFlopCount(), 2 * 10 * 37);
}

TEST_F(ComputeKindsTest, CausalDecodeSeesTheWholeCache) {
  // One new query at the end of 100 positions sees all 100 keys.
  ComputeOp op = compute(
      "attention",
      {bf16({1, 8, 1, 64}), bf16({1, 2, 100, 64}), bf16({1, 2, 100, 64})},
      {bf16({1, 8, 1, 64})});
  op->setAttr("causal", b.getUnitAttr());
  EXPECT_EQ(op.getFlopCount(), 8 * 100 * (2 * 128 + 5));
}

TEST_F(ComputeKindsTest, AttentionOutsideItsConventionKeepsTheDefaults) {
  // 3 query heads cannot share 2 KV heads.
  ComputeOp ungrouped = compute(
      "attention", {f32({1, 3, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8})},
      {f32({1, 3, 2, 8})});
  EXPECT_EQ(ungrouped.getFlopCount(), 3 * 2 * 8);

  // A causal mask with more queries (4) than keys (2).
  ComputeOp causal = compute(
      "attention", {f32({1, 1, 4, 8}), f32({1, 1, 2, 8}), f32({1, 1, 2, 8})},
      {f32({1, 1, 4, 8})});
  causal->setAttr("causal", b.getUnitAttr());
  EXPECT_EQ(causal.getFlopCount(), 4 * 8);

  // Head dimensions of q and k differ.
  ComputeOp badD = compute(
      "attention", {f32({1, 1, 2, 8}), f32({1, 1, 2, 4}), f32({1, 1, 2, 8})},
      {f32({1, 1, 2, 8})});
  EXPECT_EQ(badD.getFlopCount(), 2 * 8);

  // Rank 3 operands.
  ComputeOp rank3 =
      compute("attention", {f32({1, 2, 8}), f32({1, 2, 8}), f32({1, 2, 8})},
              {f32({1, 2, 8})});
  EXPECT_EQ(rank3.getFlopCount(), 16);
}

TEST_F(ComputeKindsTest, AttentionWithDynamicShapesIsUnknown) {
  ComputeOp op = compute(
      "attention",
      {f32({1, 2, 4, 8}), f32({1, 2, kDynamic, 8}), f32({1, 2, kDynamic, 8})},
      {f32({1, 2, 4, 8})});
  EXPECT_EQ(op.getFlopCount(), std::nullopt);
}

//===----------------------------------------------------------------------===//
// Per-element kinds
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, PerElementTable) {
  EXPECT_EQ(getFlopsPerResultElement("add"), 1);
  EXPECT_EQ(getFlopsPerResultElement("mul"), 1);
  EXPECT_EQ(getFlopsPerResultElement("relu"), 1);
  EXPECT_EQ(getFlopsPerResultElement("residual"), 1);
  EXPECT_EQ(getFlopsPerResultElement("silu"), 4);
  EXPECT_EQ(getFlopsPerResultElement("swiglu"), 5);
  EXPECT_EQ(getFlopsPerResultElement("gelu"), 9);
  EXPECT_EQ(getFlopsPerResultElement("rope"), 3);
  EXPECT_EQ(getFlopsPerResultElement("copy"), 0);
  EXPECT_EQ(getFlopsPerResultElement("cast"), 0);
  EXPECT_EQ(getFlopsPerResultElement("rmsnorm"), 4);
  EXPECT_EQ(getFlopsPerResultElement("layernorm"), 7);
  EXPECT_EQ(getFlopsPerResultElement("softmax"), 5);
  EXPECT_EQ(getFlopsPerResultElement("matmul"), std::nullopt);
  EXPECT_EQ(getFlopsPerResultElement("dequant"), std::nullopt);
}

TEST_F(ComputeKindsTest, ElementwiseAndNormsScaleTheResultSize) {
  ComputeOp gelu = compute("gelu", {f32({4, 8})}, {f32({4, 8})});
  EXPECT_EQ(gelu.getFlopCount(), 9 * 32);
  EXPECT_EQ(gelu.getBytesAccessed(), 2 * 128);

  ComputeOp cast = compute("cast", {f32({4, 8})}, {bf16({4, 8})});
  EXPECT_EQ(cast.getFlopCount(), 0);
  EXPECT_EQ(cast.getBytesAccessed(), 128 + 64);

  ComputeOp norm = compute("rmsnorm", {f32({4, 8}), f32({8})}, {f32({4, 8})});
  EXPECT_EQ(norm.getFlopCount(), 4 * 32);
  EXPECT_EQ(norm.getBytesAccessed(), 128 + 32 + 128);

  ComputeOp dynamic = compute("softmax", {f32({kDynamic})}, {f32({kDynamic})});
  EXPECT_EQ(dynamic.getFlopCount(), std::nullopt);
}

TEST_F(ComputeKindsTest, Collectives) {
  EXPECT_TRUE(isCollectiveKind("allreduce"));
  EXPECT_TRUE(isCollectiveKind("allgather"));
  EXPECT_TRUE(isCollectiveKind("reduce_scatter"));
  EXPECT_TRUE(isCollectiveKind("all_to_all"));
  EXPECT_FALSE(isCollectiveKind("matmul"));
  EXPECT_FALSE(isCollectiveKind("add"));

  ComputeOp allreduce = compute("allreduce", {f32({1024})}, {f32({1024})});
  EXPECT_EQ(allreduce.getFlopCount(), 1024);
  EXPECT_EQ(allreduce.getBytesAccessed(), 8192);
  ComputeOp scatter = compute("reduce_scatter", {f32({1024})}, {f32({256})});
  EXPECT_EQ(scatter.getFlopCount(), 256);
  ComputeOp gather = compute("allgather", {f32({256})}, {f32({1024})});
  EXPECT_EQ(gather.getFlopCount(), 0);
  EXPECT_EQ(gather.getBytesAccessed(), 1024 + 4096);
}

//===----------------------------------------------------------------------===//
// embedding, gather
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, EmbeddingMovesTheRowsNotTheTable) {
  auto ids = RankedTensorType::get({2, 8}, b.getI32Type()); // 64 bytes
  ComputeOp op =
      compute("embedding", {bf16({1000, 64}), ids}, {bf16({2, 8, 64})});
  EXPECT_EQ(op.getFlopCount(), 0);
  // 16 rows of 128 bytes read and written, plus the indices.
  EXPECT_EQ(op.getBytesAccessed(), 2 * 2048 + 64);
}

TEST_F(ComputeKindsTest, GatherOutsideItsConventionKeepsTheDefaults) {
  auto ids = RankedTensorType::get({2, 8}, b.getI32Type());
  // A row width (32) that is not the table's (64).
  ComputeOp op = compute("gather", {bf16({1000, 64}), ids}, {bf16({2, 8, 32})});
  EXPECT_EQ(op.getFlopCount(), 2 * 8 * 32);
  EXPECT_EQ(op.getBytesAccessed(), 128000 + 64 + 1024);

  // A 3-D table.
  ComputeOp table3 =
      compute("embedding", {bf16({10, 4, 8}), ids}, {bf16({2, 8, 8})});
  EXPECT_EQ(table3.getBytesAccessed(), defaultBytes(table3));
}

//===----------------------------------------------------------------------===//
// kv_append, cache_update
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, KvAppendWithTiedCacheMovesTheNewEntriesOnly) {
  ComputeOp op = compute("kv_append", {bf16({4096, 128}), bf16({1, 128})},
                         {bf16({4096, 128})});
  op.setTiedOperandsAttr(b.getDenseI64ArrayAttr({0}));
  EXPECT_EQ(op.getFlopCount(), 0);
  // The 256-byte entry read and written; not the 1 MiB cache.
  EXPECT_EQ(op.getBytesAccessed(), 2 * 256);
}

TEST_F(ComputeKindsTest, CacheUpdateOfTwoTiedCaches) {
  ComputeOp op = compute(
      "cache_update",
      {bf16({1024, 64}), bf16({1024, 64}), bf16({2, 64}), bf16({2, 64})},
      {bf16({1024, 64}), bf16({1024, 64})});
  op.setTiedOperandsAttr(b.getDenseI64ArrayAttr({0, 1}));
  EXPECT_EQ(op.getBytesAccessed(), 2 * (256 + 256));
}

TEST_F(ComputeKindsTest, CacheUpdateWithADynamicCacheIsStillKnown) {
  // Only the new entries are measured, so the cache's size does not matter.
  ComputeOp op = compute("kv_append", {bf16({kDynamic, 128}), bf16({1, 128})},
                         {bf16({kDynamic, 128})});
  op.setTiedOperandsAttr(b.getDenseI64ArrayAttr({0}));
  EXPECT_EQ(op.getFlopCount(), 0);
  EXPECT_EQ(op.getBytesAccessed(), 2 * 256);
}

TEST_F(ComputeKindsTest, UntiedCacheUpdateKeepsTheDefaults) {
  ComputeOp untied = compute("kv_append", {bf16({4096, 128}), bf16({1, 128})},
                             {bf16({4096, 128})});
  EXPECT_EQ(untied.getFlopCount(), 4096 * 128);
  EXPECT_EQ(untied.getBytesAccessed(), 2 * 1048576 + 256);

  // One result tied, one with a buffer of its own.
  ComputeOp partly = compute("cache_update", {bf16({16, 8}), bf16({1, 8})},
                             {bf16({16, 8}), bf16({16, 8})});
  partly.setTiedOperandsAttr(b.getDenseI64ArrayAttr({0, ComputeOp::kUntied}));
  EXPECT_EQ(partly.getBytesAccessed(), defaultBytes(partly));
}

//===----------------------------------------------------------------------===//
// Other kinds and hints
//===----------------------------------------------------------------------===//

TEST_F(ComputeKindsTest, UnknownKindsKeepTheDefaults) {
  ComputeOp op = compute("dequant", {f32({4, 8})}, {bf16({4, 8})});
  EXPECT_EQ(op.getFlopCount(), defaultFlops(op));
  EXPECT_EQ(op.getBytesAccessed(), defaultBytes(op));
  EXPECT_EQ(op.getFlopCount(), 32);
}

TEST_F(ComputeKindsTest, HintsWinOverTheFormulas) {
  ComputeOp op =
      compute("kv_append", {bf16({16, 8}), bf16({1, 8})}, {bf16({16, 8})});
  op.setTiedOperandsAttr(b.getDenseI64ArrayAttr({0}));
  op.setFlopsAttr(b.getI64IntegerAttr(3));
  op.setBytesAttr(b.getI64IntegerAttr(5));
  EXPECT_EQ(op.getFlopCount(), 3);
  EXPECT_EQ(op.getBytesAccessed(), 5);
  // The formulas themselves ignore the hints.
  EXPECT_EQ(getComputeKindFlopCount(op), 0);
  EXPECT_EQ(getComputeKindBytesAccessed(op), 2 * 16);
}
} // namespace
