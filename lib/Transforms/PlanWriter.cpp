//===- PlanWriter.cpp - Write an offload plan into a function -------------===//

#include "PlanWriter.h"

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::ho;

void PlanWriter::makeArgumentsRemote(ArrayRef<RemoteArgument> arguments) {
  for (const RemoteArgument &remote : arguments) {
    BlockArgument arg = function.getArgument(remote.index);
    auto tensor = cast<TensorType>(arg.getType());
    // An init the op never reads (a fill's out) needs a tensor of the type,
    // not the argument's contents, which are now in the tier.
    for (OpOperand &use : llvm::make_early_inc_range(arg.getUses())) {
      if (liveness.touchesBuffer(use))
        continue;
      builder.setInsertionPoint(use.getOwner());
      use.set(tensor::EmptyOp::create(builder, use.getOwner()->getLoc(),
                                      tensor.getShape(),
                                      tensor.getElementType()));
    }
    arg.setType(RemoteType::get(tensor, remote.tier));
    remoteTier[liveness.lookup(arg)->id] = remote.tier;
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

void PlanWriter::writeCarriedGaps(ArrayRef<PlannedGap> gaps, Value carrier) {
  const BufferInfo &buffer = liveness.getBuffer(gaps.front().buffer);
  carrier = materializeSlice(carrier);
  // Every use of the data reads the copy the last gap before it fetched.
  // Sorting the uses once, by point, hands each gap its own without looking
  // at the others again.
  SmallVector<std::pair<unsigned, OpOperand *>> uses;
  for (OpOperand &use : carrier.getUses())
    uses.push_back({pointOf(use.getOwner()), &use});
  llvm::stable_sort(uses, llvm::less_first());
  auto firstUseAt = [&](unsigned point) {
    return llvm::partition_point(
        uses, [&](const auto &use) { return use.first < point; });
  };

  // A view the runtime cannot move is remade on a fetched copy of the
  // whole buffer behind it, which is what the planner priced.
  SmallVector<Operation *> views = getViewsToRemake(carrier);
  if (llvm::any_of(gaps,
                   [](const PlannedGap &gap) { return gap.returnsRemote; }))
    views.clear();
  auto remakeViews = [&](Value whole) {
    IRMapping mapping;
    mapping.map(views.front()->getOperand(0), whole);
    for (Operation *view : views)
      whole = builder.clone(*view, mapping)->getResult(0);
    return whole;
  };

  // The device value the next gap starts from; for a remote argument, the
  // remote value itself until its first fetch.
  Value value = views.empty() ? carrier : views.front()->getOperand(0);
  for (auto [index, gap] : llvm::enumerate(gaps)) {
    Value fetchedWhole = writeTransfers(gap, buffer, value);
    Value fetched = views.empty() ? fetchedWhole : remakeViews(fetchedWhole);
    auto end = index + 1 < gaps.size() ? firstUseAt(gaps[index + 1].nextUse)
                                       : uses.end();
    for (auto use = firstUseAt(gap.nextUse); use != end; ++use)
      use->second->set(fetched);
    // A copy fetched for the return itself is what the caller gets.
    if (gap.nextUse != liveness.getExitPoint())
      fetchedBuffer[fetched] = buffer.id;
    value = fetchedWhole;
  }
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
  // The data to fetch: a fresh store of the device value, or the copy the
  // tier already holds (a remote argument nothing has written since).
  Value source = buffer.root;
  if (gap.storeAfter) {
    Operation *last = gap.storeAfter == 0 ? nullptr : opAt(*gap.storeAfter);
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
    operand.set(
        OffloadOp::create(builder, value.getLoc(), value, tier->second));
  }
}

void PlanWriter::updateFunctionType() {
  Block &body = function.getBody().front();
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
}
