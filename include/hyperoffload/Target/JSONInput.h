//===- JSONInput.h - JSON files read with limits ----------------*- C++ -*-===//
//
// Hardware descriptions and routing traces come from files users write.
// llvm::json parses recursively and lets a repeated key overwrite the first;
// these helpers add what a configuration reader needs on top: a bounded
// nesting depth, no repeated keys, and no endless read of a device file.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TARGET_JSONINPUT_H
#define HYPEROFFLOAD_TARGET_JSONINPUT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace mlir::ho {

/// The deepest nesting of arrays and objects accepted.
constexpr unsigned kMaxJSONDepth = 64;
/// The largest JSON file read, in bytes.
constexpr uint64_t kMaxJSONFileBytes = 256ull << 20;

/// Parses `text` as JSON. Fails, saying where, on a syntax error, on nesting
/// deeper than kMaxJSONDepth and on a key repeated within one object.
llvm::Expected<llvm::json::Value> parseJSONInput(llvm::StringRef text);

/// Reads the regular file at `path` (at most kMaxJSONFileBytes) into a
/// string; the error says why it cannot be read.
llvm::Expected<std::string> readJSONInputFile(llvm::StringRef path);

} // namespace mlir::ho

#endif // HYPEROFFLOAD_TARGET_JSONINPUT_H
