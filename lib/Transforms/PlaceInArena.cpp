//===- PlaceInArena.cpp - Device buffers at their offsets in the arena ----===//
//
// After ho-lower-to-runtime, a fetched tensor already is the arena's bytes
// at its offset, but every other device buffer is still a tensor that
// bufferization would give an allocation of its own. This pass makes each
// of them the arena's bytes at the offset the static memory plan chose, so
// that compute writes where the transfers read and the plan's memory is the
// memory the program uses. With check-integrity it also reports every arena
// read and write to the runtime, so that a plan that reads bytes before
// their copy lands, or after another buffer reused them, is caught at the
// op that does it.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "RuntimeCalls.h"
#include "SelectionPicks.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::ho {
#define GEN_PASS_DEF_PLACEINARENA
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// Arena bytes a tensor lives in, and the SSA value naming the data the
/// program expects there (null until something writes it).
struct ArenaRange {
  int64_t offset = 0;
  int64_t bytes = 0;
  Value owner;
};

class ArenaPlacement {
public:
  ArenaPlacement(ModuleOp module, func::FuncOp function)
      : module(module), function(function), builder(module.getContext()) {}

  LogicalResult place();
  void instrument();

private:
  func::FuncOp declare(StringRef name, TypeRange inputs, TypeRange results);
  Value getArena();
  Value constantI64(Location loc, int64_t value);
  /// The arena's bytes at `offset` as a tensor of `type`, at the builder's
  /// insertion point.
  FailureOr<Value> makeArenaTensor(Location loc, int64_t offset,
                                   RankedTensorType type, Operation *at);
  LogicalResult placeResult(OpResult result, int64_t offset);

  /// Instrumentation.
  int64_t getSite(Operation *op);
  /// A read by `site`, reported right before `op`.
  void emitRead(Operation *op, Operation *site, const ArenaRange &range);
  Value emitWrite(Operation *op, const ArenaRange &range);
  /// The reads of a lowered routed kernel: its slots are checked by the
  /// runtime, which knows what each holds; false for any other op.
  bool emitRoutedReads(Operation *op,
                       const DenseMap<Value, ArenaRange> &ranges);
  std::optional<ArenaRange> rangeOfArenaTensor(bufferization::ToTensorOp op);

  ModuleOp module;
  func::FuncOp function;
  OpBuilder builder;
  Value arena;
  /// to_tensor ops this pass made for buffers that compute fills, and the
  /// argument number of those that hold a device-resident argument.
  DenseSet<Operation *> fresh;
  DenseMap<Operation *, unsigned> argumentOf;
  /// materialize_in_destination ops that copy a result into the arena, by
  /// the op whose result they copy.
  DenseMap<Operation *, Operation *> copiedResultOf;
  SmallVector<Attribute> sites;
  DenseMap<Location, int64_t> siteOf;
};
} // namespace

func::FuncOp ArenaPlacement::declare(StringRef name, TypeRange inputs,
                                     TypeRange results) {
  func::FuncOp callee =
      declareRuntimeFunction(module, builder, name, inputs, results);
  if (name == kArenaBase)
    callee->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  return callee;
}

Value ArenaPlacement::getArena() {
  if (arena)
    return arena;
  Block &entry = function.getBody().front();
  for (Operation &op : entry)
    if (auto call = dyn_cast<func::CallOp>(op);
        call && call.getCallee() == kArenaBase)
      return arena = call.getResult(0);
  auto type = MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
  func::FuncOp callee = declare(kArenaBase, {}, type);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&entry);
  return arena = func::CallOp::create(builder, function.getLoc(), callee, {})
                     .getResult(0);
}

Value ArenaPlacement::constantI64(Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 64);
}

FailureOr<Value> ArenaPlacement::makeArenaTensor(Location loc, int64_t offset,
                                                 RankedTensorType type,
                                                 Operation *at) {
  if (!type.hasStaticShape())
    return at->emitError() << "places a tensor of dynamic shape " << type
                           << " in the arena; only static shapes can run";
  Value base = getArena();
  Value shift = arith::ConstantIndexOp::create(builder, loc, offset);
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value view = memref::ViewOp::create(builder, loc, memrefType, base, shift,
                                      ValueRange());
  return bufferization::ToTensorOp::create(builder, loc, type, view,
                                           /*restrict=*/true,
                                           /*writable=*/true)
      .getResult();
}

LogicalResult ArenaPlacement::placeResult(OpResult result, int64_t offset) {
  Operation *op = result.getOwner();
  auto type = dyn_cast<RankedTensorType>(result.getType());
  // A result without a buffer of its own (-1), such as one written in
  // place of its operand, is where its operand is.
  if (!type || offset < 0)
    return success();
  Location loc = op->getLoc();
  // A fresh buffer: compute writes the arena bytes directly.
  if (isa<tensor::EmptyOp>(op)) {
    builder.setInsertionPoint(op);
    FailureOr<Value> placed = makeArenaTensor(loc, offset, type, op);
    if (failed(placed))
      return failure();
    fresh.insert(placed->getDefiningOp());
    result.replaceAllUsesWith(*placed);
    return success();
  }
  // A destination-style op writing a new buffer: its init is copied into
  // the arena bytes first (the copy the plan counts), then written in place.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    OpOperand *init = dps.getTiedOpOperand(result);
    builder.setInsertionPoint(op);
    FailureOr<Value> placed = makeArenaTensor(loc, offset, type, op);
    if (failed(placed))
      return failure();
    fresh.insert(placed->getDefiningOp());
    auto copy = bufferization::MaterializeInDestinationOp::create(
        builder, loc, init->get(), *placed);
    copiedResultOf[copy] = nullptr;
    init->set(copy.getResult());
    return success();
  }
  // Anything else: its result is copied into the arena bytes, and later
  // uses read them.
  builder.setInsertionPointAfter(op);
  FailureOr<Value> placed = makeArenaTensor(loc, offset, type, op);
  if (failed(placed))
    return failure();
  fresh.insert(placed->getDefiningOp());
  auto copy = bufferization::MaterializeInDestinationOp::create(
      builder, loc, result, *placed);
  copiedResultOf[copy] = op;
  result.replaceAllUsesExcept(copy.getResult(), copy);
  return success();
}

LogicalResult ArenaPlacement::place() {
  Block &entry = function.getBody().front();
  // Device-resident arguments: the caller has put them in the arena.
  builder.setInsertionPointToStart(&entry);
  getArena();
  builder.setInsertionPointAfter(arena.getDefiningOp());
  for (BlockArgument argument : entry.getArguments()) {
    auto offset = function.getArgAttrOfType<IntegerAttr>(
        argument.getArgNumber(), "ho.offset");
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!offset || !type || argument.use_empty())
      continue;
    FailureOr<Value> placed =
        makeArenaTensor(argument.getLoc(), offset.getInt(), type, function);
    if (failed(placed))
      return failure();
    argumentOf[placed->getDefiningOp()] = argument.getArgNumber();
    argument.replaceAllUsesWith(*placed);
  }
  SmallVector<Operation *> placedOps;
  for (Operation &op : entry)
    if (op.hasAttr("ho.offsets"))
      placedOps.push_back(&op);
  for (Operation *op : placedOps) {
    auto offsets = op->getAttrOfType<DenseI64ArrayAttr>("ho.offsets");
    if (!offsets || offsets.size() != op->getNumResults())
      return op->emitError()
             << "has a malformed ho.offsets: one offset per result expected";
    for (OpResult result : op->getResults())
      if (failed(placeResult(result, offsets[result.getResultNumber()])))
        return failure();
    if (op->use_empty() && isa<tensor::EmptyOp>(op))
      op->erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Integrity instrumentation
//===----------------------------------------------------------------------===//

int64_t ArenaPlacement::getSite(Operation *op) {
  auto [it, inserted] = siteOf.try_emplace(op->getLoc(), sites.size());
  if (inserted) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->getLoc().print(os);
    sites.push_back(builder.getStringAttr(text));
  }
  return it->second;
}

void ArenaPlacement::emitRead(Operation *op, Operation *site,
                              const ArenaRange &range) {
  if (!range.owner)
    return;
  Type i64 = builder.getI64Type();
  func::FuncOp callee = declare(kIntegrityRead, {i64, i64, i64, i64}, {});
  builder.setInsertionPoint(op);
  Location loc = op->getLoc();
  func::CallOp::create(builder, loc, callee,
                       ValueRange{constantI64(loc, range.offset),
                                  constantI64(loc, range.bytes), range.owner,
                                  constantI64(loc, getSite(op))});
}

Value ArenaPlacement::emitWrite(Operation *op, const ArenaRange &range) {
  Type i64 = builder.getI64Type();
  func::FuncOp callee = declare(kIntegrityWrite, {i64, i64, i64}, {i64});
  Location loc = op->getLoc();
  return func::CallOp::create(builder, loc, callee,
                              ValueRange{constantI64(loc, range.offset),
                                         constantI64(loc, range.bytes),
                                         constantI64(loc, getSite(op))})
      .getResult(0);
}

std::optional<ArenaRange>
ArenaPlacement::rangeOfArenaTensor(bufferization::ToTensorOp op) {
  auto view = op.getBuffer().getDefiningOp<memref::ViewOp>();
  if (!view || view.getSource() != arena)
    return std::nullopt;
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  std::optional<int64_t> bytes = getTensorSizeInBytes(op.getType());
  if (!shift || !bytes)
    return std::nullopt;
  return ArenaRange{*shift, *bytes, Value()};
}

/// The routed group whose slot table `table` is (the tensor of
/// ho_routed_slot_expert calls ho-lower-to-runtime makes), or null.
static Value getRoutedGroup(Value table) {
  auto elements = table.getDefiningOp<tensor::FromElementsOp>();
  if (!elements || elements.getElements().empty())
    return {};
  auto call = elements.getElements().front().getDefiningOp<func::CallOp>();
  if (!call || call.getCallee() != kRoutedSlotExpert)
    return {};
  return call.getOperand(0);
}

bool ArenaPlacement::emitRoutedReads(
    Operation *op, const DenseMap<Value, ArenaRange> &ranges) {
  if (!isa<ComputeOp>(op) || !op->hasAttr(kRoutedKernelAttrName) ||
      op->getNumOperands() < 2)
    return false;
  Value group = getRoutedGroup(op->getOperands().back());
  if (!group)
    return false;
  Value staged = op->getOperand(op->getNumOperands() - 2);
  for (Value operand : op->getOperands())
    if (auto range = ranges.find(operand);
        range != ranges.end() && operand != staged)
      emitRead(op, op, range->second);
  Type i64 = builder.getI64Type();
  func::FuncOp callee = declare(kIntegrityReadSlots, {i64, i64}, {});
  builder.setInsertionPoint(op);
  Location loc = op->getLoc();
  func::CallOp::create(builder, loc, callee,
                       ValueRange{group, constantI64(loc, getSite(op))});
  return true;
}

/// The operand a result of `op` is written in place of, if any.
static OpOperand *getTiedOperand(OpResult result) {
  Operation *op = result.getOwner();
  if (auto compute = dyn_cast<ComputeOp>(op))
    return compute.getTiedOperand(result);
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.getTiedOpOperand(result);
  if (auto copy = dyn_cast<bufferization::MaterializeInDestinationOp>(op))
    return &copy.getDestMutable();
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op)) {
    MutableArrayRef<OpOperand> inits = loop.getInitsMutable();
    if (result.getResultNumber() < inits.size())
      return &inits[result.getResultNumber()];
  }
  return nullptr;
}

void ArenaPlacement::instrument() {
  Block &entry = function.getBody().front();
  DenseMap<Value, ArenaRange> ranges;
  /// Per arena offset, the copy the last prefetch into it reads.
  DenseMap<int64_t, Value> landing;
  Type i64 = builder.getI64Type();
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    if (isa<arith::ConstantOp, memref::ViewOp, func::ReturnOp>(op))
      continue;
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call.getCallee() == kPrefetchStart) {
        if (std::optional<int64_t> offset =
                getConstantIntValue(call.getOperand(3)))
          landing[*offset] = call.getOperand(2);
      }
      continue;
    }
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op)) {
      std::optional<ArenaRange> range = rangeOfArenaTensor(toTensor);
      if (!range)
        continue;
      builder.setInsertionPointAfter(&op);
      Location loc = op.getLoc();
      if (auto argument = argumentOf.find(&op); argument != argumentOf.end()) {
        range->owner = constantI64(loc, argument->second);
      } else if (!fresh.contains(&op)) {
        // A fetched tensor holds whatever its copy holds.
        Value copy = landing.lookup(range->offset);
        range->owner =
            copy ? func::CallOp::create(
                       builder, loc, declare(kIntegrityCopyOwner, {i64}, {i64}),
                       copy)
                       .getResult(0)
                 : constantI64(loc, -1);
      }
      ranges[toTensor.getResult()] = *range;
      continue;
    }
    // A view is its source's bytes; it reads nothing.
    if (isTensorViewOp(&op) && !op.hasAttr("ho.offsets")) {
      if (auto range = ranges.find(op.getOperand(0)); range != ranges.end())
        ranges[op.getResult(0)] = range->second;
      continue;
    }
    // Compute, or a copy into the arena: reads its operands' bytes, then
    // writes its results in place of the operands they are tied to. A copy
    // of a result into the arena is the write of the op that made it.
    auto copied = copiedResultOf.find(&op);
    Operation *site = &op;
    if (copied != copiedResultOf.end() && copied->second)
      site = copied->second;
    if (!emitRoutedReads(&op, ranges))
      for (Value operand : op.getOperands())
        if (auto range = ranges.find(operand); range != ranges.end())
          emitRead(&op, site, range->second);
    builder.setInsertionPointAfter(&op);
    for (OpResult result : op.getResults()) {
      OpOperand *tied = getTiedOperand(result);
      if (!tied)
        continue;
      auto range = ranges.find(tied->get());
      if (range == ranges.end())
        continue;
      ArenaRange written = range->second;
      written.owner = emitWrite(site, written);
      ranges[result] = written;
    }
  }
  function->setAttr("ho.integrity_sites", builder.getArrayAttr(sites));
}

namespace {
struct PlaceInArenaPass : public ho::impl::PlaceInArenaBase<PlaceInArenaPass> {
  using PlaceInArenaBase::PlaceInArenaBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> planned;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isDeclaration() && function->hasAttr(kArenaSizeAttrName))
        planned.push_back(function);
    for (func::FuncOp function : planned) {
      if (!llvm::hasSingleElement(function.getBody())) {
        function.emitError() << "has more than one block; only straight-line "
                                "planned functions can be placed in the arena";
        return signalPassFailure();
      }
      ArenaPlacement placement(module, function);
      if (failed(placement.place()))
        return signalPassFailure();
      if (checkIntegrity)
        placement.instrument();
    }
  }
};
} // namespace
