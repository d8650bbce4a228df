//===- CalibrateCommand.h - `hyperoffload calibrate` ------------*- C++ -*-===//
//
// `calibrate` measures this machine as `hyperoffload run` uses it (compiled
// matmuls, memory copies, calls, the threaded runtime's copies) and writes
// a hardware JSON that the simulator, `run` and `compare` take.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_CALIBRATECOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_CALIBRATECOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `calibrate` subcommand to `app`; parsing it sets `action`.
void addCalibrateCommand(CLI::App &app, Action &action);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_CALIBRATECOMMAND_H
