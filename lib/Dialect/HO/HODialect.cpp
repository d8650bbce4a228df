//===- HODialect.cpp - HyperOffload dialect -------------------------------===//

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::ho;

#include "hyperoffload/Dialect/HO/HOOpsDialect.cpp.inc"

namespace {
/// Every ho op may be inlined: its meaning depends only on its operands, so
/// a called function's work and transfers mean the same in its caller.
struct HOInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void HODialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "hyperoffload/Dialect/HO/HOOps.cpp.inc"
      >();
  addInterfaces<HOInlinerInterface>();
}

//===----------------------------------------------------------------------===//
// The static memory plan's attributes
//===----------------------------------------------------------------------===//

/// An offset or size in [least, kMaxArenaBytes].
static LogicalResult
verifyPlanBytes(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                int64_t value, int64_t least) {
  if (value < least || value > kMaxArenaBytes)
    return emitError() << "'" << name << "' must be in [" << least
                       << ", 2^59], got " << value;
  return success();
}

LogicalResult HODialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  auto emitError = [&] { return op->emitError(); };
  StringRef name = attribute.getName().strref();
  if (name == kOffsetsAttrName) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
    if (!offsets)
      return emitError() << "'" << name << "' must be an array<i64: ...>";
    if (offsets.size() != static_cast<int64_t>(op->getNumResults()))
      return emitError() << "'" << name << "' has " << offsets.size()
                         << " entries for " << op->getNumResults()
                         << " results";
    for (int64_t offset : offsets.asArrayRef())
      if (failed(verifyPlanBytes(emitError, name, offset, /*least=*/-1)))
        return failure();
    return success();
  }
  if (name == kArenaSizeAttrName) {
    auto size = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!size || !size.getType().isInteger(64))
      return emitError() << "'" << name << "' must be an i64";
    return verifyPlanBytes(emitError, name, size.getInt(), /*least=*/0);
  }
  return success();
}

LogicalResult HODialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto emitError = [&] {
    return op->emitError() << "argument #" << argIndex << ": ";
  };
  if (name == kTierCopyOfAttrName) {
    auto original = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!original || !original.getType().isInteger(64) ||
        original.getInt() < 0 || original.getInt() >= argIndex)
      return emitError() << "'" << name
                         << "' must be the i64 number of an earlier argument";
    // A copy of the argument's bytes: a remote of the same tensor type, or
    // once ho-lower-to-runtime has run, the i64 handle of one.
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return success();
    Type copyType = function.getArgumentTypes()[argIndex];
    Type originalType = function.getArgumentTypes()[original.getInt()];
    if (auto remote = dyn_cast<RemoteType>(originalType))
      originalType = remote.getTensorType();
    auto copy = dyn_cast<RemoteType>(copyType);
    bool lowered = copyType.isInteger(64);
    if (!lowered && (!copy || copy.getTensorType() != originalType))
      return emitError() << "'" << name << "' names argument #"
                         << original.getInt() << " of type " << originalType
                         << ", so this argument must be a !ho.remote of that "
                            "tensor type, but it is "
                         << copyType;
    return success();
  }
  if (name == kPlacedByPlanAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return emitError() << "'" << name << "' must be a unit attribute";
    // A remote, or once ho-lower-to-runtime has run, the i64 handle of one.
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return success();
    Type type = function.getArgumentTypes()[argIndex];
    if (!isa<RemoteType>(type) && !type.isInteger(64))
      return emitError() << "'" << name
                         << "' marks an argument the plan passes in a tier, "
                            "so it must be a !ho.remote, but it is "
                         << type;
    return success();
  }
  if (name != kArgOffsetAttrName)
    return success();
  auto offset = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!offset || !offset.getType().isInteger(64))
    return emitError() << "'" << name << "' must be an i64";
  return verifyPlanBytes(emitError, name, offset.getInt(), /*least=*/0);
}
