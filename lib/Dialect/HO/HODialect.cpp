//===- HODialect.cpp - HyperOffload dialect -------------------------------===//

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

using namespace mlir;
using namespace mlir::ho;

#include "hyperoffload/Dialect/HO/HOOpsDialect.cpp.inc"

void HODialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "hyperoffload/Dialect/HO/HOOps.cpp.inc"
      >();
}
