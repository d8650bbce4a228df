//===- PlanWriter.cpp - Write an offload plan into a function -------------===//

#include "hyperoffload/Planning/PlanWriter.h"

#include "hyperoffload/Analysis/InPlaceWrites.h"
#include "hyperoffload/Analysis/ScheduleChecks.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ho;

void ho::replaceUnreadUsesWithEmpty(Value value, const BufferLiveness &liveness,
                                    OpBuilder &builder) {
  auto type = cast<TensorType>(value.getType());
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
    if (liveness.touchesBuffer(use))
      continue;
    builder.setInsertionPoint(use.getOwner());
    use.set(tensor::EmptyOp::create(builder, use.getOwner()->getLoc(),
                                    type.getShape(), type.getElementType()));
  }
}

void PlanWriter::makeArgumentsRemote(ArrayRef<RemoteArgument> arguments) {
  for (const RemoteArgument &remote : arguments) {
    BlockArgument arg = function.getArgument(remote.index);
    auto tensor = cast<TensorType>(arg.getType());
    replaceUnreadUsesWithEmpty(arg, liveness, builder);
    arg.setType(RemoteType::get(tensor, remote.tier));
    function.setArgAttr(remote.index, kPlacedByPlanAttrName,
                        builder.getUnitAttr());
    remoteTier[liveness.lookup(arg)->id] = remote.tier;
    if (remote.storeBackWaitBefore)
      storeBackWaits[liveness.lookup(arg)->id] = *remote.storeBackWaitBefore;
  }
}

void PlanWriter::writeGaps(ArrayRef<PlannedGap> gaps) {
  // Sorted by buffer, then by next use: a buffer's gaps come together, and
  // those a value carries follow each other.
  while (!gaps.empty()) {
    const PlannedGap &first = gaps.front();
    // An argument's stretch before its first use goes with the gaps the
    // argument itself (its root, alias 0) carries.
    unsigned carrier = first.carrier.value_or(0);
    size_t count = llvm::find_if(gaps,
                                 [&](const PlannedGap &gap) {
                                   return gap.buffer != first.buffer ||
                                          gap.carrier.value_or(0) != carrier;
                                 }) -
                   gaps.begin();
    writeCarriedGaps(gaps.take_front(count),
                     liveness.getBuffer(first.buffer).aliases[carrier]);
    gaps = gaps.drop_front(count);
  }
}

/// The views that make `value` from `base`, outermost last; std::nullopt
/// when `value` is not made from `base` by views.
static std::optional<SmallVector<Operation *>> getViewChain(Value value,
                                                            Value base) {
  SmallVector<Operation *> chain;
  while (value != base) {
    Operation *view = value.getDefiningOp();
    if (!view || !isTensorViewOp(view))
      return std::nullopt;
    chain.push_back(view);
    value = view->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

namespace {
/// A value whose reads after a gap switch to the fetched copy: the carrier,
/// or a view of it made before the gap.
struct CarriedReader {
  Value value;
  /// The views that make it from the value the transfers move, outermost
  /// last; remade on each fetched copy.
  SmallVector<Operation *> views;
  /// Its definition's point; 0 when it is defined before every gap.
  unsigned defined;
  /// Its uses, sorted by point.
  SmallVector<std::pair<unsigned, OpOperand *>> uses;
};
} // namespace

void PlanWriter::writeCarriedGaps(ArrayRef<PlannedGap> gaps, Value carrier) {
  const BufferInfo &buffer = liveness.getBuffer(gaps.front().buffer);
  carrier = materializeSlice(getCurrent(carrier));
  bool returnsRemote = llvm::any_of(
      gaps, [](const PlannedGap &gap) { return gap.returnsRemote; });
  // A view the runtime cannot move is remade on a fetched copy of the
  // whole buffer behind it, which is what the planner priced.
  SmallVector<Operation *> carrierViews;
  if (!returnsRemote)
    carrierViews = getViewsToRemake(carrier);

  auto addReader = [&](SmallVectorImpl<CarriedReader> &readers, Value value,
                       ArrayRef<Operation *> views) {
    CarriedReader reader{value, SmallVector<Operation *>(views), 0, {}};
    if (Operation *definer = value.getDefiningOp())
      reader.defined = pointOf(definer);
    for (OpOperand &use : value.getUses())
      reader.uses.push_back({pointOf(use.getOwner()), &use});
    llvm::stable_sort(reader.uses, llvm::less_first());
    readers.push_back(std::move(reader));
  };
  SmallVector<CarriedReader> readers;
  addReader(readers, carrier, carrierViews);
  // Views of the carrier made before a gap and read after it (the slice of
  // a cache that attention reads) are remade on the fetched copy too.
  if (!returnsRemote) {
    for (Value alias : buffer.aliases) {
      Value current = getCurrent(alias);
      if (current == carrier)
        continue;
      if (std::optional<SmallVector<Operation *>> chain =
              getViewChain(current, carrier)) {
        SmallVector<Operation *> views(carrierViews);
        views.append(chain->begin(), chain->end());
        addReader(readers, current, views);
      }
    }
  }

  // The device value the next gap starts from; for a remote argument, the
  // remote value itself until its first fetch.
  Value value =
      carrierViews.empty() ? carrier : carrierViews.front()->getOperand(0);
  for (auto [index, gap] : llvm::enumerate(gaps)) {
    Value fetchedWhole = writeTransfers(gap, buffer, value);
    unsigned until = index + 1 < gaps.size() ? gaps[index + 1].nextUse
                                             : liveness.getExitPoint() + 1;
    // A copy fetched for the return itself is what the caller gets.
    bool forBody = gap.nextUse != liveness.getExitPoint();
    if (forBody)
      fetchedBuffer[fetchedWhole] = buffer.id;
    // The views each reader needs, cloned once per fetched copy.
    IRMapping remade;
    for (CarriedReader &reader : readers) {
      if (reader.defined >= gap.nextUse)
        continue;
      auto isBefore = [](unsigned point) {
        return [point](const auto &use) { return use.first < point; };
      };
      auto begin = llvm::partition_point(reader.uses, isBefore(gap.nextUse));
      auto end = llvm::partition_point(reader.uses, isBefore(until));
      if (begin == end && reader.value != carrier)
        continue;
      Value fetched = remakeViews(fetchedWhole, reader.views, remade);
      for (auto use = begin; use != end; ++use)
        use->second->set(fetched);
      if (forBody)
        fetchedBuffer[fetched] = buffer.id;
      currentValue[reader.value] = fetched;
    }
    value = fetchedWhole;
  }
}

void PlanWriter::eraseDeadViews(const OffloadPlan &plan) {
  // Views nothing reads would read the moved data where it may be gone.
  llvm::SmallSetVector<Operation *, 4> orphanedViews;
  auto addDeadViews = [&](BufferId id) {
    for (Value alias : liveness.getBuffer(id).aliases)
      if (Operation *view = alias.getDefiningOp();
          view && isTensorViewOp(view) && alias.use_empty())
        orphanedViews.insert(view);
  };
  for (const RemoteArgument &remote : plan.remoteArguments)
    addDeadViews(liveness.lookup(function.getArgument(remote.index))->id);
  for (const PlannedGap &gap : plan.gaps)
    addDeadViews(gap.buffer);
  while (!orphanedViews.empty()) {
    Operation *view = orphanedViews.pop_back_val();
    if (!view->use_empty())
      continue;
    Operation *source = view->getOperand(0).getDefiningOp();
    view->erase();
    if (source && isTensorViewOp(source))
      orphanedViews.insert(source);
  }
}

Value PlanWriter::remakeViews(Value whole, ArrayRef<Operation *> views,
                              IRMapping &remade) {
  Value view = whole;
  for (Operation *op : views) {
    if (Value done = remade.lookupOrNull(op->getResult(0))) {
      view = done;
      continue;
    }
    Operation *clone = builder.clone(*op, remade);
    clone->setOperand(0, view);
    view = clone->getResult(0);
  }
  return view;
}

Value PlanWriter::getCurrent(Value value) const {
  for (auto it = currentValue.find(value); it != currentValue.end();
       it = currentValue.find(value))
    value = it->second;
  return value;
}

std::optional<BufferId> PlanWriter::getBufferId(Value value) const {
  if (const BufferInfo *buffer = liveness.lookup(value))
    return buffer->id;
  auto fetched = fetchedBuffer.find(value);
  if (fetched == fetchedBuffer.end())
    return std::nullopt;
  return fetched->second;
}

SmallVector<Operation *> PlanWriter::getViewsToRemake(Value carrier) const {
  SmallVector<Operation *> views;
  std::optional<BufferId> buffer = getBufferId(carrier);
  Value whole = carrier;
  // An earlier gap may have switched the view to a fetched copy.
  while (Operation *view = whole.getDefiningOp()) {
    if (!isTensorViewOp(view) || getBufferId(view->getOperand(0)) != buffer)
      break;
    views.push_back(view);
    whole = view->getOperand(0);
  }
  std::reverse(views.begin(), views.end());
  std::optional<int64_t> bytes = getTensorSizeInBytes(carrier.getType());
  if (bytes && bytes == getTensorSizeInBytes(whole.getType()))
    views.clear();
  return views;
}

Value PlanWriter::materializeSlice(Value value) {
  // A slice with a buffer of its own (a copy, since its source is written
  // in place later) would share its source's buffer once the plan fetches
  // its later reads, and the runtime moves whole buffers only: make the copy
  // explicit, where bufferization would make it, and use it instead.
  Operation *view = value.getDefiningOp();
  const BufferInfo *buffer = liveness.lookup(value);
  if (!view || !isTensorViewOp(view) || !buffer || buffer->root != value ||
      getTensorSizeInBytes(value.getType()) ==
          getTensorSizeInBytes(view->getOperand(0).getType()))
    return value;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(view);
  auto type = cast<RankedTensorType>(value.getType());
  Value init = tensor::EmptyOp::create(builder, value.getLoc(), type.getShape(),
                                       type.getElementType());
  auto copy = linalg::CopyOp::create(builder, value.getLoc(), value, init);
  value.replaceAllUsesExcept(copy.getResult(0), copy);
  return copy.getResult(0);
}

Value PlanWriter::writeTransfers(const PlannedGap &gap,
                                 const BufferInfo &buffer, Value value) {
  Location loc = opAt(gap.nextUse)->getLoc();
  // Undefined contents (a tensor.empty that a later op fills) need no copy:
  // the next use gets a fresh tensor of the type, in the same space.
  if (auto type = dyn_cast<RankedTensorType>(value.getType());
      type && type.hasStaticShape() && !gap.returnsRemote &&
      isUndefinedValue(value)) {
    builder.setInsertionPoint(opAt(gap.nextUse));
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  }
  // The data to fetch: a fresh store of the device value, or the copy the
  // tier already holds (a remote argument nothing has written since).
  Value source = buffer.root;
  if (gap.storeAfter) {
    Operation *last = gap.storeAfter == 0 ? nullptr : opAt(*gap.storeAfter);
    // A slice made explicit is copied right after that op.
    if (Operation *definer = value.getDefiningOp();
        definer && (!last || last->isBeforeInBlock(definer)))
      last = definer;
    if (last)
      builder.setInsertionPointAfter(last);
    else
      builder.setInsertionPointToStart(&function.getBody().front());
    source = OffloadOp::create(builder, value.getLoc(), value, gap.tier);
    if (gap.waitBefore) {
      // Ahead of the prefetches and awaits already placed before that op:
      // the memory the store frees is what their copies land in.
      Operation *needy = opAt(*gap.waitBefore);
      Operation *before = needy;
      while (isa_and_nonnull<AwaitOp, PrefetchOp>(before->getPrevNode()))
        before = before->getPrevNode();
      builder.setInsertionPoint(before);
      WaitOffloadOp::create(builder, needy->getLoc(), source);
    }
  }
  // The caller gets the stored copy itself.
  if (gap.returnsRemote)
    return source;
  // Ahead of the awaits already placed before that op: a prefetch issued
  // after another transfer's await would wait for it for nothing.
  Operation *before = opAt(gap.prefetchBefore);
  while (isa_and_nonnull<AwaitOp>(before->getPrevNode()))
    before = before->getPrevNode();
  builder.setInsertionPoint(before);
  Value future = PrefetchOp::create(builder, loc, source);
  builder.setInsertionPoint(opAt(gap.nextUse));
  return AwaitOp::create(builder, loc, future);
}

void PlanWriter::storeRemoteResults() {
  // A result that aliases a remote argument goes back to the argument's
  // tier, right after its last use in the body.
  Operation *terminator = function.getBody().front().getTerminator();
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value value = operand.get();
    if (!isa<TensorType>(value.getType()))
      continue;
    std::optional<BufferId> buffer = getBufferId(value);
    if (!buffer)
      continue;
    auto tier = remoteTier.find(*buffer);
    if (tier == remoteTier.end())
      continue;
    // Uses inside a region count where their op is in the body.
    Block &body = function.getBody().front();
    Operation *last = value.getDefiningOp();
    for (Operation *user : value.getUsers()) {
      Operation *owner = body.findAncestorOpInBlock(*user);
      if (owner && owner != terminator &&
          (!last || last->isBeforeInBlock(owner)))
        last = owner;
    }
    if (last)
      builder.setInsertionPointAfter(last);
    else
      builder.setInsertionPointToStart(&function.getBody().front());
    auto store =
        OffloadOp::create(builder, value.getLoc(), value, tier->second);
    operand.set(store);
    // A wait the plan asks for comes after the store, before its op.
    auto wait = storeBackWaits.find(*buffer);
    if (wait == storeBackWaits.end())
      continue;
    Operation *before = wait->second < liveness.getExitPoint()
                            ? ops[wait->second - 1]
                            : terminator;
    if (store->isBeforeInBlock(before)) {
      builder.setInsertionPoint(before);
      WaitOffloadOp::create(builder, before->getLoc(), store.getResult());
    }
  }
}

void ho::separateWritesFromStores(func::FuncOp function) {
  Block &body = function.getBody().front();
  OpBuilder builder(function.getContext());
  // Grouping values into buffers does not depend on the granularity.
  BufferLiveness written(body);
  for (const WriteUnderStore &write : findWritesUnderStore(body, written)) {
    Operation *op = write.writer;
    const BufferInfo *stored = written.lookup(write.store->getOperand(0));
    bool separated = false;
    for (OpOperand &use : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(use.get().getType());
      if (readsOperand(use) || !type || !type.hasStaticShape() ||
          written.lookup(use.get()) != stored)
        continue;
      builder.setInsertionPoint(op);
      use.set(tensor::EmptyOp::create(builder, op->getLoc(), type.getShape(),
                                      type.getElementType()));
      separated = true;
    }
    if (separated || !isa<OffloadOp>(write.store))
      continue;
    builder.setInsertionPoint(op);
    WaitOffloadOp::create(builder, op->getLoc(), write.store->getResult(0));
  }
}

void PlanWriter::updateFunctionType() {
  Block &body = function.getBody().front();
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
}
