//===- MemoryPlan.h - Offsets of a static memory plan in the IR -*- C++ -*-===//
//
// A static memory plan gives every device buffer an offset in one arena. It
// lives in the IR as discardable attributes, so that it survives printing
// and any later pass can read it:
//   - on an op, `ho.offsets = array<i64: ...>` with one entry per result
//     (-1 for a result that has no buffer of its own);
//   - on a function argument, `ho.offset = N : i64`.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_MEMORYPLAN_H
#define HYPEROFFLOAD_ANALYSIS_MEMORYPLAN_H

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace ho {

/// The offset a plan assigned to the buffer rooted at `root` (an op result
/// or a function argument), if any.
std::optional<int64_t> getAssignedOffset(Value root);

class BufferLiveness;

/// Checks that every placed buffer of `function` lies inside its
/// `ho.arena_size` (when it has one), with an error at each that does not.
/// The dialect keeps each offset and the arena size in [0, 2^59], so the
/// sum cannot overflow.
LogicalResult verifyBuffersInArena(FunctionOpInterface function,
                                   const BufferLiveness &liveness);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_MEMORYPLAN_H
