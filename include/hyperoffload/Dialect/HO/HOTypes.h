//===- HOTypes.h - HyperOffload dialect types -------------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HOTYPES_H
#define HYPEROFFLOAD_DIALECT_HO_HOTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "hyperoffload/Dialect/HO/HOEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "hyperoffload/Dialect/HO/HOTypes.h.inc"

#endif // HYPEROFFLOAD_DIALECT_HO_HOTYPES_H
