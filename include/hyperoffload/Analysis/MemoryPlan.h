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
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace ho {

/// The offset a plan assigned to the buffer rooted at `root` (an op result
/// or a function argument), if any.
std::optional<int64_t> getAssignedOffset(Value root);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_MEMORYPLAN_H
