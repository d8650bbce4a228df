//===- ReplayReactive.cpp - The reactive runtime's moves written as IR ----===//
//
// Simulates an unplanned function on the reactive runtime and writes every
// move it made as explicit transfers that compute waits for at once: a fetch
// becomes a prefetch awaited right away, an eviction an offload waited for
// right away, a drop nothing (the tier copy is current, so the device value
// simply has no later use). The result is a schedule like a plan's: it is
// placed in an arena, lowered and run on the threaded runtime, which makes
// the reactive baseline a program that runs for real.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "PlannableChecks.h"
#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Planning/PlanWriter.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ho {
#define GEN_PASS_DEF_REPLAYREACTIVE
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
/// Rewrites one function body along the moves of its reactive run.
class ReplayWriter {
public:
  ReplayWriter(func::FuncOp function, const BufferLiveness &liveness,
               MemoryTier tier)
      : function(function), liveness(liveness), tier(tier),
        builder(function.getContext()), state(liveness.getBuffers().size()) {}

  LogicalResult write(ArrayRef<RuntimeMove> moves);

private:
  struct BufferState {
    /// The value of the body that last wrote the buffer (not a view).
    Value latest;
    /// The buffer's tier copy, when it has one.
    Value remote;
    bool resident = false;
  };

  void placeArguments(ArrayRef<RuntimeMove> moves);
  LogicalResult apply(const RuntimeMove &move, Operation *before);
  /// The device value that holds `value`'s bytes when `user` runs: its
  /// fetched copy, a view of that made again right before `user`, or
  /// `value` itself.
  Value getCurrent(Value value, Operation *user);
  LogicalResult rewriteOperands(Operation *op);
  LogicalResult rewriteReturn(Operation *terminator);
  Value getTierCopyOfArgument(BlockArgument argument);

  func::FuncOp function;
  const BufferLiveness &liveness;
  MemoryTier tier;
  OpBuilder builder;
  std::vector<BufferState> state;
  /// Values of the body whose bytes the replay holds in another value.
  DenseMap<Value, Value> replacement;
  /// Arguments that start on the device, and the tier copies the caller
  /// passes for those the runtime fetches again after dropping them.
  DenseSet<BlockArgument> startResident;
  DenseMap<BlockArgument, Value> tierCopies;
};
} // namespace

/// Whether the first move of `buffer` after entry drops it before any op of
/// the body has read it: the runtime placed it at entry for nothing.
static bool isDroppedBeforeUse(ArrayRef<RuntimeMove> moves, unsigned buffer,
                               BlockArgument argument) {
  const RuntimeMove *first = llvm::find_if(moves, [&](const RuntimeMove &move) {
    return move.before && move.buffer == buffer;
  });
  if (first == moves.end() || first->kind != RuntimeMove::Kind::Drop)
    return false;
  Block *body = argument.getOwner();
  return llvm::none_of(argument.getUsers(), [&](Operation *user) {
    Operation *op = body->findAncestorOpInBlock(*user);
    return op && op->isBeforeInBlock(first->before);
  });
}

void ReplayWriter::placeArguments(ArrayRef<RuntimeMove> moves) {
  Block &body = function.getBody().front();
  for (const RuntimeMove &move : moves) {
    if (move.kind != RuntimeMove::Kind::StartResident)
      continue;
    auto argument = cast<BlockArgument>(liveness.getBuffer(move.buffer).root);
    if (!isDroppedBeforeUse(moves, move.buffer, argument))
      startResident.insert(argument);
  }
  for (BlockArgument argument : body.getArguments()) {
    const BufferInfo *buffer = liveness.lookup(argument);
    if (!buffer)
      continue;
    state[buffer->id].latest = argument;
    state[buffer->id].resident = startResident.contains(argument);
    if (state[buffer->id].resident)
      continue;
    // The runtime starts it in the tier, or drops it before it is read:
    // the caller passes its copy in the tier.
    replaceUnreadUsesWithEmpty(argument, liveness, builder);
    argument.setType(
        RemoteType::get(cast<TensorType>(argument.getType()), tier));
    state[buffer->id].remote = argument;
  }
}

Value ReplayWriter::getTierCopyOfArgument(BlockArgument argument) {
  Value &copy = tierCopies[argument];
  if (copy)
    return copy;
  // Appended, so that the program's arguments keep their numbers.
  unsigned index = function.getNumArguments();
  auto type = RemoteType::get(cast<TensorType>(argument.getType()), tier);
  Builder attributes(function.getContext());
  NamedAttribute copyOf(kTierCopyOfAttrName,
                        attributes.getI64IntegerAttr(argument.getArgNumber()));
  (void)function.insertArgument(
      index, type, attributes.getDictionaryAttr({copyOf}), argument.getLoc());
  copy = function.getArgument(index);
  return copy;
}

Value ReplayWriter::getCurrent(Value value, Operation *user) {
  if (Value current = replacement.lookup(value))
    return current;
  // A view of a buffer fetched again is made again, of the copy.
  Operation *view = value.getDefiningOp();
  if (!view || !isTensorViewOp(view) || view->getNumOperands() == 0)
    return value;
  Value source = getCurrent(view->getOperand(0), user);
  if (source == view->getOperand(0))
    return value;
  // Before the user: the view's other operands dominate it there.
  builder.setInsertionPoint(user);
  IRMapping mapping;
  mapping.map(view->getOperand(0), source);
  Operation *copy = builder.clone(*view, mapping);
  for (auto [old, made] : llvm::zip(view->getResults(), copy->getResults()))
    replacement[old] = made;
  return replacement.lookup(value);
}

LogicalResult ReplayWriter::apply(const RuntimeMove &move, Operation *before) {
  BufferState &buffer = state[move.buffer];
  Location loc = before->getLoc();
  builder.setInsertionPoint(before);
  switch (move.kind) {
  case RuntimeMove::Kind::StartResident:
    return success();
  case RuntimeMove::Kind::Drop:
    buffer.resident = false;
    return success();
  case RuntimeMove::Kind::Evict: {
    Value value = getCurrent(buffer.latest, before);
    if (!isa<RankedTensorType>(value.getType()))
      return before->emitError()
             << "cannot replay the reactive run: it evicts a value of type "
             << value.getType() << " before this op";
    buffer.remote = OffloadOp::create(builder, loc, value, tier);
    WaitOffloadOp::create(builder, loc, buffer.remote);
    buffer.resident = false;
    return success();
  }
  case RuntimeMove::Kind::Fetch: {
    if (!buffer.remote) {
      auto argument = dyn_cast<BlockArgument>(buffer.latest);
      if (!argument)
        return before->emitError() << "cannot replay the reactive run: it "
                                      "fetches a buffer with no tier copy "
                                      "before this op";
      buffer.remote = getTierCopyOfArgument(argument);
    }
    Value future = PrefetchOp::create(builder, loc, buffer.remote);
    replacement[buffer.latest] = AwaitOp::create(builder, loc, future);
    buffer.resident = true;
    // Views made of the evicted bytes are made again of the copy.
    for (auto it = replacement.begin(); it != replacement.end();)
      if (it->first != buffer.latest &&
          liveness.lookup(it->first) == &liveness.getBuffer(move.buffer))
        replacement.erase(it++);
      else
        ++it;
    return success();
  }
  }
  llvm_unreachable("unknown runtime move");
}

/// The reactive runtime fetches the experts or blocks a selection picks
/// when the kernel runs; a replay written before the run cannot name them.
static LogicalResult checkNoRunTimeSelection(func::FuncOp function) {
  WalkResult walk = function.walk([](Operation *op) {
    if (!isa<RoutedOp, GatherBlocksOp>(op))
      return WalkResult::advance();
    op->emitError() << "cannot replay the reactive run: the runtime fetches "
                       "what this '"
                    << op->getName()
                    << "' picks at run time, which a replay written before "
                       "the run cannot name";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ReplayWriter::rewriteOperands(Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    Value current = getCurrent(operand.get(), op);
    if (isa<RemoteType>(current.getType()))
      return op->emitError() << "cannot replay the reactive run: operand #"
                             << operand.getOperandNumber()
                             << " is in the tier when this op runs";
    operand.set(current);
  }
  return success();
}

LogicalResult ReplayWriter::rewriteReturn(Operation *terminator) {
  for (OpOperand &operand : terminator->getOpOperands()) {
    const BufferInfo *buffer = liveness.lookup(operand.get());
    if (!buffer || state[buffer->id].resident) {
      operand.set(getCurrent(operand.get(), terminator));
      continue;
    }
    // A result the runtime left in the tier is handed back there.
    const BufferState &left = state[buffer->id];
    if (operand.get() == left.latest && !left.remote &&
        isa<BlockArgument>(left.latest)) {
      operand.set(getTierCopyOfArgument(cast<BlockArgument>(left.latest)));
      continue;
    }
    if (operand.get() != left.latest || !left.remote)
      return terminator->emitError()
             << "cannot replay the reactive run: result #"
             << operand.getOperandNumber()
             << " is a view of a buffer left in the tier";
    operand.set(left.remote);
  }
  return success();
}

LogicalResult ReplayWriter::write(ArrayRef<RuntimeMove> moves) {
  placeArguments(moves);
  Block &body = function.getBody().front();
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.without_terminator(), [](Operation &op) { return &op; });
  // The moves at entry are the arguments' placement, done above.
  const RuntimeMove *next =
      llvm::find_if(moves, [](const RuntimeMove &move) { return move.before; });
  for (Operation *op : ops) {
    for (; next != moves.end() && next->before == op; ++next)
      if (failed(apply(*next, op)))
        return failure();
    if (failed(rewriteOperands(op)))
      return failure();
    if (isTensorViewOp(op))
      continue;
    for (OpResult result : op->getResults()) {
      const BufferInfo *buffer = liveness.lookup(result);
      if (!buffer)
        continue;
      state[buffer->id].latest = result;
      // A buffer of its own starts on the device, without a tier copy.
      if (buffer->root == result) {
        state[buffer->id].remote = Value();
        state[buffer->id].resident = true;
      }
    }
  }
  if (next != moves.end())
    return next->before->emitError()
           << "cannot replay the reactive run: a move before this op is out "
              "of the body's order";
  if (failed(rewriteReturn(body.getTerminator())))
    return failure();
  function.setType(FunctionType::get(function.getContext(),
                                     body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
  return success();
}

namespace {
struct ReplayReactivePass
    : public ho::impl::ReplayReactiveBase<ReplayReactivePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void ReplayReactivePass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PassTargetAndBudget> loaded =
      loadPassTargetAndBudget(module, hw, hwOverrides, budget);
  if (failed(loaded))
    return signalPassFailure();
  const Target &target = loaded->target;
  SimulationOptions options;
  options.mode = ExecutionMode::Reactive;
  options.allocator = allocator;
  options.budget = loaded->budget;
  options.recordTimeline = false;
  // One link carries every copy: the fastest (an IR transfer names one
  // tier; the simulated runtime may split a large copy over several).
  std::optional<MemoryTier> tier;
  for (MemoryTier candidate :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    if (const LinkModel *link = target.getLink(candidate))
      if (!tier ||
          link->bandwidthToDevice > target.getLink(*tier)->bandwidthToDevice)
        tier = candidate;
  if (!tier) {
    emitError(module.getLoc())
        << "the target has no link to a memory tier: a reactive runtime "
           "has nowhere to evict to";
    return signalPassFailure();
  }

  bool valid = true;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isDeclaration())
      continue;
    if (failed(checkSingleBlock(function)) ||
        failed(checkNoRunTimeSelection(function))) {
      valid = false;
      continue;
    }
    Block &body = function.getBody().front();
    FailureOr<SimulationResult> run = simulate(body, target, options);
    if (failed(run)) {
      valid = false;
      continue;
    }
    if (run->outOfMemory) {
      InFlightDiagnostic diag =
          emitError(function.getLoc())
          << "the reactive runtime runs out of memory on @"
          << function.getName() << " at this budget; nothing to replay";
      if (run->firstOutOfMemoryOp)
        diag.attachNote(run->firstOutOfMemoryOp->getLoc())
            << "the allocation that fails";
      valid = false;
      continue;
    }
    BufferLiveness liveness(body, target.device.allocationGranularity);
    ReplayWriter writer(function, liveness, *tier);
    if (failed(writer.write(run->runtimeMoves))) {
      valid = false;
      continue;
    }
    numFetches += run->fetches;
    numEvictions += run->evictions;
  }
  if (!valid)
    signalPassFailure();
}
