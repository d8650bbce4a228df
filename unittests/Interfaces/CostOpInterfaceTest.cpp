//===- CostOpInterfaceTest.cpp - Tests of CostOpInterface defaults --------===//

#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
/// An external model that keeps every default, the way a model for an
/// upstream op starts out.
struct DefaultCostModel
    : public CostOpInterface::ExternalModel<DefaultCostModel, arith::AddFOp> {};

class CostOpInterfaceTest : public ::testing::Test {
protected:
  CostOpInterfaceTest() {
    DialectRegistry registry;
    registry.insert<HODialect, arith::ArithDialect>();
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::AddFOp::attachInterface<DefaultCostModel>(*ctx);
    });
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
    b.setInsertionPointToEnd(module->getBody());
  }

  /// A value of type `type` to feed the ops under test.
  Value value(Type type) {
    return ComputeOp::create(b, b.getUnknownLoc(), TypeRange{type}, "source",
                             ValueRange{})
        .getResult(0);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  OpBuilder b{&context};
};

TEST_F(CostOpInterfaceTest, ElementBitWidths) {
  EXPECT_EQ(getElementBitWidth(b.getBF16Type()), 16);
  EXPECT_EQ(getElementBitWidth(b.getIndexType()), 64);
  EXPECT_EQ(getElementBitWidth(ComplexType::get(b.getF32Type())), 64);
  EXPECT_EQ(getElementBitWidth(VectorType::get({4}, b.getF16Type())), 64);
  EXPECT_EQ(getElementBitWidth(b.getNoneType()), std::nullopt);
  EXPECT_EQ(getElementBitWidth(VectorType::get({4}, b.getF16Type(),
                                               /*scalableDims=*/{true})),
            std::nullopt);
}

TEST_F(CostOpInterfaceTest, TensorSizes) {
  EXPECT_EQ(getTensorSizeInBytes(RankedTensorType::get({3, 5}, b.getF32Type())),
            60);
  EXPECT_EQ(getTensorSizeInBytes(
                RankedTensorType::get({ShapedType::kDynamic}, b.getF32Type())),
            std::nullopt);
  EXPECT_EQ(getTensorSizeInBytes(b.getF32Type()), std::nullopt);
}

TEST_F(CostOpInterfaceTest, ComputeDefaultsFollowOperandAndResultSizes) {
  auto x = RankedTensorType::get({64, 128}, b.getBF16Type()); // 16 KiB
  auto w = RankedTensorType::get({128, 32}, b.getBF16Type()); // 8 KiB
  auto y = RankedTensorType::get({64, 32}, b.getF32Type());   // 8 KiB
  // A kind without a formula of its own (ComputeKindsTest has those).
  auto op = ComputeOp::create(b, b.getUnknownLoc(), TypeRange{y},
                              "fused_kernel", ValueRange{value(x), value(w)});
  auto cost = cast<CostOpInterface>(op.getOperation());
  EXPECT_EQ(cost.getFlopCount(), 64 * 32);
  EXPECT_EQ(cost.getBytesAccessed(), 16384 + 8192 + 8192);
}

TEST_F(CostOpInterfaceTest, ComputeHintsOverrideTheDefaults) {
  auto t = RankedTensorType::get({8}, b.getF32Type());
  auto op = ComputeOp::create(b, b.getUnknownLoc(), TypeRange{t}, "matmul",
                              ValueRange{value(t)});
  op.setFlopsAttr(b.getI64IntegerAttr(1000));
  EXPECT_EQ(op.getFlopCount(), 1000);
  EXPECT_EQ(op.getBytesAccessed(), 64);
  op.setBytesAttr(b.getI64IntegerAttr(0));
  EXPECT_EQ(op.getBytesAccessed(), 0);
}

TEST_F(CostOpInterfaceTest, DynamicShapesHaveNoStaticCost) {
  auto dynamic = RankedTensorType::get({ShapedType::kDynamic}, b.getF32Type());
  auto op = ComputeOp::create(b, b.getUnknownLoc(), TypeRange{dynamic},
                              "softmax", ValueRange{value(dynamic)});
  EXPECT_EQ(op.getFlopCount(), std::nullopt);
  EXPECT_EQ(op.getBytesAccessed(), std::nullopt);
}

TEST_F(CostOpInterfaceTest, ExternalModelsInheritTheDefaults) {
  auto t = RankedTensorType::get({4, 4}, b.getF16Type()); // 32 bytes
  auto add = arith::AddFOp::create(b, b.getUnknownLoc(), value(t), value(t));
  auto cost = dyn_cast<CostOpInterface>(add.getOperation());
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost.getFlopCount(), 16);
  EXPECT_EQ(cost.getBytesAccessed(), 3 * 32);

  // Ops without a model do not implement the interface.
  auto mul = arith::MulFOp::create(b, b.getUnknownLoc(), value(t), value(t));
  EXPECT_FALSE(isa<CostOpInterface>(mul.getOperation()));
}
} // namespace
