//===- InputGuards.h - Input upstream MLIR crashes on -----------*- C++ -*-===//
//
// A few of MLIR 22's own op parsers crash on malformed text instead of
// reporting it: linalg.transpose, linalg.broadcast and linalg.reduce parse
// the integer list after `permutation =` or `dimensions =` with
// DenseI64ArrayAttr::parse and store its result even when that failed, so
// `permutation = [1,]` or `dimensions = 7` is a null-attribute segfault
// (in stock mlir-opt too). The tools check their input for that first, and
// say where it is, so that a typo gets a diagnostic, not a crash.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_INPUTGUARDS_H
#define HYPEROFFLOAD_INPUTGUARDS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;

namespace ho {

/// Emits an error, located in the main buffer of `sourceMgr`, at each text
/// that an MLIR 22 parser would crash on (see above); fails if there is one.
LogicalResult checkParserHazards(const llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context);

/// mlir::parseSourceFile<ModuleOp> of the file at `path` ("-" for standard
/// input), after checkParserHazards.
OwningOpRef<ModuleOp> parseInputFile(llvm::StringRef path,
                                     llvm::SourceMgr &sourceMgr,
                                     MLIRContext *context);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_INPUTGUARDS_H
