//===- LowerToRuntime.cpp - Transfers as calls of the C runtime interface -===//
//
// Rewrites the transfers of a planned function into calls of the functions
// declared in include/hyperoffload/Runtime/HyperOffloadRuntime.h. Everything
// a call needs is read first, from the ops as the plan wrote them (tiers and
// sizes from the `!ho.remote` types, offsets from the static memory plan);
// then the ops are replaced and the remote values become `i64` handles.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PlannableChecks.h"
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

namespace mlir::ho {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// How a tensor read in blocks lies in its tier: `rows` rows (the
/// dimensions before the axis) of `rowBytes`, in blocks of `blockBytes`.
struct BlockLayout {
  int64_t rows = 0;
  int64_t rowBytes = 0;
  int64_t blockBytes = 0;
};

/// A slice of a tier copy as runs of contiguous bytes, evenly spaced.
struct SliceRuns {
  int64_t runBytes = 0;
  int64_t runs = 0;
  int64_t destOffset = 0;
  int64_t destStride = 0;
};

/// What one transfer op needs from the plan: where its device bytes are,
/// how many, and on which tier's queues.
struct TransferInfo {
  Operation *op = nullptr;
  MemoryTier tier = MemoryTier::pool;
  int64_t offset = 0;
  int64_t bytes = 0;
  /// Routed prefetches and kernels: where the picks are, and how many;
  /// for a kernel, the prefetch that fills its slots.
  int64_t selectionOffset = 0;
  int64_t numPicks = 0;
  Operation *slotsFrom = nullptr;
  /// For a kernel, the tier of each remote expert (none for resident ones)
  /// and its cost, read before the experts' types become handles.
  SmallVector<std::optional<MemoryTier>> expertTiers;
  int64_t flops = 0;
  int64_t bytesAccessed = 0;
  /// Block prefetches: the source's layout, and picks per row.
  BlockLayout blocks;
  int64_t picksPerRow = 0;
  /// Slice offloads: where the slice lands.
  SliceRuns slice;
};

class RuntimeLowering {
public:
  RuntimeLowering(ModuleOp module, func::FuncOp function)
      : module(module), function(function), builder(module.getContext()),
        liveness(function.getBody().front()) {}

  /// Reads the plan of every transfer; fails with an error at the first
  /// one the static memory plan does not place.
  LogicalResult collect();
  /// Replaces every transfer with its call.
  void rewrite();

  unsigned numCalls = 0;

private:
  /// Where the int32 picks of `selection` lie in the arena, for `op`.
  LogicalResult collectSelection(Operation *op, Value selection,
                                 TransferInfo &info);
  /// The arena offset of the device buffer `value` lives in.
  FailureOr<int64_t> getDeviceOffset(Operation *op, Value value);
  func::FuncOp declare(StringRef name, TypeRange inputs, TypeRange results);
  Value constantI32(Location loc, int32_t value);
  Value constantI64(Location loc, int64_t value);
  Value call(Location loc, StringRef name, ValueRange operands,
             TypeRange results);
  void lower(OffloadOp offload, const TransferInfo &info);
  void lower(PrefetchOp prefetch, const TransferInfo &info);
  void lower(AwaitOp await, const TransferInfo &info);
  void lower(WaitOffloadOp wait);
  void lower(PrefetchRoutedOp prefetch, const TransferInfo &info);
  void lower(RoutedOp routed, const TransferInfo &info);
  void lower(PrefetchBlocksOp prefetch, const TransferInfo &info);
  void lower(GatherBlocksOp gather, const TransferInfo &info);
  void lower(OffloadSliceOp offload, const TransferInfo &info);
  void convertSignature();

  ModuleOp module;
  func::FuncOp function;
  OpBuilder builder;
  BufferLiveness liveness;
  SmallVector<TransferInfo> transfers;
  Value arena;
  /// The group handle of each lowered ho.prefetch_routed and
  /// ho.prefetch_blocks.
  DenseMap<Operation *, Value> routedGroups;
  DenseMap<Operation *, Value> blockGroups;
};
} // namespace

FailureOr<int64_t> RuntimeLowering::getDeviceOffset(Operation *op,
                                                    Value value) {
  const BufferInfo *buffer = liveness.lookup(value);
  if (!buffer)
    return op->emitError() << "moves a tensor without a device buffer";
  // Transfers move whole buffers: a view of all of one (a reshape or a
  // cast) is the same bytes, a slice would need its strides.
  if (buffer->root != value && !isa<AwaitOp>(op) &&
      isTensorViewOp(value.getDefiningOp()) &&
      getTensorSizeInBytes(value.getType()) !=
          getTensorSizeInBytes(buffer->root.getType()))
    return op->emitError()
           << "moves a slice of a device buffer; only whole buffers (or "
              "reshapes and casts of them) can be lowered to runtime transfers";
  std::optional<int64_t> offset = getAssignedOffset(buffer->root);
  if (!offset || *offset < 0)
    return op->emitError()
           << "its device buffer has no offset in the static memory plan; "
              "run ho-assign-offsets first";
  return *offset;
}

/// The layout of `source` cut into blocks of `blockSize` along `axis`.
static BlockLayout getBlockLayout(RankedTensorType source, int64_t axis,
                                  int64_t blockSize) {
  int64_t elementBytes = *getTensorSizeInBytes(source) /
                         std::max<int64_t>(1, source.getNumElements());
  ArrayRef<int64_t> shape = source.getShape();
  BlockLayout layout;
  layout.rows = ShapedType::getNumElements(shape.take_front(axis));
  int64_t inner = ShapedType::getNumElements(shape.drop_front(axis + 1));
  layout.rowBytes = shape[axis] * inner * elementBytes;
  layout.blockBytes = blockSize * inner * elementBytes;
  return layout;
}

/// `offload`'s slice as evenly spaced runs: the dimensions from the last
/// partial one inwards are contiguous, and at most one dimension before
/// them has more than one element.
static FailureOr<SliceRuns> getSliceRuns(OffloadSliceOp offload) {
  auto source = cast<RankedTensorType>(offload.getSource().getType());
  auto dest =
      cast<RankedTensorType>(offload.getDest().getType().getTensorType());
  ArrayRef<int64_t> size = source.getShape(), full = dest.getShape();
  ArrayRef<int64_t> offsets = offload.getOffsets();
  int64_t rank = size.size();
  int64_t elementBytes = *getTensorSizeInBytes(source) /
                         std::max<int64_t>(1, source.getNumElements());
  // Element strides of the destination, row-major.
  SmallVector<int64_t> stride(rank, 1);
  for (int64_t dim = rank - 2; dim >= 0; --dim)
    stride[dim] = stride[dim + 1] * full[dim + 1];
  int64_t contiguous = rank - 1;
  while (contiguous > 0 && size[contiguous] == full[contiguous])
    --contiguous;
  SliceRuns runs;
  runs.runBytes =
      ShapedType::getNumElements(size.drop_front(contiguous)) * elementBytes;
  runs.runs = 1;
  runs.destStride = runs.runBytes;
  for (int64_t dim = 0; dim < contiguous; ++dim) {
    if (size[dim] == 1)
      continue;
    if (runs.runs > 1)
      return offload.emitError()
             << "stores a slice that is not evenly spaced runs of bytes in "
                "its destination (more than one outer dimension of "
             << source << " in " << dest << " has several elements); the "
             << "runtime copies one strided run list";
    runs.runs = size[dim];
    runs.destStride = stride[dim] * elementBytes;
  }
  for (int64_t dim = 0; dim < rank; ++dim)
    runs.destOffset += offsets[dim] * stride[dim] * elementBytes;
  return runs;
}

/// The transfers ho-lower-to-runtime lowers are in the function body
/// itself: one inside a loop or a branch would be left typed for the ho
/// dialect among calls that pass i64 handles.
static LogicalResult checkTransfersAtTopLevel(func::FuncOp function) {
  Block &body = function.getBody().front();
  WalkResult walk = function.walk([&](Operation *op) {
    if (op->getBlock() == &body ||
        !isa<OffloadOp, OffloadSliceOp, PrefetchOp, PrefetchRoutedOp,
             PrefetchBlocksOp, AwaitOp, WaitOffloadOp>(op))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitError()
                              << "is inside a region: the lowering takes "
                                 "transfers in the function body only";
    diag.attachNote(op->getParentOp()->getLoc())
        << "inside this '" << op->getParentOp()->getName() << "'";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult RuntimeLowering::collect() {
  if (failed(checkFuturesStayLocal(function)) ||
      failed(checkTransfersAtTopLevel(function)) ||
      failed(verifyBuffersInArena(function, liveness)))
    return failure();
  for (Operation &op : function.getBody().front()) {
    TransferInfo info;
    info.op = &op;
    FailureOr<int64_t> offset = 0;
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      info.tier = offload.getResult().getType().getTier();
      info.bytes = offload.getResult().getType().getSizeInBytes();
      offset = getDeviceOffset(&op, offload.getSource());
    } else if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
      info.tier = prefetch.getSource().getType().getTier();
      info.bytes = prefetch.getSource().getType().getSizeInBytes();
      offset = getDeviceOffset(&op, prefetch.getResult());
    } else if (auto await = dyn_cast<AwaitOp>(op)) {
      info.bytes = await.getFuture().getType().getSizeInBytes();
      offset = getDeviceOffset(&op, await.getResult());
    } else if (auto prefetch = dyn_cast<PrefetchRoutedOp>(op)) {
      // One tier per op keeps the calls simple; the planner stages every
      // expert in one tier.
      auto first = cast<RemoteType>(prefetch.getExperts().front().getType());
      for (Value expert : prefetch.getExperts())
        if (cast<RemoteType>(expert.getType()).getTier() != first.getTier())
          return prefetch.emitError()
                 << "fetches experts from more than one tier; lower one "
                    "ho.prefetch_routed per tier";
      info.tier = first.getTier();
      info.bytes = first.getSizeInBytes();
      offset = getDeviceOffset(&op, prefetch.getResult());
      if (failed(collectSelection(&op, prefetch.getSelection(), info)))
        return failure();
    } else if (auto routed = dyn_cast<RoutedOp>(op)) {
      if (!routed.getStaged())
        continue;
      auto await = routed.getStaged().getDefiningOp<AwaitOp>();
      if (!await || !await.getFuture().getDefiningOp<PrefetchRoutedOp>())
        return routed.emitError()
               << "reads staged slots that are not the awaited result of a "
                  "ho.prefetch_routed, so no runtime group holds them";
      if (failed(collectSelection(&op, routed.getSelection(), info)))
        return failure();
      info.slotsFrom = await.getFuture().getDefiningOp();
      info.flops = routed.getFlopCount().value_or(0);
      info.bytesAccessed = routed.getBytesAccessed().value_or(0);
      for (Type type : routed.getExperts().getTypes()) {
        auto remote = dyn_cast<RemoteType>(type);
        info.expertTiers.push_back(remote ? std::optional(remote.getTier())
                                          : std::nullopt);
      }
    } else if (auto prefetch = dyn_cast<PrefetchBlocksOp>(op)) {
      info.tier = prefetch.getSource().getType().getTier();
      info.blocks =
          getBlockLayout(cast<RankedTensorType>(
                             prefetch.getSource().getType().getTensorType()),
                         prefetch.getAxisAttr().getInt(),
                         prefetch.getBlockSizeAttr().getInt());
      info.picksPerRow =
          cast<RankedTensorType>(prefetch.getSelection().getType())
              .getShape()
              .back();
      offset = getDeviceOffset(&op, prefetch.getResult());
      if (failed(collectSelection(&op, prefetch.getSelection(), info)))
        return failure();
    } else if (auto gather = dyn_cast<GatherBlocksOp>(op)) {
      if (!gather.getStaged())
        continue;
      auto await = gather.getStaged().getDefiningOp<AwaitOp>();
      if (!await || !await.getFuture().getDefiningOp<PrefetchBlocksOp>())
        return gather.emitError()
               << "reads staged blocks that are not the awaited result of a "
                  "ho.prefetch_blocks, so no runtime group holds them";
      if (failed(collectSelection(&op, gather.getSelection(), info)))
        return failure();
      info.slotsFrom = await.getFuture().getDefiningOp();
    } else if (auto offload = dyn_cast<OffloadSliceOp>(op)) {
      info.tier = offload.getResult().getType().getTier();
      FailureOr<SliceRuns> runs = getSliceRuns(offload);
      if (failed(runs))
        return failure();
      info.slice = *runs;
      offset = getDeviceOffset(&op, offload.getSource());
    } else if (!isa<WaitOffloadOp>(op)) {
      continue;
    }
    if (failed(offset))
      return failure();
    info.offset = *offset;
    transfers.push_back(info);
  }
  return success();
}

LogicalResult RuntimeLowering::collectSelection(Operation *op, Value selection,
                                                TransferInfo &info) {
  auto type = cast<RankedTensorType>(selection.getType());
  if (!type.getElementType().isInteger(32))
    return op->emitError() << "picks by " << type
                           << "; the runtime reads int32 ids";
  FailureOr<int64_t> offset = getDeviceOffset(op, selection);
  if (failed(offset))
    return failure();
  info.selectionOffset = *offset;
  info.numPicks = type.getNumElements();
  return success();
}

func::FuncOp RuntimeLowering::declare(StringRef name, TypeRange inputs,
                                      TypeRange results) {
  return declareRuntimeFunction(module, builder, name, inputs, results);
}

Value RuntimeLowering::constantI32(Location loc, int32_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

Value RuntimeLowering::constantI64(Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 64);
}

Value RuntimeLowering::call(Location loc, StringRef name, ValueRange operands,
                            TypeRange results) {
  func::FuncOp callee = declare(name, operands.getTypes(), results);
  ++numCalls;
  auto op = func::CallOp::create(builder, loc, callee, operands);
  return results.empty() ? Value() : op.getResult(0);
}

void RuntimeLowering::lower(OffloadOp offload, const TransferInfo &info) {
  Location loc = offload.getLoc();
  auto tier = static_cast<int32_t>(info.tier);
  Value copy =
      call(loc, kOffloadStart,
           {constantI32(loc, tier), constantI32(loc, 2 * tier + 1),
            constantI64(loc, info.offset), constantI64(loc, info.bytes)},
           builder.getI64Type());
  offload.getResult().replaceAllUsesWith(copy);
}

void RuntimeLowering::lower(PrefetchOp prefetch, const TransferInfo &info) {
  Location loc = prefetch.getLoc();
  auto tier = static_cast<int32_t>(info.tier);
  Value event = call(loc, kPrefetchStart,
                     {constantI32(loc, tier), constantI32(loc, 2 * tier),
                      prefetch.getSource(), constantI64(loc, info.offset),
                      constantI64(loc, info.bytes)},
                     builder.getI64Type());
  prefetch.getResult().replaceAllUsesWith(event);
}

void RuntimeLowering::lower(AwaitOp await, const TransferInfo &info) {
  Location loc = await.getLoc();
  call(loc, kEventWait, {await.getFuture()}, {});
  // The fetched tensor is the arena's bytes at its buffer's offset.
  auto type = cast<RankedTensorType>(await.getResult().getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value shift = arith::ConstantIndexOp::create(builder, loc, info.offset);
  Value view = memref::ViewOp::create(builder, loc, memrefType, arena, shift,
                                      ValueRange());
  Value tensor = bufferization::ToTensorOp::create(
      builder, loc, type, view, /*restrict=*/true, /*writable=*/true);
  await.getResult().replaceAllUsesWith(tensor);
}

void RuntimeLowering::lower(WaitOffloadOp wait) {
  call(wait.getLoc(), kOffloadWait, {wait.getRemote()}, {});
}

void RuntimeLowering::lower(PrefetchRoutedOp prefetch,
                            const TransferInfo &info) {
  Location loc = prefetch.getLoc();
  auto tier = static_cast<int32_t>(info.tier);
  Value group = call(
      loc, kRoutedBegin,
      {constantI64(loc, info.selectionOffset), constantI64(loc, info.numPicks),
       constantI64(loc, info.offset), constantI64(loc, info.bytes),
       constantI64(loc, prefetch.getNumSlots())},
      builder.getI64Type());
  for (auto [id, expert] :
       llvm::zip(prefetch.getExpertIds(), prefetch.getExperts()))
    call(loc, kRoutedOffer,
         {group, constantI32(loc, tier), constantI32(loc, 2 * tier),
          constantI64(loc, id), expert},
         {});
  routedGroups[prefetch] = group;
  prefetch.getResult().replaceAllUsesWith(
      call(loc, kRoutedEvent, {group}, builder.getI64Type()));
}

void RuntimeLowering::lower(RoutedOp routed, const TransferInfo &info) {
  Location loc = routed.getLoc();
  Value group = routedGroups.lookup(info.slotsFrom);
  SmallVector<Value> operands(routed.getInputs());
  operands.push_back(routed.getSelection());
  for (auto [index, expert] : llvm::enumerate(routed.getExperts())) {
    std::optional<MemoryTier> remoteTier = info.expertTiers[index];
    if (!remoteTier) {
      operands.push_back(expert);
      continue;
    }
    auto tier = static_cast<int32_t>(*remoteTier);
    call(loc, kRoutedEnsure,
         {group, constantI64(loc, info.selectionOffset),
          constantI64(loc, info.numPicks), constantI32(loc, tier),
          constantI32(loc, 2 * tier),
          constantI64(loc, routed.getFirstExpert() + index), expert},
         {});
  }
  operands.push_back(routed.getStaged());
  // The kernel's table of what each slot holds, read once the misses are
  // in.
  auto slotsType = cast<RankedTensorType>(routed.getStaged().getType());
  SmallVector<Value> slotExperts;
  for (int64_t slot = 0; slot < slotsType.getDimSize(0); ++slot)
    slotExperts.push_back(call(loc, kRoutedSlotExpert,
                               {group, constantI64(loc, slot)},
                               builder.getI64Type()));
  operands.push_back(tensor::FromElementsOp::create(
      builder, loc,
      RankedTensorType::get({slotsType.getDimSize(0)}, builder.getI64Type()),
      slotExperts));
  // The kernel reads its resident experts and the slots; its cost stays
  // the routed op's, and its layout says which operand is which.
  SmallVector<int64_t> residentIds;
  for (auto [index, tier] : llvm::enumerate(info.expertTiers))
    if (!tier)
      residentIds.push_back(routed.getFirstExpert() + index);
  auto kernel = ComputeOp::create(builder, loc, routed.getResultTypes(),
                                  routed.getKind(), operands);
  kernel.setFlopsAttr(builder.getI64IntegerAttr(info.flops));
  kernel.setBytesAttr(builder.getI64IntegerAttr(info.bytesAccessed));
  kernel->setAttr(
      kRoutedKernelAttrName,
      builder.getDictionaryAttr(
          {builder.getNamedAttr(
               "inputs", builder.getI64IntegerAttr(routed.getInputs().size())),
           builder.getNamedAttr("expert_ids",
                                builder.getDenseI64ArrayAttr(residentIds)),
           builder.getNamedAttr("total_experts",
                                routed.getTotalExpertsAttr())}));
  if (Attribute offsets = routed->getAttr(kOffsetsAttrName))
    kernel->setAttr(kOffsetsAttrName, offsets);
  routed.replaceAllUsesWith(kernel.getResults());
}

void RuntimeLowering::lower(PrefetchBlocksOp prefetch,
                            const TransferInfo &info) {
  Location loc = prefetch.getLoc();
  auto tier = static_cast<int32_t>(info.tier);
  Value group = call(
      loc, kBlocksBegin,
      {constantI32(loc, tier), constantI32(loc, 2 * tier), prefetch.getSource(),
       constantI64(loc, info.selectionOffset),
       constantI64(loc, info.blocks.rows), constantI64(loc, info.picksPerRow),
       constantI64(loc, info.blocks.rowBytes),
       constantI64(loc, info.blocks.blockBytes), constantI64(loc, info.offset)},
      builder.getI64Type());
  blockGroups[prefetch] = group;
  prefetch.getResult().replaceAllUsesWith(
      call(loc, kBlocksEvent, {group}, builder.getI64Type()));
}

void RuntimeLowering::lower(GatherBlocksOp gather, const TransferInfo &info) {
  Location loc = gather.getLoc();
  call(loc, kBlocksEnsure,
       {blockGroups.lookup(info.slotsFrom),
        constantI64(loc, info.selectionOffset)},
       {});
  // The staged places hold the picked blocks in order now: they are the
  // gather's result.
  gather.getResult().replaceAllUsesWith(gather.getStaged());
}

void RuntimeLowering::lower(OffloadSliceOp offload, const TransferInfo &info) {
  Location loc = offload.getLoc();
  auto tier = static_cast<int32_t>(info.tier);
  Value copy = call(loc, kOffloadSliceStart,
                    {constantI32(loc, tier), constantI32(loc, 2 * tier + 1),
                     offload.getDest(), constantI64(loc, info.offset),
                     constantI64(loc, info.slice.runBytes),
                     constantI64(loc, info.slice.runs),
                     constantI64(loc, info.slice.destOffset),
                     constantI64(loc, info.slice.destStride)},
                    builder.getI64Type());
  offload.getResult().replaceAllUsesWith(copy);
}

void RuntimeLowering::convertSignature() {
  Block &body = function.getBody().front();
  Type handle = builder.getI64Type();
  for (BlockArgument arg : body.getArguments())
    if (isa<RemoteType>(arg.getType()))
      arg.setType(handle);
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
}

void RuntimeLowering::rewrite() {
  Block &body = function.getBody().front();
  // The kernel that makes picks must know it once their readers are calls.
  (void)markPickRanges(function, /*forRunning=*/false);
  // The handles the calls pass around replace remote values and futures;
  // arguments first, so that every use sees an i64.
  convertSignature();
  if (llvm::any_of(transfers, [](const TransferInfo &info) {
        return isa<AwaitOp>(info.op);
      })) {
    builder.setInsertionPointToStart(&body);
    auto arenaType =
        MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
    arena = call(function.getLoc(), kArenaBase, {}, arenaType);
    // The C interface passes the memref through a descriptor.
    declare(kArenaBase, {}, arenaType)
        ->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  }
  for (const TransferInfo &info : transfers) {
    builder.setInsertionPoint(info.op);
    if (auto offload = dyn_cast<OffloadOp>(info.op))
      lower(offload, info);
    else if (auto prefetch = dyn_cast<PrefetchOp>(info.op))
      lower(prefetch, info);
    else if (auto await = dyn_cast<AwaitOp>(info.op))
      lower(await, info);
    else if (auto prefetch = dyn_cast<PrefetchRoutedOp>(info.op))
      lower(prefetch, info);
    else if (auto routed = dyn_cast<RoutedOp>(info.op))
      lower(routed, info);
    else if (auto prefetch = dyn_cast<PrefetchBlocksOp>(info.op))
      lower(prefetch, info);
    else if (auto gather = dyn_cast<GatherBlocksOp>(info.op))
      lower(gather, info);
    else if (auto offload = dyn_cast<OffloadSliceOp>(info.op))
      lower(offload, info);
    else
      lower(cast<WaitOffloadOp>(info.op));
  }
  for (const TransferInfo &info : llvm::reverse(transfers))
    info.op->erase();
  // Returned copies are handles now.
  convertSignature();
}

namespace {
struct LowerToRuntimePass
    : public ho::impl::LowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override;
};
} // namespace

void LowerToRuntimePass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  // Every function is checked before any is changed, so that a failure
  // reports all the unplaced transfers and leaves the module as it was.
  SmallVector<std::unique_ptr<RuntimeLowering>> lowerings;
  bool failedAny = false;
  for (func::FuncOp function : functions) {
    lowerings.push_back(std::make_unique<RuntimeLowering>(module, function));
    failedAny |= failed(lowerings.back()->collect());
  }
  if (failedAny)
    return signalPassFailure();
  for (auto &lowering : lowerings) {
    lowering->rewrite();
    numCalls += lowering->numCalls;
  }
}
