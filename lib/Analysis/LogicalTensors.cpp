//===- LogicalTensors.cpp - The tensors the bounds reason about -----------===//
//
// docs/CostModel.md ("Which schedules are bounded") defines logical tensors
// and their presence points.
//
//===----------------------------------------------------------------------===//

#include "LogicalTensors.h"

#include "hyperoffload/Dialect/HO/ComputeKinds.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ho;

bool ho::needsDataOnDevice(Operation *op) {
  return !isa<OffloadOp, PrefetchOp, PrefetchRoutedOp, PrefetchBlocksOp,
              OffloadSliceOp, AwaitOp, WaitOffloadOp>(op) &&
         !isTensorViewOp(op) && !op->hasTrait<OpTrait::ReturnLike>();
}

/// Whether `value` is read in blocks (the source of a ho.gather_blocks).
static bool isReadInBlocks(Value value) {
  return llvm::any_of(value.getUses(), [](OpOperand &use) {
    auto gather = dyn_cast<GatherBlocksOp>(use.getOwner());
    return gather && gather.getSource() == use.get();
  });
}

bool ho::isReadInPart(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto routed = dyn_cast<RoutedOp>(user))
    return routed.getExpertPosition(use.getOperandNumber()).has_value();
  if (auto gather = dyn_cast<GatherBlocksOp>(user))
    return gather.getSource() == use.get();
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
    return insert.getDest() == use.get() && isReadInBlocks(use.get());
  return false;
}

bool ho::mayRunInColumnBlocks(Operation *op) {
  auto matmul = dyn_cast<ComputeOp>(op);
  return matmul && isColumnSplittableMatmul(matmul) &&
         isa<BlockArgument>(matmul.getInputs()[1]);
}

/// Whether `use` is the weight of a matmul that ho-plan-offload may compute
/// in column blocks, each fetched on its own.
static bool isColumnBlockWeight(OpOperand &use) {
  auto matmul = dyn_cast<ComputeOp>(use.getOwner());
  return matmul && mayRunInColumnBlocks(matmul) &&
         matmul.getInputs()[1] == use.get();
}

/// Whether `arg` is a remote argument that a plan put in its tier.
static bool isPlacedByPlan(BlockArgument arg) {
  auto function = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return function &&
         function.getArgAttr(arg.getArgNumber(), kPlacedByPlanAttrName);
}

namespace {
class LogicalTensorBuilder {
public:
  LogicalTensorBuilder(Block &body, const BufferLiveness &liveness)
      : body(body), liveness(liveness) {
    built.tensorOfBuffer.assign(liveness.getBuffers().size(), kNone);
  }

  LogicalTensors build();

private:
  static constexpr unsigned kNone = LogicalTensors::kNone;

  unsigned addTensor(int64_t bytes, bool created);
  void addArgument(BlockArgument arg);
  void addResult(OpResult result);
  unsigned getRemoteTensor(OpResult result, RemoteType type);
  void addPresence(const BufferInfo &buffer);

  Block &body;
  const BufferLiveness &liveness;
  LogicalTensors built;
  SmallVector<LogicalTensor> &tensors = built.tensors;
  SmallVector<unsigned> &tensorOfBuffer = built.tensorOfBuffer;
  DenseMap<Value, unsigned> tensorOfRemote;
};
} // namespace

unsigned LogicalTensorBuilder::addTensor(int64_t bytes, bool created) {
  LogicalTensor &tensor = tensors.emplace_back();
  tensor.bytes = bytes;
  tensor.created = created;
  return tensors.size() - 1;
}

void LogicalTensorBuilder::addArgument(BlockArgument arg) {
  if (auto remote = dyn_cast<RemoteType>(arg.getType())) {
    unsigned id = addTensor(remote.getSizeInBytes(), /*created=*/false);
    // What a plan put in the tier was the program's device argument.
    if (isPlacedByPlan(arg))
      tensors[id].deviceArgument = true;
    else
      tensors[id].remoteArgumentTier = remote.getTier();
    tensorOfRemote[arg] = id;
    return;
  }
  if (const BufferInfo *buffer = liveness.lookup(arg)) {
    unsigned id = addTensor(buffer->size, /*created=*/false);
    tensors[id].deviceArgument = true;
    tensorOfBuffer[buffer->id] = id;
  }
}

/// The tensor a remote value holds: the offloaded buffer's when the whole
/// buffer was copied, else a tensor of its own that starts in the tier.
unsigned LogicalTensorBuilder::getRemoteTensor(OpResult result,
                                               RemoteType type) {
  if (auto offload = dyn_cast<OffloadOp>(result.getOwner()))
    if (const BufferInfo *buffer = liveness.lookup(offload.getSource()))
      if (unsigned id = tensorOfBuffer[buffer->id];
          id != kNone && tensors[id].bytes == type.getSizeInBytes())
        return id;
  return addTensor(type.getSizeInBytes(), /*created=*/false);
}

void LogicalTensorBuilder::addResult(OpResult result) {
  if (auto remote = dyn_cast<RemoteType>(result.getType())) {
    tensorOfRemote[result] = getRemoteTensor(result, remote);
    return;
  }
  const BufferInfo *buffer = liveness.lookup(result);
  if (!buffer || buffer->root != result)
    return; // No device memory, or an alias of an earlier buffer.
  if (auto prefetch = dyn_cast<PrefetchOp>(result.getOwner())) {
    auto it = tensorOfRemote.find(prefetch.getSource());
    tensorOfBuffer[buffer->id] = it != tensorOfRemote.end()
                                     ? it->second
                                     : addTensor(buffer->size, false);
    return;
  }
  unsigned id = addTensor(buffer->size, /*created=*/true);
  tensors[id].presence.push_back(buffer->definition);
  tensorOfBuffer[buffer->id] = id;
}

void LogicalTensorBuilder::addPresence(const BufferInfo &buffer) {
  unsigned id = tensorOfBuffer[buffer.id];
  if (id == kNone)
    return;
  for (Value alias : buffer.aliases) {
    // A result that lives in an existing buffer was written into it.
    if (alias != buffer.root && isa<OpResult>(alias))
      if (Operation *writer =
              body.findAncestorOpInBlock(*alias.getDefiningOp());
          writer && needsDataOnDevice(writer)) {
        unsigned point = liveness.getPoint(writer);
        tensors[id].lastWrite =
            std::max(tensors[id].lastWrite.value_or(point), point);
      }
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (isReadInPart(use) || isColumnBlockWeight(use))
        tensors[id].divisible = true;
      if (isReadInPart(use))
        continue;
      // Uses inside a region count at the op that holds the region.
      // The return is not a presence: a plan may hand any result back in
      // a tier (ho-plan-offload returns it as !ho.remote). A created result
      // exists until then; the caller's data is the caller's.
      Operation *owner = body.findAncestorOpInBlock(*user);
      if (!owner)
        continue;
      if (owner->hasTrait<OpTrait::ReturnLike>() && tensors[id].created)
        tensors[id].end = liveness.getExitPoint();
      if (needsDataOnDevice(owner))
        tensors[id].presence.push_back(liveness.getPoint(owner));
    }
  }
}

/// A remote value that a plan fetches or writes in part: the experts a
/// router picks, blocks, or slices stored into it.
static bool isMovedInPart(Value remote) {
  return llvm::any_of(remote.getUsers(), [](Operation *user) {
    return isa<PrefetchRoutedOp, PrefetchBlocksOp, OffloadSliceOp>(user);
  });
}

LogicalTensors LogicalTensorBuilder::build() {
  for (BlockArgument arg : body.getArguments())
    addArgument(arg);
  for (Operation &op : body)
    for (OpResult result : op.getResults())
      addResult(result);
  for (const BufferInfo &buffer : liveness.getBuffers())
    addPresence(buffer);
  for (auto [remote, id] : tensorOfRemote)
    if (isMovedInPart(remote))
      tensors[id].divisible = true;
  for (LogicalTensor &tensor : tensors) {
    llvm::sort(tensor.presence);
    tensor.presence.erase(llvm::unique(tensor.presence), tensor.presence.end());
    if (!tensor.presence.empty())
      tensor.end = std::max(tensor.end, tensor.presence.back());
  }
  return std::move(built);
}

LogicalTensors ho::buildLogicalTensors(Block &body,
                                       const BufferLiveness &liveness) {
  return LogicalTensorBuilder(body, liveness).build();
}

//===----------------------------------------------------------------------===//
// Live bytes per point
//===----------------------------------------------------------------------===//

DemandProfile ho::computeDemandProfile(ArrayRef<LogicalTensor> tensors,
                                       unsigned numPoints) {
  SmallVector<int64_t> liveDelta(numPoints + 1, 0);
  SmallVector<int64_t> callerDelta(numPoints + 1, 0);
  SmallVector<int64_t> callerPresent(numPoints, 0);
  SmallVector<int64_t> doneDelta(numPoints + 1, 0);
  for (const LogicalTensor &tensor : tensors) {
    if (tensor.presence.empty())
      continue;
    liveDelta[tensor.getStart()] += tensor.bytes;
    liveDelta[tensor.end + 1] -= tensor.bytes;
    doneDelta[tensor.presence.back() + 1] += tensor.bytes;
    doneDelta[tensor.end + 1] -= tensor.bytes;
    if (tensor.created)
      continue;
    callerDelta[tensor.getStart()] += tensor.bytes;
    callerDelta[tensor.end + 1] -= tensor.bytes;
    for (unsigned point : tensor.presence)
      callerPresent[point] += tensor.bytes;
  }
  DemandProfile profile;
  int64_t live = 0, caller = 0, done = 0;
  for (unsigned point = 0; point < numPoints; ++point) {
    live += liveDelta[point];
    caller += callerDelta[point];
    done += doneDelta[point];
    profile.live.push_back(live);
    profile.callerDataAway.push_back(caller - callerPresent[point]);
    profile.neededNoMore.push_back(done);
  }
  return profile;
}

SmallVector<PressurePoint> ho::findPressurePoints(ArrayRef<int64_t> excess,
                                                  size_t limit) {
  SmallVector<PressurePoint> points;
  bool inRun = false;
  for (auto [point, bytes] : llvm::enumerate(excess)) {
    if (bytes <= 0) {
      inRun = false;
      continue;
    }
    if (!inRun)
      points.push_back({static_cast<unsigned>(point), bytes});
    else if (bytes > points.back().excess)
      points.back() = {static_cast<unsigned>(point), bytes};
    inRun = true;
  }
  if (points.size() <= limit)
    return points;
  llvm::stable_sort(points, [](const PressurePoint &a, const PressurePoint &b) {
    return a.excess > b.excess;
  });
  points.resize(limit);
  llvm::sort(points, [](const PressurePoint &a, const PressurePoint &b) {
    return a.point < b.point;
  });
  return points;
}
