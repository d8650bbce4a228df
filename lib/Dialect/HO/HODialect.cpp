//===- HODialect.cpp - HyperOffload dialect -------------------------------===//

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

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
