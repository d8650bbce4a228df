//===- SweepCommand.h - `hyperoffload sweep` --------------------*- C++ -*-===//
//
// `sweep` varies one hardware field over a range, re-plans and re-scores
// every policy at each value, and prints how each policy's step time
// follows; `--csv`, `--json` and `--html` write the curve.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SWEEPCOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SWEEPCOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `sweep` subcommand to `app`; parsing it sets `action`.
void addSweepCommand(CLI::App &app, Action &action);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_SWEEPCOMMAND_H
