//===- SweepCommand.cpp - `hyperoffload sweep` ----------------------------===//

#include "SweepCommand.h"
#include "CompareTable.h"
#include "ComparisonArgs.h"
#include "ProgressLine.h"

#include "hyperoffload/Compare/PolicySweep.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
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

/// "[#####.....] 5/10, 1 min 02 s, about 1 min left; next: FIELD=VALUE":
/// the points are alike, so the time per point so far says how long the
/// rest take.
static std::string describeProgress(const SweepAxis &axis, size_t done,
                                    size_t total, double elapsed) {
  constexpr size_t kWidth = 30;
  size_t filled = total ? done * kWidth / total : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::string text =
      fmt::format("[{}] {}/{}, {}", bar, done, total, formatDuration(elapsed));
  if (done > 0)
    text += fmt::format(", about {} left",
                        formatDuration(elapsed / done * (total - done)));
  return text + "; next: " + getSweepOverride(axis, axis.values[done]);
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
  ProgressLine progress(args.progress);
  ComparisonDiagnostics diagnostics(*context, &progress);
  FailureOr<OwningOpRef<ModuleOp>> module =
      args.input.loadInput(*context, diagnostics.getSourceMgr());
  if (failed(module))
    return 1;

  args.input.noteScenarioBudget();
  // An output named "-" takes stdout instead of the table. The table's rows
  // print as the points finish.
  bool tableOnStdout =
      args.csvFile != "-" && args.jsonFile != "-" && args.htmlFile != "-";
  StreamedComparisonTable table(stdout, /*withTitle=*/true);
  progress.show(describeProgress(args.axis, 0, args.axis.values.size(), 0));
  FailureOr<PolicySweep> sweep = sweepPolicies(
      **module, args.input.getOptions(), args.axis,
      [&](const PolicySweep &sofar, size_t total) {
        if (tableOnStdout) {
          progress.clear();
          table.update(tabulateSweep(sofar));
        }
        size_t done = sofar.points.size();
        if (done < total)
          progress.show(describeProgress(args.axis, done, total,
                                         progress.getElapsedSeconds()));
      });
  progress.clear();
  if (failed(sweep))
    return 1;
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
  addProgressOption(*sweep, args->progress);

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
