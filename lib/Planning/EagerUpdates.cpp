//===- EagerUpdates.cpp - Update the caller's state early ----------------===//

#include "EagerUpdates.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/OrderConstraints.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <utility>

using namespace mlir;
using namespace mlir::ho;

/// Whether an op with `access` overwrites a buffer the caller passed in.
static bool updatesArgument(const OpAccess &access,
                            const BufferLiveness &liveness) {
  return llvm::any_of(access.writes, [&](BufferId id) {
    return liveness.getBuffer(id).isArgument();
  });
}

/// The one op of `body` that uses the results of `op`; null when there are
/// none or several.
static Operation *getSoleUser(Operation &op, Block &body) {
  Operation *sole = nullptr;
  for (Operation *user : op.getUsers()) {
    Operation *owner = body.findAncestorOpInBlock(*user);
    if (!owner || (sole && owner != sole))
      return nullptr;
    sole = owner;
  }
  return sole;
}

/// The movable ops that update an argument in place, and the chains of
/// ops that each feed one of them alone. A value that feeds several (a
/// gradient flowing back through the layers) is the step's main work, and
/// stays where it is.
static llvm::DenseSet<Operation *>
findArgumentUpdates(Block &body, const BufferLiveness &liveness,
                    const OrderConstraints &constraints) {
  llvm::DenseSet<Operation *> updates;
  for (Operation &op : llvm::reverse(body)) {
    const OpAccess &access = constraints.getAccess(&op);
    if (access.mobility != Mobility::Movable)
      continue;
    Operation *user = getSoleUser(op, body);
    if (updatesArgument(access, liveness) || (user && updates.contains(user)))
      updates.insert(&op);
  }
  return updates;
}

namespace {
/// A place in the new order: after the op at `base` in the old order (-1:
/// the block's start), then by `sequence` among the ops moved there.
using OrderKey = std::pair<int64_t, int64_t>;
constexpr OrderKey kBlockStart = {-1, 0};

/// The latest place, per buffer, of the ops placed so far that access it.
class LatestAccess {
public:
  OrderKey get(BufferId id) const {
    auto it = latest.find(id);
    return it == latest.end() ? kBlockStart : it->second;
  }
  void raise(BufferId id, OrderKey key) {
    auto [it, inserted] = latest.try_emplace(id, key);
    if (!inserted)
      it->second = std::max(it->second, key);
  }

private:
  DenseMap<BufferId, OrderKey> latest;
};
} // namespace

bool ho::scheduleUpdatesEagerly(Block &body) {
  // Buffer identities do not depend on the rounding, nor on the order.
  BufferLiveness liveness(body);
  OrderConstraints constraints(body, liveness);
  llvm::DenseSet<Operation *> updates =
      findArgumentUpdates(body, liveness, constraints);
  if (updates.empty())
    return false;

  DenseMap<Operation *, OrderKey> keys;
  // The latest op placed so far that writes each buffer, and that touches it.
  LatestAccess lastWrite, lastTouch;
  OrderKey lastPinned = kBlockStart;
  int64_t sequence = 0;
  SmallVector<std::pair<OrderKey, Operation *>> order;
  for (auto [index, op] : llvm::enumerate(body)) {
    const OpAccess &access = constraints.getAccess(&op);
    OrderKey key = {static_cast<int64_t>(index), 0};
    if (updates.contains(&op)) {
      OrderKey after = lastPinned;
      for (Operation *producer : access.producers)
        after = std::max(after, keys.lookup(producer));
      for (BufferId id : access.reads)
        after = std::max(after, lastWrite.get(id));
      for (BufferId id : access.writes)
        after = std::max(after, lastTouch.get(id));
      key = {after.first, ++sequence};
    } else if (access.mobility != Mobility::Movable) {
      lastPinned = key;
    }
    keys[&op] = key;
    for (BufferId id : access.writes) {
      lastWrite.raise(id, key);
      lastTouch.raise(id, key);
    }
    for (BufferId id : access.reads)
      lastTouch.raise(id, key);
    order.push_back({key, &op});
  }
  if (llvm::is_sorted(order, llvm::less_first()))
    return false;
  llvm::stable_sort(order, llvm::less_first());
  for (auto [key, op] : order)
    op->moveBefore(&body, body.end());
  return true;
}
