//===- OptimalityCommand.h - `hyperoffload optimality` ----------*- C++ -*-===//
//
// `optimality` plans seeded random functions with the planner and with the
// exact search, and prints how far the planner is from the optimum and the
// optimum from the time lower bound (OptimalitySurvey.h).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_OPTIMALITYCOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_OPTIMALITYCOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `optimality` subcommand to `app`; parsing it sets `action`.
void addOptimalityCommand(CLI::App &app, Action &action);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_OPTIMALITYCOMMAND_H
