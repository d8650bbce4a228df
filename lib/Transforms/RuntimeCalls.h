//===- RuntimeCalls.h - Declarations of the C runtime's functions -*- C++ -*-//
//
// ho-lower-to-runtime and ho-place-in-arena call the functions of
// include/hyperoffload/Runtime/HyperOffloadRuntime.h, and
// ho-synthesize-kernels a clock; each is declared once per module, as a
// private func.func.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H
#define HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace ho {

/// The runtime functions, by the name the C header gives them.
constexpr llvm::StringLiteral kArenaBase = "ho_arena_base";
constexpr llvm::StringLiteral kOffloadStart = "ho_offload_start";
constexpr llvm::StringLiteral kOffloadWait = "ho_offload_wait";
constexpr llvm::StringLiteral kPrefetchStart = "ho_prefetch_start";
constexpr llvm::StringLiteral kEventWait = "ho_event_wait";
constexpr llvm::StringLiteral kRoutedBegin = "ho_routed_begin";
constexpr llvm::StringLiteral kRoutedOffer = "ho_routed_offer";
constexpr llvm::StringLiteral kRoutedEvent = "ho_routed_event";
constexpr llvm::StringLiteral kRoutedEnsure = "ho_routed_ensure";
constexpr llvm::StringLiteral kBlocksBegin = "ho_blocks_begin";
constexpr llvm::StringLiteral kBlocksEvent = "ho_blocks_event";
constexpr llvm::StringLiteral kBlocksEnsure = "ho_blocks_ensure";
constexpr llvm::StringLiteral kOffloadSliceStart = "ho_offload_slice_start";
constexpr llvm::StringLiteral kIntegrityRead = "ho_integrity_read";
constexpr llvm::StringLiteral kIntegrityWrite = "ho_integrity_write";
constexpr llvm::StringLiteral kIntegrityCopyOwner = "ho_integrity_copy_owner";
/// The clock and wait that give synthetic kernels their modelled time
/// (ho-synthesize-kernels{time-scale}).
constexpr llvm::StringLiteral kClockNanoseconds = "ho_clock_ns";
constexpr llvm::StringLiteral kWaitUntilNanoseconds = "ho_wait_until_ns";

/// The declaration of the runtime function `name` in `module`, made at the
/// top of the module the first time.
inline func::FuncOp declareRuntimeFunction(ModuleOp module, OpBuilder &builder,
                                           StringRef name, TypeRange inputs,
                                           TypeRange results) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto declaration = func::FuncOp::create(
      builder, module.getLoc(), name, builder.getFunctionType(inputs, results));
  declaration.setPrivate();
  return declaration;
}

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H
