//===- CostExternalModels.cpp - CostOpInterface for upstream ops ----------===//
//
// The formulas are documented in CostExternalModels.h and docs/CostModel.md.
//
// TOSA 1.0 removed tosa.fully_connected (MLIR 22 has no such op): front ends
// lower it to tosa.matmul, whose model covers it.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Interfaces/CostExternalModels.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::ho;

/// The product of `factors`; std::nullopt if one is dynamic or it overflows.
static std::optional<int64_t> product(ArrayRef<int64_t> factors) {
  int64_t result = 1;
  for (int64_t factor : factors) {
    if (ShapedType::isDynamic(factor))
      return std::nullopt;
    std::optional<int64_t> next = llvm::checkedMul(result, factor);
    if (!next)
      return std::nullopt;
    result = *next;
  }
  return result;
}

/// The shape of `value` if it is a ranked tensor of rank `rank`.
static std::optional<ArrayRef<int64_t>> shapeOfRank(Value value, int64_t rank) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != rank)
    return std::nullopt;
  return type.getShape();
}

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

/// Counts the arithmetic in one iteration of a structured op's body: arith
/// and math ops, without constants and casts, which move or relabel values
/// rather than compute. A matmul body (mulf, addf) counts 2.
static int64_t countArithmeticOps(Block *body) {
  int64_t count = 0;
  body->walk([&](Operation *op) {
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op->getDialect()))
      return;
    if (op->hasTrait<OpTrait::ConstantLike>() || isa<CastOpInterface>(op))
      return;
    ++count;
  });
  return count;
}

/// The size of every tensor or memref in `values`; std::nullopt if one is
/// not static. Scalars (a fill value) are not memory traffic.
static std::optional<int64_t> sizeOfShaped(ValueRange values) {
  int64_t total = 0;
  for (Value value : values) {
    if (!isa<TensorType, BaseMemRefType>(value.getType()))
      continue;
    std::optional<int64_t> size = getTensorSizeInBytes(value.getType());
    std::optional<int64_t> sum =
        size ? llvm::checkedAdd(total, *size) : std::nullopt;
    if (!sum)
      return std::nullopt;
    total = *sum;
  }
  return total;
}

namespace {
/// One model for every linalg structured op, named or generic: they all
/// describe their work as a loop nest around a scalar body.
struct LinalgCostModel : CostOpInterface::FallbackModel<LinalgCostModel> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return ho::detail::getDefaultFlopCount(op);
    std::optional<int64_t> iterations = product(linalgOp.getStaticLoopRanges());
    if (!iterations)
      return std::nullopt;
    return llvm::checkedMul(*iterations,
                            countArithmeticOps(linalgOp.getBlock()));
  }

  /// Inputs are read; inits are read and then written, as the tensor result
  /// on tensors or in place on buffers. On tensors this is the interface
  /// default (operands read, results written); it also covers memrefs.
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return ho::detail::getDefaultBytesAccessed(op);
    std::optional<int64_t> inputs = sizeOfShaped(linalgOp.getDpsInputs());
    std::optional<int64_t> inits = sizeOfShaped(linalgOp.getDpsInits());
    if (!inputs || !inits)
      return std::nullopt;
    return llvm::checkedMulAdd(*inits, int64_t{2}, *inputs);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// tosa
//===----------------------------------------------------------------------===//

/// 2 * elements(output) * `reduced`, where `reduced` are the sizes of the
/// dimensions each output element sums over.
static std::optional<int64_t> multiplyAccumulates(Value output,
                                                  ArrayRef<int64_t> reduced) {
  auto type = dyn_cast<RankedTensorType>(output.getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> factors = {2};
  llvm::append_range(factors, type.getShape());
  llvm::append_range(factors, reduced);
  return product(factors);
}

namespace {
/// tosa.matmul: a [N, H, C] x b [N, C, W] -> [N, H, W].
struct TosaMatmulCostModel
    : CostOpInterface::ExternalModel<TosaMatmulCostModel, tosa::MatMulOp> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    auto matmul = cast<tosa::MatMulOp>(op);
    std::optional<ArrayRef<int64_t>> a = shapeOfRank(matmul.getA(), 3);
    if (!a)
      return std::nullopt;
    return multiplyAccumulates(matmul.getOutput(), {(*a)[2]});
  }
};

/// tosa.conv2d: weight [OC, KH, KW, IC]; TOSA has no grouped conv2d.
struct TosaConv2DCostModel
    : CostOpInterface::ExternalModel<TosaConv2DCostModel, tosa::Conv2DOp> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    auto conv = cast<tosa::Conv2DOp>(op);
    std::optional<ArrayRef<int64_t>> weight = shapeOfRank(conv.getWeight(), 4);
    if (!weight)
      return std::nullopt;
    return multiplyAccumulates(conv.getOutput(), weight->drop_front());
  }
};

/// tosa.depthwise_conv2d: weight [KH, KW, C, M]; each output channel sums
/// over one input channel only.
struct TosaDepthwiseConv2DCostModel
    : CostOpInterface::ExternalModel<TosaDepthwiseConv2DCostModel,
                                     tosa::DepthwiseConv2DOp> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    auto conv = cast<tosa::DepthwiseConv2DOp>(op);
    std::optional<ArrayRef<int64_t>> weight = shapeOfRank(conv.getWeight(), 4);
    if (!weight)
      return std::nullopt;
    return multiplyAccumulates(conv.getOutput(), weight->take_front(2));
  }
};
} // namespace

template <typename... OpTys>
static void attachLinalgCostModel(MLIRContext *ctx) {
  (OpTys::template attachInterface<LinalgCostModel>(*ctx), ...);
}

void ho::registerCostExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    // Every op of LinalgStructuredOps.td, linalg.generic included: the list
    // follows the installed MLIR rather than a hand-kept copy.
    attachLinalgCostModel<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<TosaMatmulCostModel>(*ctx);
    tosa::Conv2DOp::attachInterface<TosaConv2DCostModel>(*ctx);
    tosa::DepthwiseConv2DOp::attachInterface<TosaDepthwiseConv2DCostModel>(
        *ctx);
  });
}
