//===- RuntimeSymbols.h - The names of the runtime's functions --*- C++ -*-===//
//
// The C functions a lowered plan calls (HyperOffloadRuntime.h) and the
// clock synthetic kernels use, by name: the passes that emit the calls and
// the JIT that binds them to a runtime take the names from here.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_RUNTIME_RUNTIMESYMBOLS_H
#define HYPEROFFLOAD_RUNTIME_RUNTIMESYMBOLS_H

#include "llvm/ADT/StringRef.h"

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
constexpr llvm::StringLiteral kRoutedSlotExpert = "ho_routed_slot_expert";
constexpr llvm::StringLiteral kBlocksBegin = "ho_blocks_begin";
constexpr llvm::StringLiteral kBlocksEvent = "ho_blocks_event";
constexpr llvm::StringLiteral kBlocksEnsure = "ho_blocks_ensure";
constexpr llvm::StringLiteral kOffloadSliceStart = "ho_offload_slice_start";
constexpr llvm::StringLiteral kIntegrityRead = "ho_integrity_read";
constexpr llvm::StringLiteral kIntegrityReadSlots = "ho_integrity_read_slots";
constexpr llvm::StringLiteral kIntegrityWrite = "ho_integrity_write";
constexpr llvm::StringLiteral kIntegrityCopyOwner = "ho_integrity_copy_owner";
/// The clock and wait that give synthetic kernels their modelled time
/// (ho-synthesize-kernels{time-scale}).
constexpr llvm::StringLiteral kClockNanoseconds = "ho_clock_ns";
constexpr llvm::StringLiteral kWaitUntilNanoseconds = "ho_wait_until_ns";

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_RUNTIME_RUNTIMESYMBOLS_H
