//===- BufferLiveness.cpp - Device buffers and when they are live ---------===//

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::ho;

bool ho::isTensorViewOp(Operation *op) {
  return isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::CastOp, tensor::BitcastOp,
             tensor::ReshapeOp, tosa::ReshapeOp>(op);
}

/// Whether `value` is a buffer a program loads once and keeps: a constant,
/// or a global's memref.
static bool isResidentThroughout(Value value) {
  return isReadOnlyValue(value) || value.getDefiningOp<memref::GetGlobalOp>();
}

Value BufferLiveness::getAliasedSource(OpResult result) const {
  if (Value source = getFixedAliasSource(result))
    return source;
  return inPlaceWrites.isInPlace(result) ? getReusableSource(result) : Value();
}

BufferLiveness::BufferLiveness(Block &body, int64_t granularity)
    : block(&body), inPlaceWrites(body) {
  for (Operation &op : body) {
    ops.push_back(&op);
    pointOf[&op] = ops.size();
  }
  definedAt.resize(getExitPoint() + 1);
  lastUsedAt.resize(getExitPoint() + 1);

  for (BlockArgument arg : body.getArguments())
    createBuffer(arg, getEntryPoint(), granularity);
  for (Operation *op : ops) {
    // A tensor.empty nothing uses is never allocated.
    if (isa<tensor::EmptyOp>(op) && op->use_empty())
      continue;
    for (OpResult result : op->getResults()) {
      if (isa<BaseMemRefType>(result.getType())) {
        addMemRefResult(result, granularity);
        continue;
      }
      Value source = getAliasedSource(result);
      if (source && bufferOf.count(source))
        addAlias(result, source);
      else
        createBuffer(result, getPoint(op), granularity);
    }
  }
  computeLastUses();
  computeProfile();
}

Operation *BufferLiveness::getOp(unsigned point) const {
  if (point == getEntryPoint() || point >= getExitPoint())
    return nullptr;
  return ops[point - 1];
}

const BufferInfo *BufferLiveness::lookup(Value value) const {
  auto it = bufferOf.find(value);
  return it == bufferOf.end() ? nullptr : &buffers[it->second];
}

void BufferLiveness::createBuffer(Value root, unsigned point,
                                  int64_t granularity) {
  // Remote tensors and scalars take no device memory; a future holds the
  // device buffer its prefetch allocates.
  Type type = root.getType();
  if (auto future = dyn_cast<FutureType>(type))
    type = future.getTensorType();
  if (!isa<TensorType, BaseMemRefType>(type))
    return;
  std::optional<int64_t> bytes = getTensorSizeInBytes(type);
  if (!bytes) {
    unsized.push_back(root);
    return;
  }
  // Constants are resident from entry, as bufferization's globals are.
  if (isResidentThroughout(root))
    point = getEntryPoint();
  BufferInfo &buffer = buffers.emplace_back();
  buffer.id = buffers.size() - 1;
  buffer.root = root;
  buffer.aliases.push_back(root);
  buffer.size = llvm::divideCeil(*bytes, granularity) * granularity;
  buffer.definition = point;
  bufferOf[root] = buffer.id;
  definedAt[point].push_back(buffer.id);
}

void BufferLiveness::addMemRefResult(OpResult result, int64_t granularity) {
  Operation *op = result.getOwner();
  if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
    if (bufferOf.count(view.getViewSource()))
      addAlias(result, view.getViewSource());
    return;
  }
  // An allocation, a global's buffer and a call's result (bufferized
  // functions return what they allocate) are buffers of their own; other
  // memref results are not tracked.
  if (isa<memref::GetGlobalOp, CallOpInterface>(op) ||
      hasSingleEffect<MemoryEffects::Allocate>(op, result))
    createBuffer(result, getPoint(op), granularity);
}

void BufferLiveness::addAlias(Value alias, Value source) {
  BufferId id = bufferOf.lookup(source);
  buffers[id].aliases.push_back(alias);
  bufferOf[alias] = id;
}

bool BufferLiveness::touchesBuffer(OpOperand &use) const {
  if (readsOperand(use))
    return true;
  // An init whose contents the op ignores, for a result written elsewhere.
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  if (!dps || !dps.isDpsInit(&use))
    return true;
  // A memref init has no result: the op writes the buffer itself.
  if (!isa<TensorType>(use.get().getType()))
    return true;
  return getAliasedSource(dps.getTiedOpResult(&use)) == use.get();
}

void BufferLiveness::computeLastUses() {
  for (BufferInfo &buffer : buffers) {
    // The caller owns device-resident arguments: they stay allocated for the
    // whole call. A plan that wants their memory passes them as remote.
    // Constants are weights a program loads once, resident throughout
    // (ho-constants-as-arguments makes them arguments the plan can move).
    if (buffer.isArgument() || isResidentThroughout(buffer.root)) {
      buffer.lastUse = getExitPoint();
      lastUsedAt[buffer.lastUse].push_back(buffer.id);
      continue;
    }
    buffer.lastUse = buffer.definition;
    for (Value alias : buffer.aliases) {
      for (OpOperand &use : alias.getUses()) {
        if (!touchesBuffer(use))
          continue;
        // Uses inside a region count at the op that holds the region.
        Operation *owner = block->findAncestorOpInBlock(*use.getOwner());
        if (!owner)
          continue;
        bool returned = owner->hasTrait<OpTrait::ReturnLike>();
        unsigned point = returned ? getExitPoint() : getPoint(owner);
        buffer.lastUse = std::max(buffer.lastUse, point);
      }
    }
    lastUsedAt[buffer.lastUse].push_back(buffer.id);
  }
}

void BufferLiveness::computeProfile() {
  SmallVector<int64_t> delta(getExitPoint() + 2, 0);
  for (const BufferInfo &buffer : buffers) {
    delta[buffer.definition] += buffer.size;
    delta[buffer.lastUse + 1] -= buffer.size;
  }
  profile.assign(getExitPoint() + 1, 0);
  int64_t live = 0;
  for (unsigned point = 0; point <= getExitPoint(); ++point) {
    live += delta[point];
    profile[point] = live;
    if (live > profile[peakPoint])
      peakPoint = point;
  }
}
