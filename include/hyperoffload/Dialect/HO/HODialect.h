//===- HODialect.h - HyperOffload dialect -----------------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HODIALECT_H
#define HYPEROFFLOAD_DIALECT_HO_HODIALECT_H

#include "mlir/IR/Dialect.h"

#include "hyperoffload/Dialect/HO/HOOpsDialect.h.inc"

#endif // HYPEROFFLOAD_DIALECT_HO_HODIALECT_H
