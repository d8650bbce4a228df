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
/// On a `!ho.remote` function argument: the number of an earlier argument
/// whose value it holds, in a tier. A runtime without a plan keeps such a
/// copy of what the caller passes on the device (ho-replay-reactive).
inline constexpr llvm::StringLiteral kTierCopyOfAttrName = "ho.tier_copy_of";
/// On a `!ho.remote` function argument (a unit attribute): the program the
/// plan was made from took it on the device, and the plan passes it in the
/// tier. The lower bounds count it as the device argument it was, so that
/// a planned file is measured against the bound of its program, the one
/// `hyperoffload compare` reports.
inline constexpr llvm::StringLiteral kPlacedByPlanAttrName =
    "ho.placed_by_plan";

/// A static memory plan (see Analysis/MemoryPlan.h): on an op, the offset of
/// each result's buffer in the arena, -1 for a result without a buffer of
/// its own; on a function argument, its buffer's offset; on the function,
/// the arena's size in bytes. The dialect verifies their form and range.
inline constexpr llvm::StringLiteral kOffsetsAttrName = "ho.offsets";
inline constexpr llvm::StringLiteral kArgOffsetAttrName = "ho.offset";
inline constexpr llvm::StringLiteral kArenaSizeAttrName = "ho.arena_size";
/// The largest offset or arena size: 2^59 bytes, as for a tensor
/// (kMaxTensorBytes), so that offset + size never overflows.
inline constexpr int64_t kMaxArenaBytes = int64_t(1) << 59;
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_DIALECT_HO_HODIALECT_H
