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

/// How byte counts are shown: in powers of 1000 (KB, MB, ...) or of 1024
/// (KiB, MiB, ...).
enum class ByteUnits { Decimal, Binary };

/// The units a size a person chose (a budget, a block size) was likely
/// written in, for the report about it to use throughout: binary when it is
/// a whole number of KiB, MiB, GiB or TiB but not of the decimal unit of the
/// same rank ("48GiB", "75%" of a 64 GiB device, 64 KiB blocks); decimal
/// otherwise, so a "44GB" budget keeps decimal units.
ByteUnits getChosenUnits(int64_t bytes);

/// The units to report bytes in for a budget written as `text` that came
/// to `bytes`: binary for a size in KiB, MiB, GiB or TiB, the units of the
/// bytes (getChosenUnits) for a fraction or percentage of the device,
/// decimal otherwise and when no budget was written.
ByteUnits getBudgetUnits(llvm::StringRef text, int64_t bytes);

/// Formats a byte count for people: "61.20 GB", or "57.00 GiB" in binary
/// units.
std::string formatBytes(int64_t bytes, ByteUnits units = ByteUnits::Decimal);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TARGET_MEMORYBUDGET_H
