//===- CompareCommand.h - `hyperoffload compare` ----------------*- C++ -*-===//
//
// `compare` runs every offload policy on one graph (a file, a model or a
// named scenario) for one target and budget and prints a table of what each
// costs; `--json` writes it in the schema of docs/Compare.md and `--trace`
// one Perfetto trace per policy.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARECOMMAND_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARECOMMAND_H

#include "Support.h"

namespace CLI {
class App;
} // namespace CLI

namespace mlir::ho::cli {

/// Adds the `compare` subcommand to `app`; parsing it sets `action`.
void addCompareCommand(CLI::App &app, Action &action);

/// The comparison `hyperoffload` runs without arguments: DeepSeek-V3 + NSA
/// decode on ascend910c-supernode at a 44 GB budget.
int runDefaultComparison();

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARECOMMAND_H
