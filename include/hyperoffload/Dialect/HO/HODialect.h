//===- HODialect.h - HyperOffload dialect -----------------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HODIALECT_H
#define HYPEROFFLOAD_DIALECT_HO_HODIALECT_H

#include "mlir/IR/Dialect.h"

#include "hyperoffload/Dialect/HO/HOOpsDialect.h.inc"

namespace mlir {
namespace ho {
/// Argument and result attribute saying what a function's tensor holds:
/// "weight", "kv_cache", "optimizer_state", ... Model builders set it; the
/// baseline policies read it to pick what they move.
inline constexpr llvm::StringLiteral kRoleAttrName = "ho.role";
/// On a function argument made from a constant: the value the caller
/// passes.
inline constexpr llvm::StringLiteral kConstantAttrName = "ho.constant";
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_DIALECT_HO_HODIALECT_H
