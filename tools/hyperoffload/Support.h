//===- Support.h - Shared helpers of the hyperoffload tool ------*- C++ -*-===//
//
// What every subcommand needs: how to report an error and an MLIR context
// that knows the dialects the workload graphs use.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SUPPORT_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SUPPORT_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir::ho::cli {

/// The work a parsed command line asks for; returns the exit code. A
/// subcommand's callback sets it, `main` runs it once parsing succeeded.
using Action = std::function<int()>;

/// Prints `hyperoffload: error: <message>` to stderr and returns 1, the exit
/// code of a command that failed after its arguments parsed.
int reportError(const llvm::Twine &message);
int reportError(llvm::Error error);

/// Remembers the command line the tool was run with, for reports to show.
void setCommandLine(int argc, char **argv);
/// That command line, each argument quoted where a shell would need it.
std::string getCommandLine();

/// A context with the dialects of the workload graphs loaded (`ho`, `func`
/// and `tensor`) that parses what hyperoffload-opt parses: the upstream
/// dialects front ends emit, with their cost models.
std::unique_ptr<MLIRContext> createContext();

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SUPPORT_H
