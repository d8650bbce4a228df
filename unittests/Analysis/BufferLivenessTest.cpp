//===- BufferLivenessTest.cpp - Buffers and aliases, by hand --------------===//

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class BufferLivenessTest : public ::testing::Test {
protected:
  BufferLivenessTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  }

  Block &parse(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module);
    return (*module->getOps<func::FuncOp>().begin()).getBody().front();
  }

  /// The result of the op at `point`.
  Value resultAt(const BufferLiveness &liveness, unsigned point) {
    return liveness.getOp(point)->getResult(0);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BufferLivenessTest, ViewsAndTiedResultsShareTheirSourcesBuffer) {
  Block &body = parse(R"mlir(
    func.func @f(%cache: tensor<16x16xf32>, %kv: tensor<1x16xf32>) -> tensor<16xf32> {
      %c = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
          : (tensor<16x16xf32>, tensor<1x16xf32>) -> tensor<16x16xf32>
      %flat = tensor.collapse_shape %c [[0, 1]] : tensor<16x16xf32> into tensor<256xf32>
      %row = tensor.extract_slice %flat[16] [16] [1] : tensor<256xf32> to tensor<16xf32>
      %y = ho.compute "scale"(%row) : (tensor<16xf32>) -> tensor<16xf32>
      return %y : tensor<16xf32>
    }
  )mlir");
  BufferLiveness liveness(body);
  // %cache, %kv and %y own buffers; %c, %flat and %row live in %cache's.
  ASSERT_EQ(liveness.getBuffers().size(), 3u);
  const BufferInfo *cache = liveness.lookup(body.getArgument(0));
  ASSERT_TRUE(cache);
  for (unsigned point : {1u, 2u, 3u})
    EXPECT_EQ(liveness.lookup(resultAt(liveness, point)), cache);
  EXPECT_EQ(cache->aliases.size(), 4u);
  EXPECT_EQ(cache->size, 1024);
  // An argument: live from entry to exit, whatever its last use.
  EXPECT_EQ(cache->definition, 0u);
  EXPECT_EQ(cache->lastUse, liveness.getExitPoint());

  const BufferInfo *y = liveness.lookup(resultAt(liveness, 4));
  ASSERT_TRUE(y);
  EXPECT_NE(y, cache);
  EXPECT_EQ(y->lastUse, liveness.getExitPoint());

  // The arguments (1024 + 64) throughout, plus %y from point 4.
  EXPECT_EQ(liveness.getProfile()[0], 1024 + 64);
  EXPECT_EQ(liveness.getProfile()[3], 1024 + 64);
  EXPECT_EQ(liveness.getPeakBytes(), 1024 + 64 + 64);
  EXPECT_EQ(liveness.getPeakPoint(), 4u);
}

TEST_F(BufferLivenessTest, PrefetchAllocatesAndAwaitAliases) {
  Block &body = parse(R"mlir(
    func.func @f(%r: !ho.remote<tensor<8xf32>>) -> tensor<8xf32> {
      %f = ho.prefetch %r : !ho.remote<tensor<8xf32>> -> !ho.future<tensor<8xf32>>
      %t = ho.await %f : !ho.future<tensor<8xf32>> -> tensor<8xf32>
      return %t : tensor<8xf32>
    }
  )mlir");
  BufferLiveness liveness(body, /*granularity=*/64);
  // The remote argument takes no device memory.
  EXPECT_EQ(liveness.lookup(body.getArgument(0)), nullptr);
  ASSERT_EQ(liveness.getBuffers().size(), 1u);
  const BufferInfo &future = liveness.getBuffers().front();
  EXPECT_EQ(future.definition, 1u);
  EXPECT_EQ(future.size, 64);
  EXPECT_EQ(liveness.lookup(resultAt(liveness, 2)), &future);
  EXPECT_EQ(liveness.getDefinedAt(1).size(), 1u);
  EXPECT_EQ(liveness.getLastUsedAt(liveness.getExitPoint()).size(), 1u);
}
} // namespace
