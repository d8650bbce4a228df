//===- HOOps.cpp - HyperOffload dialect operations ------------------------===//

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Dialect/HO/ComputeKinds.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"

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
  if (!getRemote().getDefiningOp<OffloadOp>())
    return emitOpError() << "waits for an offload, but its operand is not "
                            "the result of ho.offload";
  return success();
}
