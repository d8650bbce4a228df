//===- ScheduleChecks.cpp - Structural rules of a schedule ----------------===//

#include "hyperoffload/Analysis/ScheduleChecks.h"

#include "hyperoffload/Analysis/MemoryPlan.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::ho;

Value ho::getOverwrittenOperand(OpResult result,
                                const BufferLiveness &liveness) {
  Operation *op = result.getOwner();
  if (isTensorViewOp(op) || isa<AwaitOp>(op))
    return Value();
  return liveness.getAliasedSource(result);
}

namespace {
/// The program points at which each buffer of a body is overwritten in
/// place, and the first such write between a value's definition and a use.
class OverwriteIndex {
public:
  OverwriteIndex(Block &body, const BufferLiveness &liveness);

  /// The first op that overwrote the buffer of `value` after `value` was
  /// defined and before `usePoint`; null when there is none.
  Operation *findOverwriteBefore(Value value, unsigned usePoint) const;

private:
  unsigned getDefinitionPoint(Value value) const;

  const BufferLiveness &liveness;
  /// Per buffer, the points of the ops that write it in place, ascending.
  DenseMap<BufferId, SmallVector<unsigned, 2>> writesOf;
};
} // namespace

OverwriteIndex::OverwriteIndex(Block &body, const BufferLiveness &liveness)
    : liveness(liveness) {
  for (Operation &op : body) {
    unsigned point = liveness.getPoint(&op);
    for (OpResult result : op.getResults()) {
      Value target = getOverwrittenOperand(result, liveness);
      const BufferInfo *buffer = target ? liveness.lookup(target) : nullptr;
      if (!buffer)
        continue;
      SmallVector<unsigned, 2> &writes = writesOf[buffer->id];
      if (writes.empty() || writes.back() != point)
        writes.push_back(point);
    }
  }
}

unsigned OverwriteIndex::getDefinitionPoint(Value value) const {
  // A view that shares its source's buffer shows the source's data: that
  // data is spoilt by any overwrite after the source's definition.
  while (Operation *view = value.getDefiningOp()) {
    if (!isTensorViewOp(view) ||
        liveness.lookup(view->getOperand(0)) != liveness.lookup(value))
      break;
    value = view->getOperand(0);
  }
  if (isa<BlockArgument>(value))
    return liveness.getEntryPoint();
  return liveness.getPoint(value.getDefiningOp());
}

Operation *OverwriteIndex::findOverwriteBefore(Value value,
                                               unsigned usePoint) const {
  // Values defined inside regions have no buffer in the liveness of the
  // body: they are not tracked.
  const BufferInfo *buffer = liveness.lookup(value);
  if (!buffer)
    return nullptr;
  auto it = writesOf.find(buffer->id);
  if (it == writesOf.end())
    return nullptr;
  unsigned definition = getDefinitionPoint(value);
  for (unsigned write : it->second) {
    if (write >= usePoint)
      break;
    if (write > definition)
      return liveness.getOp(write);
  }
  return nullptr;
}

SmallVector<StaleRead> ho::findStaleReads(Block &body,
                                          const BufferLiveness &liveness) {
  OverwriteIndex index(body, liveness);
  SmallVector<StaleRead> reads;
  for (Operation &op : body) {
    // A use inside a region happens while the op that holds it runs.
    unsigned point = liveness.getPoint(&op);
    op.walk<WalkOrder::PreOrder>([&](Operation *user) {
      // One report per value and user, even if it reads the value twice.
      llvm::SmallDenseSet<Value, 4> reported;
      for (OpOperand &use : user->getOpOperands()) {
        // Undefined contents (a tensor.empty) are garbage either way; a
        // view reads nothing itself, its readers read its source's data.
        if (!readsOperand(use) || isUndefinedValue(use.get()) ||
            isTensorViewOp(user))
          continue;
        Operation *writer = index.findOverwriteBefore(use.get(), point);
        if (writer && reported.insert(use.get()).second)
          reads.push_back({&use, writer});
      }
    });
  }
  return reads;
}

SmallVector<WriteUnderStore>
ho::findWritesUnderStore(Block &body, const BufferLiveness &liveness) {
  // Per buffer, the stores of it issued and not yet waited for, in issue
  // order; and the store behind each remote value.
  DenseMap<BufferId, SmallVector<Operation *, 1>> storesInFlight;
  DenseMap<Value, std::pair<BufferId, Operation *>> storeOfRemote;
  SmallVector<WriteUnderStore> writes;
  for (Operation &op : body) {
    if (isa<OffloadOp, OffloadSliceOp>(op)) {
      if (const BufferInfo *buffer = liveness.lookup(op.getOperand(0))) {
        storesInFlight[buffer->id].push_back(&op);
        storeOfRemote[op.getResult(0)] = {buffer->id, &op};
      }
      continue;
    }
    if (auto wait = dyn_cast<WaitOffloadOp>(op)) {
      auto it = storeOfRemote.find(wait.getRemote());
      if (it != storeOfRemote.end())
        llvm::erase(storesInFlight[it->second.first], it->second.second);
      continue;
    }
    for (OpResult result : op.getResults()) {
      Value target = getOverwrittenOperand(result, liveness);
      const BufferInfo *buffer = target ? liveness.lookup(target) : nullptr;
      if (!buffer)
        continue;
      auto it = storesInFlight.find(buffer->id);
      if (it != storesInFlight.end() && !it->second.empty()) {
        writes.push_back({&op, it->second.front()});
        break;
      }
    }
  }
  return writes;
}

/// The arena bytes `buffer` occupies, if the static memory plan placed it.
static std::optional<std::pair<int64_t, int64_t>>
getArenaBytes(const BufferInfo &buffer) {
  std::optional<int64_t> offset = getAssignedOffset(buffer.root);
  if (!offset || *offset < 0)
    return std::nullopt;
  return std::make_pair(*offset, *offset + buffer.size);
}

SmallVector<ReuseUnderStore>
ho::findReusesUnderStore(Block &body, const BufferLiveness &liveness) {
  DenseMap<Operation *, SmallVector<const BufferInfo *, 1>> allocatedAt;
  for (const BufferInfo &buffer : liveness.getBuffers())
    if (!buffer.isArgument() && buffer.size > 0)
      allocatedAt[liveness.getOp(buffer.definition)].push_back(&buffer);
  // The stores issued and not yet waited for, in issue order.
  SmallVector<std::pair<Operation *, const BufferInfo *>> storesInFlight;
  SmallVector<ReuseUnderStore> reuses;
  for (Operation &op : body) {
    if (isa<OffloadOp, OffloadSliceOp>(op)) {
      if (const BufferInfo *source = liveness.lookup(op.getOperand(0)))
        storesInFlight.push_back({&op, source});
      continue;
    }
    if (auto wait = dyn_cast<WaitOffloadOp>(op)) {
      llvm::erase_if(storesInFlight, [&](const auto &store) {
        return store.first->getResult(0) == wait.getRemote();
      });
      continue;
    }
    auto allocated = allocatedAt.find(&op);
    if (allocated == allocatedAt.end())
      continue;
    for (const BufferInfo *buffer : allocated->second) {
      auto bytes = getArenaBytes(*buffer);
      if (!bytes)
        continue;
      auto store = llvm::find_if(storesInFlight, [&](const auto &store) {
        auto stored = getArenaBytes(*store.second);
        return store.second != buffer && stored &&
               stored->first < bytes->second && bytes->first < stored->second;
      });
      if (store != storesInFlight.end()) {
        reuses.push_back({&op, store->first});
        break;
      }
    }
  }
  return reuses;
}

SmallVector<UnawaitedPrefetch> ho::findUnawaitedPrefetches(Block &body) {
  Operation *terminator = body.empty() ? nullptr : &body.back();
  auto isReturned = [&](Operation *user) {
    return user == terminator && user->hasTrait<OpTrait::ReturnLike>();
  };

  SmallVector<UnawaitedPrefetch> unawaited;
  for (auto prefetch : body.getOps<PrefetchOp>()) {
    bool completed = false;
    Operation *escape = nullptr;
    for (Operation *user : prefetch.getResult().getUsers()) {
      if (isa<AwaitOp>(user) || isReturned(user)) {
        completed = true;
        break;
      }
      // Report the escape that comes first in the block.
      Operation *owner = body.findAncestorOpInBlock(*user);
      if (!escape || (owner && owner->isBeforeInBlock(
                                   body.findAncestorOpInBlock(*escape))))
        escape = user;
    }
    if (!completed)
      unawaited.push_back({prefetch, escape});
  }
  return unawaited;
}
