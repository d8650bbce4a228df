//===- SynthesizeKernels.cpp - Runnable stand-ins for abstract compute ----===//
//
// `ho.compute` has a cost but no semantics. To run a modelled workload for
// real, each becomes a synthetic kernel of linalg on tensors that
//   - reads every element of every operand into a checksum: the sum over
//     the elements of (bits + 1) x (2 x linear index + 1), in wrapping 64-bit
//     arithmetic, so that any iteration order gives it exactly;
//   - writes every element of every result from the checksums alone: a
//     hash of them, the result number and the element's linear index, its
//     bits masked so that a float is finite (sign and top exponent bit
//     clear) and an integer is in [0, 4).
// A result is then a deterministic function of every operand byte, so a
// plan that lets an op read bytes early, late or overwritten changes the
// program's results, which running it next to the unplanned program shows.
// A tied result is written into its operand (destination-style), in the
// buffer the plan gave both. With a time scale, a kernel also waits out
// its modelled time, scaled, on a clock the runtime provides.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "RuntimeCalls.h"

#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::ho {
#define GEN_PASS_DEF_SYNTHESIZEKERNELS
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// Odd 64-bit constants of the mixing (from SplitMix64 and the golden ratio).
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMix = 0xBF58476D1CE4E5B9ull;

class KernelBuilder {
public:
  KernelBuilder(ComputeOp op) : op(op), builder(op), loc(op.getLoc()) {}

  /// Replaces the op; with `nanoseconds`, the kernel ends no earlier than
  /// that long after it starts.
  LogicalResult synthesize(std::optional<int64_t> nanoseconds);

private:
  Value constantI64(OpBuilder &b, uint64_t value) {
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(static_cast<int64_t>(value)));
  }
  /// The linear (row-major) index of the current element of a generic
  /// over `shape`, as i64.
  Value linearIndex(OpBuilder &b, ArrayRef<int64_t> shape);
  /// `x` mixed so that every bit depends on every input bit.
  Value mix(OpBuilder &b, Value x);
  FailureOr<Value> checksum(Value operand);
  FailureOr<Value> fill(OpResult result, Value seed);
  /// The error for a value of `type` no kernel can read or write.
  InFlightDiagnostic emitUnsupported(StringRef access, Type type);

  ComputeOp op;
  OpBuilder builder;
  Location loc;
};
} // namespace

/// Whether a synthetic kernel can read and write elements of `type`.
static bool isSupportedElement(Type type) {
  return isa<FloatType, IndexType>(type) || type.isSignlessInteger();
}

Value KernelBuilder::linearIndex(OpBuilder &b, ArrayRef<int64_t> shape) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value index = linalg::IndexOp::create(b, loc, dim);
    linear = dim == 0 ? index
                      : arith::AddIOp::create(
                            b, loc,
                            arith::MulIOp::create(
                                b, loc, linear,
                                arith::ConstantIndexOp::create(b, loc, size)),
                            index);
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
}

Value KernelBuilder::mix(OpBuilder &b, Value x) {
  Value shift = constantI64(b, 31);
  for (int round = 0; round < 2; ++round) {
    x = arith::XOrIOp::create(b, loc, x,
                              arith::ShRUIOp::create(b, loc, x, shift));
    x = arith::MulIOp::create(b, loc, x, constantI64(b, kMix));
  }
  return arith::XOrIOp::create(b, loc, x,
                               arith::ShRUIOp::create(b, loc, x, shift));
}

/// The element `value` as an i64 of its bits (zero-extended).
static Value toBits(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isIndex())
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), value);
  unsigned width = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(type))
    value = arith::BitcastOp::create(b, loc, b.getIntegerType(width), value);
  if (width < 64)
    value = arith::ExtUIOp::create(b, loc, b.getI64Type(), value);
  return value;
}

/// An element of `type` made from the hash `bits`: a finite float, or an
/// integer in [0, 4).
static Value fromBits(OpBuilder &b, Location loc, Value bits, Type type) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  };
  if (type.isIndex())
    return arith::IndexCastUIOp::create(
        b, loc, type, arith::AndIOp::create(b, loc, bits, constant(3)));
  unsigned width = type.getIntOrFloatBitWidth();
  if (!isa<FloatType>(type)) {
    Value small = arith::AndIOp::create(b, loc, bits, constant(3));
    return width < 64 ? arith::TruncIOp::create(b, loc, type, small) : small;
  }
  // Sign and top exponent bit clear: finite, of magnitude below 2.
  Value masked = arith::AndIOp::create(
      b, loc, bits, constant((int64_t(1) << (width - 2)) - 1));
  Value narrow =
      width < 64
          ? arith::TruncIOp::create(b, loc, b.getIntegerType(width), masked)
          : masked;
  return arith::BitcastOp::create(b, loc, type, narrow);
}

/// `type` if a synthetic kernel can read and write it, else null.
static RankedTensorType getRunnableTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !isSupportedElement(tensor.getElementType()))
    return nullptr;
  return tensor;
}

InFlightDiagnostic KernelBuilder::emitUnsupported(StringRef access, Type type) {
  return op.emitError() << "cannot synthesize a kernel " << access << " "
                        << type
                        << "; only tensors of static shape and integer or "
                           "float elements can run";
}

FailureOr<Value> KernelBuilder::checksum(Value operand) {
  RankedTensorType type = getRunnableTensorType(operand.getType());
  if (!type)
    return emitUnsupported("reading", operand.getType());
  MLIRContext *context = op.getContext();
  auto scalar = RankedTensorType::get({}, builder.getI64Type());
  Value empty = tensor::EmptyOp::create(builder, loc, scalar, ValueRange{});
  Value zero =
      linalg::FillOp::create(builder, loc, constantI64(builder, 0), empty)
          .getResult(0);
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context),
      AffineMap::get(rank, 0, {}, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto sum = linalg::GenericOp::create(
      builder, loc, TypeRange{scalar}, ValueRange{operand}, ValueRange{zero},
      maps, iterators, [&](OpBuilder &b, Location, ValueRange args) {
        Value bits = arith::AddIOp::create(b, loc, toBits(b, loc, args[0]),
                                           constantI64(b, 1));
        Value linear = linearIndex(b, type.getShape());
        Value odd = arith::OrIOp::create(
            b, loc, arith::ShLIOp::create(b, loc, linear, constantI64(b, 1)),
            constantI64(b, 1));
        Value term = arith::MulIOp::create(b, loc, bits, odd);
        linalg::YieldOp::create(
            b, loc, ValueRange{arith::AddIOp::create(b, loc, args[1], term)});
      });
  return tensor::ExtractOp::create(builder, loc, sum.getResult(0), ValueRange{})
      .getResult();
}

FailureOr<Value> KernelBuilder::fill(OpResult result, Value seed) {
  RankedTensorType type = getRunnableTensorType(result.getType());
  if (!type)
    return emitUnsupported("writing", result.getType());
  // A tied result updates its operand's buffer in place.
  OpOperand *tied = op.getTiedOperand(result);
  Value init = tied ? tied->get()
                    : tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType())
                          .getResult();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, op.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value resultSeed = arith::AddIOp::create(
      builder, loc, seed,
      constantI64(builder, kGolden * (result.getResultNumber() + 1)));
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location, ValueRange) {
        Value linear = arith::MulIOp::create(
            b, loc, linearIndex(b, type.getShape()), constantI64(b, kGolden));
        Value bits = mix(b, arith::AddIOp::create(b, loc, resultSeed, linear));
        linalg::YieldOp::create(
            b, loc, ValueRange{fromBits(b, loc, bits, type.getElementType())});
      });
  return generic.getResult(0);
}

LogicalResult KernelBuilder::synthesize(std::optional<int64_t> nanoseconds) {
  auto module = op->getParentOfType<ModuleOp>();
  Value start;
  if (nanoseconds) {
    func::FuncOp clock = declareRuntimeFunction(
        module, builder, kClockNanoseconds, {}, builder.getI64Type());
    start =
        func::CallOp::create(builder, loc, clock, ValueRange{}).getResult(0);
  }
  Value seed = constantI64(builder, kGolden);
  for (Value operand : op.getInputs()) {
    FailureOr<Value> sum = checksum(operand);
    if (failed(sum))
      return failure();
    seed = mix(builder, arith::XOrIOp::create(builder, loc, seed, *sum));
  }
  SmallVector<Value> results;
  for (OpResult result : op->getResults()) {
    FailureOr<Value> value = fill(result, seed);
    if (failed(value))
      return failure();
    results.push_back(*value);
  }
  if (nanoseconds) {
    func::FuncOp wait = declareRuntimeFunction(
        module, builder, kWaitUntilNanoseconds, builder.getI64Type(), {});
    Value end = arith::AddIOp::create(builder, loc, start,
                                      constantI64(builder, *nanoseconds));
    func::CallOp::create(builder, loc, wait, ValueRange{end});
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

namespace {
struct SynthesizeKernelsPass
    : public ho::impl::SynthesizeKernelsBase<SynthesizeKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<Target> target;
    if (timeScale < 0) {
      getOperation().emitError()
          << "time-scale must be 0 or more, got " << timeScale;
      return signalPassFailure();
    }
    if (timeScale > 0) {
      FailureOr<Target> loaded =
          loadPassTarget(getOperation(), hw, hwOverrides);
      if (failed(loaded))
        return signalPassFailure();
      target = std::move(*loaded);
    }
    SmallVector<ComputeOp> ops;
    getOperation()->walk([&](ComputeOp op) { ops.push_back(op); });
    for (ComputeOp op : ops) {
      std::optional<int64_t> nanoseconds;
      if (target)
        nanoseconds = static_cast<int64_t>(std::llround(
            estimateOpCost(op, *target).getSeconds() * timeScale * 1e9));
      if (failed(KernelBuilder(op).synthesize(nanoseconds)))
        return signalPassFailure();
    }
  }
};
} // namespace
