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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
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

  /// Inputs are read; inits are written, as the tensor result on tensors
  /// or in place on buffers, and read first where the body uses their old
  /// value (a matmul accumulates; a fill or a copy does not). The same on
  /// tensors and memrefs.
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return ho::detail::getDefaultBytesAccessed(op);
    int64_t total = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<TensorType, BaseMemRefType>(operand.get().getType()))
        continue;
      std::optional<int64_t> size = getOperandBytes(linalgOp, operand);
      int64_t times = 1;
      if (linalgOp.isDpsInit(&operand) &&
          linalgOp.payloadUsesValueFromOperand(&operand))
        times = 2;
      std::optional<int64_t> sum =
          size ? llvm::checkedMulAdd(*size, times, total) : std::nullopt;
      if (!sum)
        return std::nullopt;
      total = *sum;
    }
    return total;
  }

private:
  /// The bytes of `operand`; for a dynamic shape, the extent its indexing
  /// map gives it over the op's static loop ranges (another operand may fix
  /// them).
  static std::optional<int64_t> getOperandBytes(linalg::LinalgOp linalgOp,
                                                OpOperand &operand) {
    if (std::optional<int64_t> size =
            getTensorSizeInBytes(operand.get().getType()))
      return size;
    auto type = cast<ShapedType>(operand.get().getType());
    if (!type.getElementType().isIntOrFloat())
      return std::nullopt;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    SmallVector<int64_t> shape;
    for (AffineExpr expr :
         linalgOp.getMatchingIndexingMap(&operand).getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return std::nullopt;
      shape.push_back(ranges[dim.getPosition()]);
    }
    std::optional<int64_t> elements = product(shape);
    std::optional<int64_t> bits =
        elements ? llvm::checkedMul(
                       *elements,
                       int64_t(type.getElementType().getIntOrFloatBitWidth()))
                 : std::nullopt;
    return bits ? std::optional<int64_t>(llvm::divideCeil(*bits, 8))
                : std::nullopt;
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

/// Elementwise tosa ops: the interface defaults, one operation per result
/// element and every operand read and result written once.
struct TosaElementwiseCostModel
    : CostOpInterface::FallbackModel<TosaElementwiseCostModel> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    return ho::detail::getDefaultFlopCount(op);
  }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    return ho::detail::getDefaultBytesAccessed(op);
  }
};

/// tosa reductions: one operation per input element.
struct TosaReductionCostModel
    : CostOpInterface::FallbackModel<TosaReductionCostModel> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!input)
      return std::nullopt;
    return product(input.getShape());
  }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    return ho::detail::getDefaultBytesAccessed(op);
  }
};

/// tosa.gather: reads the rows its indices pick (as many bytes as it
/// writes) and the indices, not the whole table.
struct TosaGatherCostModel
    : CostOpInterface::ExternalModel<TosaGatherCostModel, tosa::GatherOp> {
  std::optional<int64_t> getFlopCount(Operation *) const { return 0; }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    auto gather = cast<tosa::GatherOp>(op);
    std::optional<int64_t> rows =
        getTensorSizeInBytes(gather.getOutput().getType());
    std::optional<int64_t> indices =
        getTensorSizeInBytes(gather.getIndices().getType());
    if (!rows || !indices)
      return std::nullopt;
    return llvm::checkedMulAdd(*rows, int64_t{2}, *indices);
  }
};

/// tosa ops that only move data (transpose, concat, pad, ...): no
/// arithmetic, the default bytes. They are copies with a buffer of their
/// own; tosa.reshape (as tosa-to-linalg makes it: collapse_shape and
/// expand_shape), tensor.reshape and the other tensor views are not.
struct TosaDataMovementCostModel
    : CostOpInterface::FallbackModel<TosaDataMovementCostModel> {
  std::optional<int64_t> getFlopCount(Operation *) const { return 0; }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    return ho::detail::getDefaultBytesAccessed(op);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// tensor
//===----------------------------------------------------------------------===//

namespace {
/// tensor.insert_slice writes its source into the destination in place (the
/// result shares the destination's buffer): the source is read and written
/// once; the rest of the destination is not touched.
struct InsertSliceCostModel
    : CostOpInterface::ExternalModel<InsertSliceCostModel,
                                     tensor::InsertSliceOp> {
  std::optional<int64_t> getFlopCount(Operation *) const { return 0; }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    std::optional<int64_t> source = getTensorSizeInBytes(
        cast<tensor::InsertSliceOp>(op).getSource().getType());
    if (!source)
      return std::nullopt;
    return llvm::checkedMul(*source, int64_t{2});
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

namespace {
/// The counts of a region: FLOPs and bytes, added up.
struct Counts {
  int64_t flops = 0;
  int64_t bytes = 0;
};
} // namespace

/// Whether `op` does no device work, as estimateOpCost decides for an op
/// without a model (lib/Analysis/OpCost.cpp): tensor.empty, tensor views,
/// and what detail::isFreeOfDeviceWork names.
static bool doesNoDeviceWork(Operation *op) {
  return isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::CastOp, tensor::BitcastOp,
             tensor::ReshapeOp, tosa::ReshapeOp>(op) ||
         ho::detail::isFreeOfDeviceWork(op);
}

/// The sum of the counts of the ops of `block`, each executed once;
/// std::nullopt if one of them has no model, or a model that does not know.
static std::optional<Counts> sumBlock(Block &block) {
  Counts total;
  for (Operation &op : block) {
    auto model = dyn_cast<CostOpInterface>(&op);
    if (!model) {
      if (doesNoDeviceWork(&op))
        continue;
      return std::nullopt;
    }
    std::optional<int64_t> flops = model.getFlopCount();
    std::optional<int64_t> bytes = model.getBytesAccessed();
    if (!flops || !bytes)
      return std::nullopt;
    std::optional<int64_t> sumFlops = llvm::checkedAdd(total.flops, *flops);
    std::optional<int64_t> sumBytes = llvm::checkedAdd(total.bytes, *bytes);
    if (!sumFlops || !sumBytes)
      return std::nullopt;
    total = {*sumFlops, *sumBytes};
  }
  return total;
}

namespace {
/// A cost model for an op with regions, from the FLOPs and bytes `Model`
/// counts in them together (`getCounts`); unknown when they are.
template <typename Model>
struct RegionCostModel : CostOpInterface::FallbackModel<Model> {
  std::optional<int64_t> getFlopCount(Operation *op) const {
    std::optional<Counts> counts = Model::getCounts(op);
    return counts ? std::optional<int64_t>(counts->flops) : std::nullopt;
  }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    std::optional<Counts> counts = Model::getCounts(op);
    return counts ? std::optional<int64_t>(counts->bytes) : std::nullopt;
  }
};

/// The iterations of a loop (every dimension of a parallel one) from its
/// constant bounds and steps; std::nullopt when one is not constant or the
/// product overflows.
static std::optional<int64_t> getConstantTripCount(LoopLikeOpInterface loop) {
  SmallVector<int64_t> trips;
  // affine.parallel keeps its bounds in affine maps.
  if (auto parallel = dyn_cast<affine::AffineParallelOp>(*loop)) {
    std::optional<SmallVector<int64_t>> ranges = parallel.getConstantRanges();
    if (!ranges)
      return std::nullopt;
    for (auto [range, step] : llvm::zip_equal(*ranges, parallel.getSteps())) {
      if (step <= 0)
        return std::nullopt;
      trips.push_back(llvm::divideCeil(std::max<int64_t>(range, 0), step));
    }
    return product(trips);
  }
  std::optional<SmallVector<OpFoldResult>> lower = loop.getLoopLowerBounds();
  std::optional<SmallVector<OpFoldResult>> upper = loop.getLoopUpperBounds();
  std::optional<SmallVector<OpFoldResult>> steps = loop.getLoopSteps();
  if (!lower || !upper || !steps)
    return std::nullopt;
  for (auto [from, to, step] : llvm::zip_equal(*lower, *upper, *steps)) {
    std::optional<int64_t> first = getConstantIntValue(from);
    std::optional<int64_t> last = getConstantIntValue(to);
    std::optional<int64_t> stride = getConstantIntValue(step);
    if (!first || !last || !stride || *stride <= 0)
      return std::nullopt;
    std::optional<int64_t> span = llvm::checkedSub(*last, *first);
    if (!span)
      return std::nullopt;
    trips.push_back(*span > 0 ? llvm::divideCeil(*span, *stride) : 0);
  }
  return product(trips);
}

/// A loop (scf.for, scf.parallel, scf.forall, affine.for, affine.parallel):
/// its body's counts times its trip count, unknown unless the bounds and
/// steps are constants.
struct LoopCostModel : RegionCostModel<LoopCostModel> {
  static std::optional<Counts> getCounts(Operation *op) {
    auto loop = cast<LoopLikeOpInterface>(op);
    std::optional<int64_t> trips = getConstantTripCount(loop);
    if (!trips || loop->getNumRegions() != 1 ||
        !loop->getRegion(0).hasOneBlock())
      return std::nullopt;
    std::optional<Counts> body = sumBlock(loop->getRegion(0).front());
    if (!body)
      return std::nullopt;
    std::optional<int64_t> flops = llvm::checkedMul(body->flops, *trips);
    std::optional<int64_t> bytes = llvm::checkedMul(body->bytes, *trips);
    if (!flops || !bytes)
      return std::nullopt;
    return Counts{*flops, *bytes};
  }
};

/// A load or store of scalars or vectors in a memref or tensor (memref,
/// affine and vector loads, stores and transfers): no arithmetic; the bytes
/// of the values it loads or stores (a mask or padding value counts too).
struct ElementAccessCostModel
    : CostOpInterface::FallbackModel<ElementAccessCostModel> {
  std::optional<int64_t> getFlopCount(Operation *op) const { return 0; }
  std::optional<int64_t> getBytesAccessed(Operation *op) const {
    int64_t bits = 0;
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      if (isa<ShapedType>(type) && !isa<VectorType>(type))
        continue;
      if (type.isIndex())
        continue;
      std::optional<int64_t> width = getElementBitWidth(type);
      if (!width)
        return std::nullopt;
      bits += *width;
    }
    return llvm::divideCeil(bits, 8);
  }
};

/// scf.if: the costlier branch, FLOPs and bytes each the larger of the two
/// branches' (an absent else branch costs nothing), so that the op takes at
/// least as long as either branch.
struct IfCostModel : RegionCostModel<IfCostModel> {
  static std::optional<Counts> getCounts(Operation *op) {
    Counts costliest;
    for (Region &region : op->getRegions()) {
      if (region.empty())
        continue;
      std::optional<Counts> branch = sumBlock(region.front());
      if (!branch)
        return std::nullopt;
      costliest.flops = std::max(costliest.flops, branch->flops);
      costliest.bytes = std::max(costliest.bytes, branch->bytes);
    }
    return costliest;
  }
};

/// func.call: its callee's body, each op once. A callee without a body in
/// the module, one with several blocks, or a recursive one is unknown.
struct CallCostModel : RegionCostModel<CallCostModel> {
  static std::optional<Counts> getCounts(Operation *op) {
    auto call = cast<func::CallOp>(op);
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
      return std::nullopt;
    // Calls being priced, innermost last: a callee among them recurses.
    static thread_local SmallVector<Operation *> pricing;
    if (llvm::is_contained(pricing, callee.getOperation()))
      return std::nullopt;
    pricing.push_back(callee);
    std::optional<Counts> body = sumBlock(callee.getBody().front());
    pricing.pop_back();
    return body;
  }
};
} // namespace

template <typename Model, typename... OpTys>
static void attachCostModel(MLIRContext *ctx) {
  (OpTys::template attachInterface<Model>(*ctx), ...);
}

void ho::registerCostExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    // Every op of LinalgStructuredOps.td, linalg.generic included: the list
    // follows the installed MLIR rather than a hand-kept copy.
    attachCostModel<LinalgCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
                    >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<TosaMatmulCostModel>(*ctx);
    tosa::Conv2DOp::attachInterface<TosaConv2DCostModel>(*ctx);
    tosa::DepthwiseConv2DOp::attachInterface<TosaDepthwiseConv2DCostModel>(
        *ctx);
    attachCostModel<TosaElementwiseCostModel, tosa::AbsOp, tosa::AddOp,
                    tosa::CeilOp, tosa::ClampOp, tosa::CosOp, tosa::EqualOp,
                    tosa::ErfOp, tosa::ExpOp, tosa::FloorOp,
                    tosa::GreaterEqualOp, tosa::GreaterOp, tosa::IntDivOp,
                    tosa::LogOp, tosa::MaximumOp, tosa::MinimumOp, tosa::MulOp,
                    tosa::NegateOp, tosa::PowOp, tosa::ReciprocalOp,
                    tosa::RsqrtOp, tosa::SelectOp, tosa::SigmoidOp, tosa::SinOp,
                    tosa::SubOp, tosa::TanhOp>(ctx);
    attachCostModel<TosaReductionCostModel, tosa::ArgMaxOp, tosa::ReduceMaxOp,
                    tosa::ReduceMinOp, tosa::ReduceProductOp,
                    tosa::ReduceSumOp>(ctx);
    tosa::GatherOp::attachInterface<TosaGatherCostModel>(*ctx);
    attachCostModel<TosaDataMovementCostModel, tosa::CastOp, tosa::ConcatOp,
                    tosa::IdentityOp, tosa::PadOp, tosa::ReverseOp,
                    tosa::SliceOp, tosa::TileOp, tosa::TransposeOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::InsertSliceOp::attachInterface<InsertSliceCostModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, func::FuncDialect *) {
    func::CallOp::attachInterface<CallCostModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    attachCostModel<LoopCostModel, scf::ForOp, scf::ParallelOp, scf::ForallOp>(
        ctx);
    scf::IfOp::attachInterface<IfCostModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, affine::AffineDialect *) {
    attachCostModel<LoopCostModel, affine::AffineForOp,
                    affine::AffineParallelOp>(ctx);
    attachCostModel<ElementAccessCostModel, affine::AffineLoadOp,
                    affine::AffineStoreOp, affine::AffineVectorLoadOp,
                    affine::AffineVectorStoreOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, memref::MemRefDialect *) {
    attachCostModel<ElementAccessCostModel, memref::LoadOp, memref::StoreOp>(
        ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, vector::VectorDialect *) {
    attachCostModel<ElementAccessCostModel, vector::LoadOp, vector::StoreOp,
                    vector::MaskedLoadOp, vector::MaskedStoreOp,
                    vector::TransferReadOp, vector::TransferWriteOp,
                    vector::GatherOp, vector::ScatterOp>(ctx);
  });
}
