//===- TargetFormat.h - Shared pieces of the target JSON format -*- C++ -*-===//
//
// Private to the HOTarget library: the field names of the JSON format and
// the reader behind parseTarget, shared with the override code so that both
// agree on which paths exist.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_TARGET_TARGETFORMAT_H
#define HYPEROFFLOAD_LIB_TARGET_TARGETFORMAT_H

#include "hyperoffload/Target/Target.h"

#include <optional>

namespace mlir {
namespace ho {
namespace detail {

/// The fields of the JSON object at `objectPath` (e.g. {} for the top level,
/// {"links", "pool"} for a link), in schema order; std::nullopt when the
/// path names a leaf or nothing.
std::optional<llvm::ArrayRef<llvm::StringRef>>
getTargetFieldNames(llvm::ArrayRef<llvm::StringRef> objectPath);

/// Whether the leaf at `path` holds a string (the rest hold numbers).
bool isTargetStringField(llvm::ArrayRef<llvm::StringRef> path);

/// Reads and validates a target; errors start with `sourceName`.
llvm::Expected<Target> readTarget(const llvm::json::Value &value,
                                  llvm::StringRef sourceName);

} // namespace detail
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_TARGET_TARGETFORMAT_H
