//===- RunCommand.h - `hyperoffload run` ------------------------*- C++ -*-===//
//
// `run` plans a function of linalg on tensors, JIT-compiles the plan and the
// program, runs both on the same seeded inputs on this machine, and checks
// that the results are bit-identical; it prints the measured step time,
// stalls and traffic next to the simulator's prediction.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_RUNCOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_RUNCOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `run` subcommand to `app`; parsing it sets `action`.
void addRunCommand(CLI::App &app, Action &action);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_RUNCOMMAND_H
