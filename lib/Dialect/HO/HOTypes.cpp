//===- HOTypes.cpp - HyperOffload dialect types ---------------------------===//

#include "hyperoffload/Dialect/HO/HOTypes.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ho;

#include "hyperoffload/Dialect/HO/HOEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "hyperoffload/Dialect/HO/HOTypes.cpp.inc"

void HODialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "hyperoffload/Dialect/HO/HOTypes.cpp.inc"
      >();
}

/// A tensor held outside device memory must have a size known ahead of time:
/// a ranked, statically shaped tensor whose element type has a fixed width.
static LogicalResult
verifyTransferableTensor(function_ref<InFlightDiagnostic()> emitError,
                         StringRef typeName, TensorType tensorType) {
  if (!tensorType.hasRank())
    return emitError() << typeName << " needs a ranked tensor, but got "
                       << tensorType << ": the size of the copy must be known";
  if (!tensorType.hasStaticShape())
    return emitError() << typeName << " needs a statically shaped tensor, but "
                       << "got " << tensorType
                       << ": the size of the copy must be known";
  if (isTooLargeToMeasure(tensorType))
    return emitError() << typeName << " needs a tensor of at most 2^59 bytes, "
                       << "but " << tensorType << " is larger";
  if (!getTensorSizeInBytes(tensorType))
    return emitError() << typeName << " needs an element type of fixed width, "
                       << "but got " << tensorType.getElementType();
  return success();
}

LogicalResult RemoteType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 TensorType tensorType, MemoryTier) {
  return verifyTransferableTensor(emitError, "!ho.remote", tensorType);
}

int64_t RemoteType::getSizeInBytes() const {
  return *getTensorSizeInBytes(getTensorType());
}

LogicalResult FutureType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 TensorType tensorType) {
  return verifyTransferableTensor(emitError, "!ho.future", tensorType);
}

int64_t FutureType::getSizeInBytes() const {
  return *getTensorSizeInBytes(getTensorType());
}
