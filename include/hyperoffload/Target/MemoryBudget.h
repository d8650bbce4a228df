//===- MemoryBudget.h - How much device memory a run may use ----*- C++ -*-===//

#ifndef HYPEROFFLOAD_TARGET_MEMORYBUDGET_H
#define HYPEROFFLOAD_TARGET_MEMORYBUDGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
namespace ho {

/// Parses a device-memory budget against a device of `capacity` bytes:
///   - bytes with a unit: "48GiB", "500MB", "4096B" (B, KB, MB, GB, TB in
///     powers of 1000; KiB, MiB, GiB, TiB in powers of 1024);
///   - a fraction of the capacity: a number in (0, 1], e.g. "0.75";
///   - a percentage of the capacity: "75%".
/// An empty string means the whole capacity.
llvm::Expected<int64_t> parseMemoryBudget(llvm::StringRef text,
                                          int64_t capacity);

/// Formats a byte count for people, in decimal units ("61.20 GB").
std::string formatBytes(int64_t bytes);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TARGET_MEMORYBUDGET_H
