//===- ComparisonArgs.h - What `compare` and `sweep` run on -----*- C++ -*-===//
//
// The options that choose the graph (a file, a model or a scenario, with
// workload options), the hardware, the budget and the policies, shared by
// the commands that compare policies; and the output files they write.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARISONARGS_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARISONARGS_H

#include "ProgressLine.h"
#include "Support.h"
#include "WorkloadFlags.h"

#include "hyperoffload/Compare/PolicyComparison.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace mlir::ho::cli {

class ComparisonArgs {
public:
  // The input: a file, a model or a scenario.
  std::string file;
  std::string model;
  std::string scenario;
  WorkloadFlags flags;
  // Where and how to run it.
  std::string hw;
  std::vector<std::string> hwOverrides;
  std::string budget;
  std::vector<std::string> policies;
  /// "link=0.8,compute=1.25,...": score on other hardware than planned for.
  std::string perturb;
  /// Routed experts: "uniform", "zipf:1.2" or "trace:FILE"; the predictor's
  /// accuracy, the steps and the seed of the draws.
  std::string routing = "uniform";
  double predictorAccuracy = RoutingOptions().predictorAccuracy;
  unsigned routingSteps = ComparisonOptions::kDefaultRoutingSteps;
  uint64_t routingSeed = RoutingOptions().seed;

  ComparisonArgs();

  /// Adds the input, hardware, budget and policy options to `command`.
  void addTo(CLI::App &command);
  /// Checks what CLI11 cannot check alone: that there is an input, that the
  /// workload options go with a model, and the overrides and the budget
  /// against the target; takes a scenario's own budget where none is
  /// given. Throws the CLI11 error to report.
  void check();
  /// Says on stderr which budget runs when it is the scenario's, not one
  /// given.
  void noteScenarioBudget() const;

  ComparisonOptions getOptions() const;

  /// The graph: the file parsed (diagnostics go to the handler of
  /// `sourceMgr`), or the model or scenario built.
  FailureOr<OwningOpRef<ModuleOp>> loadInput(MLIRContext &context,
                                             llvm::SourceMgr &sourceMgr) const;

private:
  bool scenarioBudget = false;
  CLI::Option *fileOption = nullptr;
  CLI::Option *modelOption = nullptr;
  CLI::Option *scenarioOption = nullptr;
};

/// How a comparison reports problems: parser, pass and simulator errors
/// with the source line when they point into a file, and without the
/// planners' warnings that a baseline misses the budget (the FITS column
/// says so).
class ComparisonDiagnostics {
public:
  /// Errors erase `progress`, when given, before they print.
  explicit ComparisonDiagnostics(MLIRContext &context,
                                 ProgressLine *progress = nullptr);
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

private:
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler printErrors;
  ScopedDiagnosticHandler dropWarnings;
};

/// Opens `path` for writing ("-" is stdout), or reports why it cannot.
std::unique_ptr<llvm::ToolOutputFile> openOutput(llvm::StringRef path);
/// Writes into `file` with `write`, flushes and keeps it; returns 0, or 1
/// after reporting why it could not be written.
int writeOutput(llvm::ToolOutputFile &file,
                llvm::function_ref<void(llvm::raw_ostream &)> write);
/// Writes `value` into `file` as indented JSON, as writeOutput does.
int writeJSONOutput(llvm::ToolOutputFile &file, const llvm::json::Value &value);
/// Writes an HTML report into `file` with `write`, as writeOutput does; with
/// `announce`, then prints its path after the table on stdout.
int writeHtmlOutput(llvm::ToolOutputFile &file, bool announce,
                    llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARISONARGS_H
