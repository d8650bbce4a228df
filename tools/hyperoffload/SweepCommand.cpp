//===- SweepCommand.cpp - `hyperoffload sweep` ----------------------------===//

#include "SweepCommand.h"
#include "CompareTable.h"
#include "ComparisonArgs.h"

#include "hyperoffload/Compare/PolicySweep.h"

#include "llvm/Support/Process.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
enum class ProgressMode { Auto, Always, Never };

struct SweepArgs {
  ComparisonArgs input;
  std::string vary;
  SweepAxis axis;
  std::string csvFile;
  std::string jsonFile;
  std::string htmlFile;
  ProgressMode progress = ProgressMode::Auto;
  std::string commandLine;
};
} // namespace

/// Draws "[#####.....] 5/10 FIELD=VALUE" over the previous bar on stderr,
/// and clears the line after the last point.
static void drawProgress(const SweepAxis &axis, size_t done, size_t total) {
  constexpr size_t kWidth = 30;
  size_t filled = total ? done * kWidth / total : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  if (done == total) {
    fmt::print(stderr, "\r\033[K");
  } else {
    fmt::print(stderr, "\r[{}] {}/{} next: {}", bar, done, total,
               getSweepOverride(axis, axis.values[done]));
  }
  std::fflush(stderr);
}

static int runSweep(const SweepArgs &args) {
  std::unique_ptr<llvm::ToolOutputFile> csvFile, jsonFile, htmlFile;
  if (!args.csvFile.empty() && !(csvFile = openOutput(args.csvFile)))
    return 1;
  if (!args.jsonFile.empty() && !(jsonFile = openOutput(args.jsonFile)))
    return 1;
  if (!args.htmlFile.empty() && !(htmlFile = openOutput(args.htmlFile)))
    return 1;

  std::unique_ptr<MLIRContext> context = createContext();
  ComparisonDiagnostics diagnostics(*context);
  FailureOr<OwningOpRef<ModuleOp>> module =
      args.input.loadInput(*context, diagnostics.getSourceMgr());
  if (failed(module))
    return 1;

  args.input.noteScenarioBudget();
  bool showProgress = args.progress == ProgressMode::Always ||
                      (args.progress == ProgressMode::Auto &&
                       llvm::sys::Process::StandardErrIsDisplayed());
  if (showProgress)
    drawProgress(args.axis, 0, args.axis.values.size());
  FailureOr<PolicySweep> sweep =
      sweepPolicies(**module, args.input.getOptions(), args.axis,
                    [&](size_t done, size_t total) {
                      if (showProgress)
                        drawProgress(args.axis, done, total);
                    });
  if (failed(sweep)) {
    if (showProgress)
      fmt::print(stderr, "\n");
    return 1;
  }

  // An output named "-" takes stdout instead of the table.
  bool tableOnStdout =
      args.csvFile != "-" && args.jsonFile != "-" && args.htmlFile != "-";
  if (tableOnStdout)
    printComparisonTable(stdout, tabulateSweep(*sweep));
  if (csvFile)
    if (int code = writeOutput(*csvFile, [&](llvm::raw_ostream &os) {
          writeSweepCSV(os, *sweep);
        }))
      return code;
  if (jsonFile)
    if (int code = writeJSONOutput(*jsonFile, sweepToJSON(*sweep)))
      return code;
  if (htmlFile)
    if (int code = writeHtmlOutput(
            *htmlFile, tableOnStdout, [&](llvm::raw_ostream &os) {
              writeSweepHtml(os, *sweep, args.commandLine);
            }))
      return code;
  return 0;
}

void cli::addSweepCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App *sweep = app.add_subcommand(
      "sweep", "Vary one hardware field and compare every offload policy at "
               "each value: the bandwidth-robustness curve");
  args->input.addTo(*sweep);
  sweep
      ->add_option("--vary", args->vary,
                   "The hardware field to vary and its values: "
                   "links.host.bandwidth_gbps=10:400:10 (LO:HI:STEP) or "
                   "device.hbm_capacity_gib=32,48,64; links.bandwidth_gbps "
                   "sets every link")
      ->type_name("FIELD=RANGE")
      ->required();
  sweep
      ->add_option("--csv", args->csvFile,
                   "Write one CSV row per point "
                   "and policy")
      ->type_name("FILE");
  sweep
      ->add_option("--json", args->jsonFile,
                   "Write the sweep as JSON: each point's comparison in the "
                   "schema of docs/Compare.md")
      ->type_name("FILE");
  sweep
      ->add_option("--html", args->htmlFile,
                   "Write a self-contained HTML page with the curves")
      ->type_name("FILE");
  sweep
      ->add_option("--progress", args->progress,
                   "Show a progress bar on stderr: auto (when it is a "
                   "terminal), always or never")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, ProgressMode>{{"auto", ProgressMode::Auto},
                                              {"always", ProgressMode::Always},
                                              {"never", ProgressMode::Never}}))
      ->type_name("WHEN");

  sweep->callback([&action, args] {
    args->input.check();
    llvm::Expected<SweepAxis> axis = parseSweepAxis(args->vary);
    if (!axis)
      throw CLI::ValidationError("--vary", llvm::toString(axis.takeError()));
    // The field and every value must be valid for the target.
    llvm::Expected<Target> target = loadTarget(args->input.hw);
    if (!target)
      throw CLI::ValidationError("--hw", llvm::toString(target.takeError()));
    for (double value : axis->values) {
      Target changed = *target;
      if (llvm::Error error =
              applyTargetOverride(changed, getSweepOverride(*axis, value)))
        throw CLI::ValidationError("--vary", llvm::toString(std::move(error)));
    }
    args->axis = std::move(*axis);
    args->commandLine = getCommandLine();
    action = [args] { return runSweep(*args); };
  });
}
