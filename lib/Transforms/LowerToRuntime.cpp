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

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::ho {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// The runtime functions, by the name the C header gives them.
constexpr llvm::StringLiteral kArenaBase = "ho_arena_base";
constexpr llvm::StringLiteral kOffloadStart = "ho_offload_start";
constexpr llvm::StringLiteral kOffloadWait = "ho_offload_wait";
constexpr llvm::StringLiteral kPrefetchStart = "ho_prefetch_start";
constexpr llvm::StringLiteral kEventWait = "ho_event_wait";

/// What one transfer op needs from the plan: where its device bytes are,
/// how many, and on which tier's queues.
struct TransferInfo {
  Operation *op;
  MemoryTier tier = MemoryTier::pool;
  int64_t offset = 0;
  int64_t bytes = 0;
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
  void convertSignature();

  ModuleOp module;
  func::FuncOp function;
  OpBuilder builder;
  BufferLiveness liveness;
  SmallVector<TransferInfo> transfers;
  Value arena;
};
} // namespace

FailureOr<int64_t> RuntimeLowering::getDeviceOffset(Operation *op,
                                                    Value value) {
  const BufferInfo *buffer = liveness.lookup(value);
  if (!buffer)
    return op->emitError() << "moves a tensor without a device buffer";
  // Transfers move whole buffers: a view would need its strides.
  if (buffer->root != value && !isa<AwaitOp>(op) &&
      isTensorViewOp(value.getDefiningOp()))
    return op->emitError()
           << "moves a view of a device buffer; only whole buffers can be "
              "lowered to runtime transfers";
  std::optional<int64_t> offset = getAssignedOffset(buffer->root);
  if (!offset)
    return op->emitError()
           << "its device buffer has no offset in the static memory plan; "
              "run ho-assign-offsets first";
  return *offset;
}

LogicalResult RuntimeLowering::collect() {
  for (Operation &op : function.getBody().front()) {
    TransferInfo info{&op};
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

func::FuncOp RuntimeLowering::declare(StringRef name, TypeRange inputs,
                                      TypeRange results) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto declaration = func::FuncOp::create(
      builder, module.getLoc(), name, builder.getFunctionType(inputs, results));
  declaration.setPrivate();
  return declaration;
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
