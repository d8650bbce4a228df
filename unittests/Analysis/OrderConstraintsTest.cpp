//===- OrderConstraintsTest.cpp - Which ops may swap, by hand -------------===//

#include "hyperoffload/Analysis/OrderConstraints.h"

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
class OrderConstraintsTest : public ::testing::Test {
protected:
  OrderConstraintsTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  }

  /// Parses `ir` and analyses the body of its first function.
  void analyse(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    ASSERT_TRUE(module);
    for (auto function : module->getOps<func::FuncOp>())
      if (!function.isExternal()) {
        body = &function.getBody().front();
        break;
      }
    liveness.emplace(*body);
    constraints.emplace(*body, *liveness);
  }

  /// The `index`-th op of the body.
  Operation *op(unsigned index) { return liveness->getOp(index + 1); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Block *body = nullptr;
  std::optional<BufferLiveness> liveness;
  std::optional<OrderConstraints> constraints;
};

TEST_F(OrderConstraintsTest, IndependentComputeSwapsDependentDoesNot) {
  analyse(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "b"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %c = ho.compute "c"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %b, %c : tensor<4xf32>, tensor<4xf32>
    }
  )mlir");
  EXPECT_TRUE(constraints->maySwap(op(0), op(1)));
  EXPECT_FALSE(constraints->maySwap(op(0), op(2)));
  EXPECT_TRUE(constraints->maySwap(op(1), op(2)));
}

TEST_F(OrderConstraintsTest, InPlaceWritesKeepReadersInOrder) {
  analyse(R"mlir(
    func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %r = ho.compute "read"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %w = ho.compute "write"(%x) {tied_operands = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
      %o = ho.compute "other"(%y) : (tensor<4xf32>) -> tensor<4xf32>
      return %r, %o : tensor<4xf32>, tensor<4xf32>
    }
  )mlir");
  // Write after read, in either direction, and a write to another buffer.
  EXPECT_FALSE(constraints->maySwap(op(0), op(1)));
  EXPECT_TRUE(constraints->maySwap(op(1), op(2)));
  ASSERT_EQ(constraints->getAccess(op(1)).writes.size(), 1u);
  EXPECT_EQ(constraints->getAccess(op(1)).writes[0],
            liveness->lookup(body->getArgument(0))->id);
}

TEST_F(OrderConstraintsTest, TransfersKeepTheirOrderAndCallsBlockAll) {
  analyse(R"mlir(
    func.func private @log()
    func.func @f(%r: !ho.remote<tensor<4xf32>>, %s: !ho.remote<tensor<4xf32>>, %x: tensor<4xf32>) -> tensor<4xf32> {
      %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
      %g = ho.prefetch %s : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      func.call @log() : () -> ()
      %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
      %u = ho.await %g : !ho.future<tensor<4xf32>> -> tensor<4xf32>
      return %a : tensor<4xf32>
    }
  )mlir");
  EXPECT_FALSE(constraints->maySwap(op(0), op(1)));
  EXPECT_TRUE(constraints->maySwap(op(1), op(2)));
  EXPECT_FALSE(constraints->maySwap(op(2), op(3)));
  EXPECT_EQ(constraints->getAccess(op(3)).mobility, Mobility::Barrier);
  EXPECT_EQ(constraints->getAccess(op(4)).mobility, Mobility::Fixed);
}

TEST_F(OrderConstraintsTest, HoistScanStopsAtDependencesAndBarriers) {
  analyse(R"mlir(
    func.func private @log()
    func.func @f(%r: !ho.remote<tensor<4xf32>>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
      %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
      %a = ho.compute "a"(%t) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "b"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %c = ho.compute "c"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      func.call @log() : () -> ()
      %d = ho.compute "d"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
  )mlir");
  HoistScan scan(*constraints, op(1));
  EXPECT_FALSE(scan.offer(op(2))); // Reads the awaited copy.
  EXPECT_TRUE(scan.offer(op(3)));
  EXPECT_FALSE(scan.offer(op(4))); // Needs "a", which stays.
  EXPECT_FALSE(scan.isBlocked());
  EXPECT_FALSE(scan.offer(op(5)));
  EXPECT_TRUE(scan.isBlocked());
  EXPECT_FALSE(scan.offer(op(6))); // Independent, but past the call.
}
} // namespace
