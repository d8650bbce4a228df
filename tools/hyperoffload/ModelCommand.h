//===- ModelCommand.h - `hyperoffload model` --------------------*- C++ -*-===//
//
// `model list` prints the known models and scenarios, `model emit` a model's
// graph as MLIR, `model stats` a model's parameter and KV-cache sizes.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_MODELCOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_MODELCOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `model` subcommand to `app`; parsing one of its subcommands sets
/// `action` to run it.
void addModelCommand(CLI::App &app, Action &action);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_MODELCOMMAND_H
