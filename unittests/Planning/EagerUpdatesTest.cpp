//===- EagerUpdatesTest.cpp - Which updates move, and where, by hand ------===//

#include "EagerUpdates.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::ho;

namespace {
class EagerUpdatesTest : public ::testing::Test {
protected:
  EagerUpdatesTest() { context.loadDialect<HODialect, func::FuncDialect>(); }

  /// Parses `ir`, schedules the updates of its function early, and returns
  /// whether any op moved.
  bool schedule(llvm::StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module);
    if (!module)
      return false;
    for (auto function : module->getOps<func::FuncOp>())
      if (!function.isExternal())
        body = &function.getBody().front();
    return scheduleUpdatesEagerly(*body);
  }

  /// The names of the body's ho.compute ops, in order.
  std::vector<std::string> order() {
    std::vector<std::string> names;
    for (auto op : body->getOps<ComputeOp>())
      names.push_back(op.getKind().str());
    return names;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Block *body = nullptr;
};

using Names = std::vector<std::string>;

// The optimizer chain of a parameter (a gradient feeding only the update,
// a cast feeding only the write-back) runs right after the gradient.
TEST_F(EagerUpdatesTest, UpdateChainFollowsItsGradient) {
  EXPECT_TRUE(schedule(R"mlir(
    func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32>, %m: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %grad = ho.compute "grad"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "b"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %m2 = ho.compute "adam"(%m, %grad) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %cast = ho.compute "cast"(%m2) : (tensor<4xf32>) -> tensor<4xf32>
      %w2 = ho.compute "write"(%w, %cast) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %b, %m2, %w2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
  )mlir"));
  EXPECT_EQ(order(), (Names{"grad", "adam", "cast", "write", "a", "b"}));
}

// An update may not overwrite a buffer before an op that reads the old
// value: the write-back of %w waits for "use_w".
TEST_F(EagerUpdatesTest, WriteWaitsForEarlierReaders) {
  EXPECT_TRUE(schedule(R"mlir(
    func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) {
      %grad = ho.compute "grad"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "use_w"(%a, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %c = ho.compute "c"(%b) : (tensor<4xf32>) -> tensor<4xf32>
      %w2 = ho.compute "write"(%w, %grad) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %c, %w2 : tensor<4xf32>, tensor<4xf32>
    }
  )mlir"));
  EXPECT_EQ(order(), (Names{"grad", "a", "use_w", "write", "c"}));
}

// A value that feeds two updates is the step's main work: it stays, and
// the updates follow it.
TEST_F(EagerUpdatesTest, SharedValuesStay) {
  EXPECT_TRUE(schedule(R"mlir(
    func.func @f(%x: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "b"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %shared = ho.compute "shared"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %c = ho.compute "c"(%b) : (tensor<4xf32>) -> tensor<4xf32>
      %s2 = ho.compute "update_s"(%s, %shared) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %t2 = ho.compute "update_t"(%t, %shared) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %c, %s2, %t2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
  )mlir"));
  EXPECT_EQ(order(), (Names{"a", "b", "shared", "update_s", "update_t", "c"}));
}

// Without an update out of place, nothing moves.
TEST_F(EagerUpdatesTest, InPlaceOrderIsKept) {
  EXPECT_FALSE(schedule(R"mlir(
    func.func @f(%x: tensor<4xf32>, %s: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) {
      %grad = ho.compute "grad"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %s2 = ho.compute "update"(%s, %grad) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %a, %s2 : tensor<4xf32>, tensor<4xf32>
    }
  )mlir"));
  EXPECT_EQ(order(), (Names{"grad", "update", "a"}));
}

// Nothing passes an op with unknown side effects.
TEST_F(EagerUpdatesTest, BarriersStayInPlace) {
  EXPECT_TRUE(schedule(R"mlir(
    func.func private @log()
    func.func @f(%x: tensor<4xf32>, %s: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) {
      %grad = ho.compute "grad"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      func.call @log() : () -> ()
      %a = ho.compute "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %s2 = ho.compute "update"(%s, %grad) {tied_operands = array<i64: 0>}
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %a, %s2 : tensor<4xf32>, tensor<4xf32>
    }
  )mlir"));
  EXPECT_EQ(order(), (Names{"grad", "update", "a"}));
  EXPECT_TRUE(isa<func::CallOp>(body->front().getNextNode()));
}
} // namespace
