//===- HOOps.cpp - HyperOffload dialect operations ------------------------===//

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Dialect/HO/ComputeKinds.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ho;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::ho::TransferQueueResource)

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyCostHint(ComputeOp op, StringRef name,
                                    IntegerAttr hint) {
  if (hint && hint.getInt() < 0)
    return op.emitOpError()
           << "cost hint '" << name << "' must be non-negative, but is "
           << hint.getInt();
  return success();
}

LogicalResult ComputeOp::verify() {
  if (failed(verifyCostHint(*this, "flops", getFlopsAttr())) ||
      failed(verifyCostHint(*this, "bytes", getBytesAttr())))
    return failure();

  std::optional<ArrayRef<int64_t>> tied = getTiedOperands();
  if (!tied)
    return success();
  if (tied->size() != getNumResults())
    return emitOpError() << "has " << tied->size()
                         << " tied_operands entries but " << getNumResults()
                         << " results: give one entry per result, " << kUntied
                         << " for a result with its own buffer";

  llvm::SmallDenseMap<int64_t, unsigned> resultOfOperand;
  for (auto [resultIndex, operandIndex] : llvm::enumerate(*tied)) {
    if (operandIndex == kUntied)
      continue;
    if (operandIndex < 0 ||
        operandIndex >= static_cast<int64_t>(getNumOperands()))
      return emitOpError() << "result " << resultIndex << " is tied to operand "
                           << operandIndex << ", but the op has "
                           << getNumOperands() << " operands (use " << kUntied
                           << " for a result with its own buffer)";
    Type resultType = getResult(resultIndex).getType();
    Type operandType = getOperand(operandIndex).getType();
    if (resultType != operandType)
      return emitOpError() << "result " << resultIndex << " is tied to operand "
                           << operandIndex << ", but its type " << resultType
                           << " differs from the operand's type "
                           << operandType;
    auto [it, inserted] =
        resultOfOperand.try_emplace(operandIndex, resultIndex);
    if (!inserted)
      return emitOpError() << "operand " << operandIndex
                           << " is tied to both result " << it->second
                           << " and result " << resultIndex
                           << "; a buffer can be reused by one result only";
  }
  return success();
}

OpOperand *ComputeOp::getTiedOperand(OpResult result) {
  std::optional<ArrayRef<int64_t>> tied = getTiedOperands();
  if (!tied || result.getOwner() != getOperation())
    return nullptr;
  int64_t operandIndex = (*tied)[result.getResultNumber()];
  if (operandIndex == kUntied)
    return nullptr;
  return &getOperation()->getOpOperand(operandIndex);
}

std::optional<int64_t> ComputeOp::getFlopCount() {
  if (IntegerAttr hint = getFlopsAttr())
    return hint.getInt();
  return getComputeKindFlopCount(*this);
}

std::optional<int64_t> ComputeOp::getBytesAccessed() {
  if (IntegerAttr hint = getBytesAttr())
    return hint.getInt();
  return getComputeKindBytesAccessed(*this);
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

/// Checks that a transfer moves `deviceType` unchanged to or from the
/// `otherRole` side, whose tensor type is `otherType`.
static LogicalResult verifyTransferTypes(Operation *op, StringRef deviceRole,
                                         TensorType deviceType,
                                         StringRef otherRole,
                                         TensorType otherType) {
  if (!deviceType.hasRank() || !deviceType.hasStaticShape())
    return op->emitOpError()
           << "cannot transfer " << deviceRole << " of type " << deviceType
           << ": its size is unknown because its shape is "
           << (deviceType.hasRank() ? "dynamic" : "unranked");
  if (deviceType.getElementType() != otherType.getElementType())
    return op->emitOpError()
           << "element type mismatch: " << deviceRole << " has "
           << deviceType.getElementType() << " but " << otherRole << " has "
           << otherType.getElementType();
  if (deviceType.getShape() != otherType.getShape())
    return op->emitOpError()
           << "shape mismatch: " << deviceRole << " is " << deviceType
           << " but " << otherRole << " is " << otherType;
  if (deviceType != otherType)
    return op->emitOpError()
           << "encoding mismatch: " << deviceRole << " is " << deviceType
           << " but " << otherRole << " is " << otherType;
  return success();
}

void OffloadOp::build(OpBuilder &builder, OperationState &state, Value source,
                      MemoryTier tier) {
  build(builder, state,
        RemoteType::get(cast<TensorType>(source.getType()), tier), source);
}

LogicalResult OffloadOp::verify() {
  return verifyTransferTypes(
      *this, "the source", cast<TensorType>(getSource().getType()),
      "the remote result", getResult().getType().getTensorType());
}

void PrefetchOp::build(OpBuilder &builder, OperationState &state,
                       Value source) {
  auto remote = cast<RemoteType>(source.getType());
  build(builder, state, FutureType::get(remote.getTensorType()), source);
}

LogicalResult PrefetchOp::verify() {
  return verifyTransferTypes(
      *this, "the future result", getResult().getType().getTensorType(),
      "the remote source", getSource().getType().getTensorType());
}

void AwaitOp::build(OpBuilder &builder, OperationState &state, Value future) {
  build(builder, state, cast<FutureType>(future.getType()).getTensorType(),
        future);
}

LogicalResult AwaitOp::verify() {
  if (failed(verifyTransferTypes(
          *this, "the result", cast<TensorType>(getResult().getType()),
          "the future", getFuture().getType().getTensorType())))
    return failure();

  // Report a second await of the same future at the later of the two, so
  // that one mistake gives one error.
  for (Operation *user : getFuture().getUsers()) {
    auto other = dyn_cast<AwaitOp>(user);
    if (!other || other == *this)
      continue;
    bool otherComesFirst = other->getBlock() != (*this)->getBlock() ||
                           other->isBeforeInBlock(*this);
    if (!otherComesFirst)
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "awaits a future that is already awaited; each "
                         "prefetch is awaited exactly once";
    diag.attachNote(other.getLoc()) << "first awaited here";
    return diag;
  }
  return success();
}

#define GET_OP_CLASSES
#include "hyperoffload/Dialect/HO/HOOps.cpp.inc"

LogicalResult WaitOffloadOp::verify() {
  Operation *store = getRemote().getDefiningOp();
  if (!isa_and_nonnull<OffloadOp, OffloadSliceOp>(store))
    return emitOpError() << "waits for an offload, but its operand is not "
                            "the result of ho.offload or ho.offload_slice";
  return success();
}

//===----------------------------------------------------------------------===//
// Routed experts
//===----------------------------------------------------------------------===//

/// The device tensor type of an expert operand, remote or not.
static RankedTensorType getDeviceTensorType(Type type) {
  if (auto remote = dyn_cast<RemoteType>(type))
    return dyn_cast<RankedTensorType>(remote.getTensorType());
  return dyn_cast<RankedTensorType>(type);
}

/// Checks what ho.routed and ho.prefetch_routed share: an integer selection
/// of static shape [..., top] and experts of one static tensor type, picked
/// among `totalExperts`.
static LogicalResult verifyRouting(Operation *op, RankedTensorType selection,
                                   ValueRange experts, int64_t totalExperts) {
  if (!selection.getElementType().isInteger() || selection.getRank() == 0 ||
      !selection.hasStaticShape())
    return op->emitOpError()
           << "selection must be a statically shaped integer tensor of "
              "expert ids, [..., top] per token, but is "
           << selection;
  if (experts.empty())
    return op->emitOpError() << "needs at least one expert";
  RankedTensorType expertType = getDeviceTensorType(experts[0].getType());
  if (!expertType || !expertType.hasStaticShape())
    return op->emitOpError() << "expert #0 must be a statically shaped tensor "
                                "or remote tensor, but is "
                             << experts[0].getType();
  for (auto [index, expert] : llvm::enumerate(experts))
    if (getDeviceTensorType(expert.getType()) != expertType)
      return op->emitOpError()
             << "expert #" << index << " has type " << expert.getType()
             << ", but expert #0 is " << expertType
             << ": every expert has the same tensor type";
  if (totalExperts < static_cast<int64_t>(experts.size()))
    return op->emitOpError() << "has " << experts.size()
                             << " experts but total_experts = " << totalExperts;
  int64_t top = selection.getShape().back();
  if (top < 1 || top > totalExperts)
    return op->emitOpError() << "picks " << top << " experts per token of "
                             << totalExperts << "; pick 1 to " << totalExperts;
  return success();
}

/// Slots that hold the selected ones of `count` experts: one per pick, at
/// most all of them.
static int64_t getSlotsFor(RankedTensorType selection, int64_t count) {
  return std::min<int64_t>(count, selection.getNumElements());
}

/// The type of `slots` stacked experts of `expertType`.
static RankedTensorType getSlotsType(RankedTensorType expertType,
                                     int64_t slots) {
  SmallVector<int64_t> shape{slots};
  llvm::append_range(shape, expertType.getShape());
  return RankedTensorType::get(shape, expertType.getElementType());
}

RankedTensorType RoutedOp::getExpertType() {
  return getDeviceTensorType(getExperts().front().getType());
}

int64_t RoutedOp::getNumTokens() {
  auto type = cast<RankedTensorType>(getSelection().getType());
  return type.getNumElements() / type.getShape().back();
}

int64_t RoutedOp::getTopK() {
  return cast<RankedTensorType>(getSelection().getType()).getShape().back();
}

std::optional<unsigned> RoutedOp::getExpertPosition(unsigned operandNumber) {
  unsigned first = getExperts().getBeginOperandIndex();
  if (operandNumber < first || operandNumber >= first + getExperts().size())
    return std::nullopt;
  return operandNumber - first;
}

unsigned RoutedOp::getNumRemoteExperts() {
  return llvm::count_if(getExperts().getTypes(), llvm::IsaPred<RemoteType>);
}

int64_t RoutedOp::getFlopsFor(double assignments) {
  return static_cast<int64_t>(2.0 * getExpertType().getNumElements() *
                              assignments);
}

int64_t RoutedOp::getBytesFor(double selected) {
  int64_t fixed = *getTensorSizeInBytes(getSelection().getType());
  for (Type type : llvm::concat<const Type>(getInputs().getTypes(),
                                            getOutputs().getTypes()))
    fixed += getTensorSizeInBytes(type).value_or(0);
  return fixed + static_cast<int64_t>(selected *
                                      *getTensorSizeInBytes(getExpertType()));
}

/// Under uniform routing each token picks a given expert with probability
/// top / total: the expected assignments and distinct experts of this
/// device follow.
std::optional<int64_t> RoutedOp::getFlopCount() {
  double share = static_cast<double>(getTopK()) / getTotalExperts();
  return getFlopsFor(getNumTokens() * share * getExperts().size());
}

std::optional<int64_t> RoutedOp::getBytesAccessed() {
  double share = static_cast<double>(getTopK()) / getTotalExperts();
  double picked = 1 - std::pow(1 - share, static_cast<double>(getNumTokens()));
  return getBytesFor(picked * getExperts().size());
}

LogicalResult RoutedOp::verify() {
  auto selection = cast<RankedTensorType>(getSelection().getType());
  if (failed(verifyRouting(*this, selection, getExperts(), getTotalExperts())))
    return failure();
  // I64Attr getters are unsigned; a negative attribute must read as one.
  int64_t count = getExperts().size();
  int64_t first = getFirstExpertAttr().getInt();
  int64_t total = getTotalExpertsAttr().getInt();
  if (first < 0 || first > total - count)
    return emitOpError() << "holds experts " << first << " to "
                         << first + count - 1 << " of total_experts = " << total
                         << ", which is out of range";
  unsigned remote = getNumRemoteExperts();
  if (!remote) {
    if (getStaged())
      return emitOpError() << "has staged slots but no remote expert to "
                              "stage; drop them";
    return success();
  }
  if (!getStaged())
    return emitOpError()
           << "reads " << remote
           << " remote experts but has no staged slots: pass the awaited "
              "result of a ho.prefetch_routed of them";
  RankedTensorType expected =
      getSlotsType(getExpertType(), getSlotsFor(selection, remote));
  if (getStaged().getType() != expected)
    return emitOpError() << "staged slots have type " << getStaged().getType()
                         << ", but " << remote << " remote experts picked by "
                         << selection << " need " << expected;
  return success();
}

int64_t PrefetchRoutedOp::getNumSlots() {
  return getSlotsFor(cast<RankedTensorType>(getSelection().getType()),
                     getExperts().size());
}

LogicalResult PrefetchRoutedOp::verify() {
  auto selection = cast<RankedTensorType>(getSelection().getType());
  if (failed(verifyRouting(*this, selection, getExperts(), getTotalExperts())))
    return failure();
  ArrayRef<int64_t> ids = getExpertIds();
  if (ids.size() != getExperts().size())
    return emitOpError() << "has " << getExperts().size() << " experts but "
                         << ids.size() << " expert_ids: give one per expert";
  int64_t total = getTotalExpertsAttr().getInt();
  for (auto [index, id] : llvm::enumerate(ids)) {
    if (id < 0 || id >= total)
      return emitOpError() << "expert_ids[" << index << "] = " << id
                           << " is out of range: total_experts = " << total;
    if (llvm::is_contained(ids.take_front(index), id))
      return emitOpError() << "expert_ids[" << index << "] = " << id
                           << " repeats an earlier id";
  }
  RankedTensorType expected = getSlotsType(
      getDeviceTensorType(getExperts().front().getType()), getNumSlots());
  if (getResult().getType().getTensorType() != expected)
    return emitOpError() << "yields " << getResult().getType() << ", but "
                         << getExperts().size() << " experts picked by "
                         << selection << " need slots of type " << expected;
  return success();
}
