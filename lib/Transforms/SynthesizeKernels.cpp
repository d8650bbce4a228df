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
// Run-time selections get kernels too:
//   - a result that is picks (SelectionPicks.h) holds valid ones: row r's
//     j-th id is (h_r + j) mod range, h_r a hash of the checksums and r,
//     so the ids of a row are distinct and depend on the inputs;
//   - ho.routed (and the kernel ho-lower-to-runtime makes of it) reads
//     only the experts the picks name, each keyed by its global id and
//     summed, so that where an expert is (resident, or in any slot) and
//     which wrong guesses share the slots do not change the bits;
//   - ho.gather_blocks is a real gather, zero past a short last block, as
//     the runtime fills a block's place.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "RuntimeCalls.h"
#include "SelectionPicks.h"

#include "hyperoffload/Analysis/OpCost.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// What a routed kernel reads: its inputs and picks, the resident experts
/// with their global ids, and the staged slots with their table of
/// experts (none before ho-lower-to-runtime).
struct RoutedReads {
  SmallVector<Value> inputs;
  Value selection;
  SmallVector<std::pair<Value, int64_t>> resident;
  Value staged;
  Value table;
};

class KernelBuilder {
public:
  KernelBuilder(Operation *op) : op(op), builder(op), loc(op->getLoc()) {}

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
  /// An i64 reduction of every element of `operand`, from 0.
  Value reduceToI64(
      Value operand,
      function_ref<Value(OpBuilder &, Value element, Value sum)> combine);
  FailureOr<Value> checksum(Value operand);
  /// `seed` mixed with the checksum of each of `operands`.
  FailureOr<Value> mixChecksums(Value seed, ValueRange operands);
  /// `seed` mixed with what `reads` says the routed kernel reads.
  FailureOr<Value> mixRoutedReads(Value seed, const RoutedReads &reads);
  /// Whether the picks `selection` name the i64 `id`, as an i1.
  Value isPicked(Value selection, Value id);
  FailureOr<Value> fill(OpResult result, Value seed);
  /// The element of a result that is picks over `range` ids, `perRow` to a
  /// row, at `linear` (i64), from the hash `seed`.
  Value pickAt(OpBuilder &b, Value seed, Value linear, int64_t perRow,
               int64_t range, Type type);
  /// The error for a value of `type` no kernel can read or write.
  InFlightDiagnostic emitUnsupported(StringRef access, Type type);

  Operation *op;
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
  return op->emitError() << "cannot synthesize a kernel " << access << " "
                         << type
                         << "; only tensors of static shape and integer or "
                            "float elements can run";
}

Value KernelBuilder::reduceToI64(
    Value operand,
    function_ref<Value(OpBuilder &, Value element, Value sum)> combine) {
  auto type = cast<RankedTensorType>(operand.getType());
  MLIRContext *context = op->getContext();
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
  auto reduction = linalg::GenericOp::create(
      builder, loc, TypeRange{scalar}, ValueRange{operand}, ValueRange{zero},
      maps, iterators, [&](OpBuilder &b, Location, ValueRange args) {
        linalg::YieldOp::create(b, loc,
                                ValueRange{combine(b, args[0], args[1])});
      });
  return tensor::ExtractOp::create(builder, loc, reduction.getResult(0),
                                   ValueRange{})
      .getResult();
}

FailureOr<Value> KernelBuilder::checksum(Value operand) {
  RankedTensorType type = getRunnableTensorType(operand.getType());
  if (!type)
    return emitUnsupported("reading", operand.getType());
  return reduceToI64(operand, [&](OpBuilder &b, Value element, Value sum) {
    Value bits = arith::AddIOp::create(b, loc, toBits(b, loc, element),
                                       constantI64(b, 1));
    Value linear = linearIndex(b, type.getShape());
    Value odd = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, linear, constantI64(b, 1)),
        constantI64(b, 1));
    Value term = arith::MulIOp::create(b, loc, bits, odd);
    return arith::AddIOp::create(b, loc, sum, term).getResult();
  });
}

FailureOr<Value> KernelBuilder::fill(OpResult result, Value seed) {
  RankedTensorType type = getRunnableTensorType(result.getType());
  if (!type)
    return emitUnsupported("writing", result.getType());
  // A tied result updates its operand's buffer in place.
  auto compute = dyn_cast<ComputeOp>(op);
  OpOperand *tied = compute ? compute.getTiedOperand(result) : nullptr;
  Value init = tied ? tied->get()
                    : tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType())
                          .getResult();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, op->getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value resultSeed = arith::AddIOp::create(
      builder, loc, seed,
      constantI64(builder, kGolden * (result.getResultNumber() + 1)));
  std::optional<int64_t> pickRange = getPickRange(result);
  if (pickRange && !type.getElementType().isIntOrIndex())
    return op->emitError() << "cannot synthesize picks of " << type
                           << "; picks are integers";
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location, ValueRange) {
        Value linear = linearIndex(b, type.getShape());
        if (pickRange) {
          int64_t perRow = rank > 0 ? type.getShape().back() : 1;
          linalg::YieldOp::create(
              b, loc,
              ValueRange{pickAt(b, resultSeed, linear, perRow, *pickRange,
                                type.getElementType())});
          return;
        }
        Value scaled =
            arith::MulIOp::create(b, loc, linear, constantI64(b, kGolden));
        Value bits = mix(b, arith::AddIOp::create(b, loc, resultSeed, scaled));
        linalg::YieldOp::create(
            b, loc, ValueRange{fromBits(b, loc, bits, type.getElementType())});
      });
  return generic.getResult(0);
}

Value KernelBuilder::pickAt(OpBuilder &b, Value seed, Value linear,
                            int64_t perRow, int64_t range, Type type) {
  Value row = arith::DivUIOp::create(b, loc, linear, constantI64(b, perRow));
  Value column = arith::RemUIOp::create(b, loc, linear, constantI64(b, perRow));
  Value hash =
      mix(b, arith::AddIOp::create(
                 b, loc, seed,
                 arith::MulIOp::create(b, loc, row, constantI64(b, kGolden))));
  Value first = arith::RemUIOp::create(b, loc, hash, constantI64(b, range));
  Value pick = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, column),
      constantI64(b, range));
  if (type.isIndex())
    return arith::IndexCastUIOp::create(b, loc, type, pick);
  if (type.getIntOrFloatBitWidth() < 64)
    return arith::TruncIOp::create(b, loc, type, pick);
  return pick;
}

FailureOr<Value> KernelBuilder::mixChecksums(Value seed, ValueRange operands) {
  for (Value operand : operands) {
    FailureOr<Value> sum = checksum(operand);
    if (failed(sum))
      return failure();
    seed = mix(builder, arith::XOrIOp::create(builder, loc, seed, *sum));
  }
  return seed;
}

Value KernelBuilder::isPicked(Value selection, Value id) {
  Value count =
      reduceToI64(selection, [&](OpBuilder &b, Value element, Value any) {
        Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            toBits(b, loc, element), id);
        Value one = arith::ExtUIOp::create(b, loc, b.getI64Type(), equal);
        return arith::OrIOp::create(b, loc, any, one).getResult();
      });
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, count,
                               constantI64(builder, 0));
}

FailureOr<Value> KernelBuilder::mixRoutedReads(Value seed,
                                               const RoutedReads &reads) {
  FailureOr<Value> mixed = mixChecksums(seed, reads.inputs);
  if (failed(mixed))
    return failure();
  mixed = mixChecksums(*mixed, reads.selection);
  if (failed(mixed))
    return failure();
  // Each picked expert's checksum, keyed by its id; summed, so that the
  // order of slots and residents does not matter.
  Value experts = constantI64(builder, 0);
  // Only a picked expert's bytes are read: the others may be anything
  // (an empty slot, a wrong guess), and reading them would cost time the
  // planned program does not spend.
  auto addExpert = [&](Value data, Value id) -> LogicalResult {
    // An empty slot's id, -1, is never picked.
    auto ifPicked = scf::IfOp::create(builder, loc, builder.getI64Type(),
                                      isPicked(reads.selection, id),
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifPicked.thenBlock());
    FailureOr<Value> sum = checksum(data);
    if (failed(sum))
      return failure();
    Value key = arith::MulIOp::create(
        builder, loc,
        arith::AddIOp::create(builder, loc, id, constantI64(builder, 1)),
        constantI64(builder, kGolden));
    scf::YieldOp::create(
        builder, loc,
        mix(builder, arith::XOrIOp::create(builder, loc, *sum, key)));
    builder.setInsertionPointToStart(ifPicked.elseBlock());
    scf::YieldOp::create(builder, loc, constantI64(builder, 0));
    builder.setInsertionPointAfter(ifPicked);
    experts =
        arith::AddIOp::create(builder, loc, experts, ifPicked.getResult(0));
    return success();
  };
  for (auto [expert, id] : reads.resident)
    if (failed(addExpert(expert, constantI64(builder, id))))
      return failure();
  if (reads.staged) {
    auto slots = cast<RankedTensorType>(reads.staged.getType());
    int64_t rank = slots.getRank();
    SmallVector<int64_t> sizes(slots.getShape());
    sizes[0] = 1;
    for (int64_t slot = 0; slot < slots.getDimSize(0); ++slot) {
      SmallVector<int64_t> offsets(rank, 0);
      offsets[0] = slot;
      // A slot's checksum is its expert's: the leading unit dimension
      // leaves every linear index as it is.
      MLIRContext *context = op->getContext();
      Value data = tensor::ExtractSliceOp::create(
          builder, loc, reads.staged, getAsIndexOpFoldResult(context, offsets),
          getAsIndexOpFoldResult(context, sizes),
          getAsIndexOpFoldResult(context, SmallVector<int64_t>(rank, 1)));
      Value id = tensor::ExtractOp::create(
          builder, loc, reads.table,
          ValueRange{arith::ConstantIndexOp::create(builder, loc, slot)});
      if (failed(addExpert(data, id)))
        return failure();
    }
  }
  return mix(builder, arith::XOrIOp::create(builder, loc, *mixed, experts));
}

/// What the routed kernel `op` reads, if it is one: ho.routed before
/// ho-lower-to-runtime (every expert resident), or the ho.compute it
/// becomes.
static FailureOr<std::optional<RoutedReads>> getRoutedReads(Operation *op) {
  if (auto routed = dyn_cast<RoutedOp>(op)) {
    if (routed.getStaged())
      return routed.emitError()
             << "cannot synthesize a kernel reading staged slots; lower the "
                "plan first (ho-lower-to-runtime)";
    RoutedReads reads;
    reads.inputs.assign(routed.getInputs().begin(), routed.getInputs().end());
    reads.selection = routed.getSelection();
    for (auto [index, expert] : llvm::enumerate(routed.getExperts())) {
      if (!isa<RankedTensorType>(expert.getType()))
        return routed.emitError()
               << "cannot synthesize a kernel: expert " << index
               << " is not on the device and no slots hold it";
      reads.resident.push_back({expert, routed.getFirstExpert() + index});
    }
    return std::optional(reads);
  }
  auto layout = op->getAttrOfType<DictionaryAttr>(kRoutedKernelAttrName);
  if (!layout)
    return std::optional<RoutedReads>();
  auto inputs = layout.getAs<IntegerAttr>("inputs");
  auto ids = layout.getAs<DenseI64ArrayAttr>("expert_ids");
  int64_t operands = op->getNumOperands();
  if (!inputs || !ids || inputs.getInt() < 0 ||
      inputs.getInt() + 3 + ids.size() != operands)
    return op->emitError() << "has a malformed '" << kRoutedKernelAttrName
                           << "': expected {inputs, expert_ids, "
                              "total_experts} matching its operands";
  RoutedReads reads;
  int64_t numInputs = inputs.getInt();
  for (int64_t i = 0; i < numInputs; ++i)
    reads.inputs.push_back(op->getOperand(i));
  reads.selection = op->getOperand(numInputs);
  for (auto [index, id] : llvm::enumerate(ids.asArrayRef()))
    reads.resident.push_back({op->getOperand(numInputs + 1 + index), id});
  reads.staged = op->getOperand(operands - 2);
  reads.table = op->getOperand(operands - 1);
  return std::optional(reads);
}

LogicalResult KernelBuilder::synthesize(std::optional<int64_t> nanoseconds) {
  auto module = op->getParentOfType<ModuleOp>();
  FailureOr<std::optional<RoutedReads>> routed = getRoutedReads(op);
  if (failed(routed))
    return failure();
  Value start;
  if (nanoseconds) {
    func::FuncOp clock = declareRuntimeFunction(
        module, builder, kClockNanoseconds, {}, builder.getI64Type());
    start =
        func::CallOp::create(builder, loc, clock, ValueRange{}).getResult(0);
  }
  Value initial = constantI64(builder, kGolden);
  FailureOr<Value> seed = *routed ? mixRoutedReads(initial, **routed)
                                  : mixChecksums(initial, op->getOperands());
  if (failed(seed))
    return failure();
  SmallVector<Value> results;
  for (OpResult result : op->getResults()) {
    FailureOr<Value> value = fill(result, *seed);
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

/// Replaces `gather` (of a device source) with the gather it stands for:
/// each place of the result holds its row's picked block, and the places
/// past a short last block hold zero.
static LogicalResult synthesizeGather(GatherBlocksOp gather) {
  auto source = dyn_cast<RankedTensorType>(gather.getSource().getType());
  if (!source)
    return gather.emitError()
           << "cannot synthesize a gather from a tensor in a tier; lower the "
              "plan first (ho-lower-to-runtime)";
  if (!source.hasStaticShape() || !isSupportedElement(source.getElementType()))
    return gather.emitError()
           << "cannot synthesize a gather of " << source
           << "; only tensors of static shape and integer or float elements "
              "can run";
  OpBuilder builder(gather);
  Location loc = gather.getLoc();
  auto type = cast<RankedTensorType>(gather.getType());
  int64_t axis = gather.getAxis(), rank = type.getRank();
  int64_t blockSize = gather.getBlockSize();
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, gather.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elementType = type.getElementType();
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location, ValueRange) {
        auto index = [&](int64_t value) -> Value {
          return arith::ConstantIndexOp::create(b, loc, value);
        };
        SmallVector<Value> at;
        for (int64_t dim = 0; dim < rank; ++dim)
          at.push_back(linalg::IndexOp::create(b, loc, dim));
        // Place `at[axis] / blockSize` of the row holds its pick.
        SmallVector<Value> pickAt(at.begin(), at.begin() + axis);
        pickAt.push_back(
            arith::DivUIOp::create(b, loc, at[axis], index(blockSize)));
        Value pick =
            tensor::ExtractOp::create(b, loc, gather.getSelection(), pickAt);
        Value block =
            arith::IndexCastOp::create(b, loc, b.getIndexType(), pick);
        Value within =
            arith::RemUIOp::create(b, loc, at[axis], index(blockSize));
        Value from = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, block, index(blockSize)),
            within);
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, from,
                                  index(source.getDimSize(axis)));
        SmallVector<Value> sourceAt = at;
        sourceAt[axis] =
            arith::SelectOp::create(b, loc, inside, from, index(0));
        Value value =
            tensor::ExtractOp::create(b, loc, gather.getSource(), sourceAt);
        Value zero =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, inside, value, zero)});
      });
  gather.replaceAllUsesWith(generic.getResult(0));
  gather.erase();
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
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (failed(markPickRanges(function, /*forRunning=*/true)))
        return signalPassFailure();
    SmallVector<GatherBlocksOp> gathers;
    getOperation()->walk([&](GatherBlocksOp op) { gathers.push_back(op); });
    for (GatherBlocksOp gather : gathers)
      if (failed(synthesizeGather(gather)))
        return signalPassFailure();
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ComputeOp, RoutedOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
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
