//===- CompareCommand.cpp - `hyperoffload compare` ------------------------===//

#include "CompareCommand.h"
#include "CompareTable.h"
#include "ComparisonArgs.h"
#include "ProgressLine.h"

#include "hyperoffload/Compare/ComparisonTable.h"
#include "hyperoffload/Compare/HtmlReport.h"
#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Simulation/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
struct CompareArgs {
  ComparisonArgs input;
  // What to write besides the table.
  std::string jsonFile;
  std::string htmlFile;
  std::string traceDir;
  ProgressMode progress = ProgressMode::Auto;
  /// The command line, shown in the HTML report.
  std::string commandLine;
};
} // namespace

//===----------------------------------------------------------------------===//
// Running a comparison
//===----------------------------------------------------------------------===//

/// Writes the trace events of `run`, the `index`-th, as a process of its
/// own named after the policy: traces opened side by side, or merged, tell
/// their runs apart.
static void writeRunTrace(llvm::json::OStream &json,
                          const PolicyComparison &comparison,
                          const PolicyRun &run, int64_t pid) {
  json.object([&] {
    json.attributeObject("args", [&] {
      json.attribute("name",
                     fmt::format("{} on {}",
                                 stringifyComparedPolicy(run.policy).str(),
                                 comparison.target.name));
    });
    json.attribute("name", "process_name");
    json.attribute("ph", "M");
    json.attribute("pid", pid);
  });
  writeChromeTraceEvents(json, run.result, pid);
}

/// Writes `path` holding the runs `write` adds, streamed: the paged
/// runtime's can hold a million events.
static int
writeTraceFile(llvm::StringRef path,
               llvm::function_ref<void(llvm::json::OStream &)> write) {
  std::unique_ptr<llvm::ToolOutputFile> file = openOutput(path);
  if (!file)
    return 1;
  llvm::json::OStream json(file->os());
  json.object([&] {
    json.attribute("displayTimeUnit", "ms");
    json.attributeArray("traceEvents", [&] { write(json); });
  });
  return writeOutput(*file, [](llvm::raw_ostream &os) { os << "\n"; });
}

/// Writes `<dir>/<policy>.json`, a Perfetto trace of each run, and
/// `<dir>/all.json` with every run, one process each (process i+1 for the
/// i-th run in both).
static int writeTraces(llvm::StringRef dir,
                       const PolicyComparison &comparison) {
  for (auto [index, run] : llvm::enumerate(comparison.runs)) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path,
                            stringifyComparedPolicy(run.policy) + ".json");
    // A lambda may not capture a structured binding in C++17.
    const PolicyRun &thisRun = run;
    size_t pid = index + 1;
    if (int code = writeTraceFile(path, [&](llvm::json::OStream &json) {
          writeRunTrace(json, comparison, thisRun, pid);
        }))
      return code;
  }
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "all.json");
  return writeTraceFile(path, [&](llvm::json::OStream &json) {
    for (auto [index, run] : llvm::enumerate(comparison.runs))
      writeRunTrace(json, comparison, run, index + 1);
  });
}

/// "[3/10] 14 s: paged 65.542 ms, fits; next: naive": what the last policy
/// gave, and which runs now.
static std::string describeProgress(const PolicyComparison &partial,
                                    ArrayRef<ComparedPolicy> policies,
                                    size_t done, double elapsed) {
  ComparedPolicy policy = policies[done - 1];
  std::string text = fmt::format("[{}/{}] {}: {} ", done, policies.size(),
                                 formatDuration(elapsed),
                                 stringifyComparedPolicy(policy).str());
  if (partial.runs.empty() || partial.runs.back().policy != policy) {
    text += "not run";
  } else {
    const PolicyRun &run = partial.runs.back();
    text += formatSeconds(run.result.stepTime) +
            (partial.fits(run) ? ", fits" : ", does not fit");
  }
  if (done < policies.size())
    text += "; next: " + stringifyComparedPolicy(policies[done]).str();
  return text;
}

static int runCompare(const CompareArgs &args) {
  // Fail on an output that cannot be written before the work, not after.
  std::unique_ptr<llvm::ToolOutputFile> jsonFile, htmlFile;
  if (!args.jsonFile.empty() && !(jsonFile = openOutput(args.jsonFile)))
    return 1;
  if (!args.htmlFile.empty() && !(htmlFile = openOutput(args.htmlFile)))
    return 1;
  if (!args.traceDir.empty())
    if (std::error_code error =
            llvm::sys::fs::create_directories(args.traceDir))
      return reportError("cannot create the trace directory '" + args.traceDir +
                         "': " + error.message());

  std::unique_ptr<MLIRContext> context = createContext();
  ProgressLine progress(args.progress);
  ComparisonDiagnostics diagnostics(*context, &progress);
  FailureOr<OwningOpRef<ModuleOp>> module =
      args.input.loadInput(*context, diagnostics.getSourceMgr());
  if (failed(module))
    return 1;

  args.input.noteScenarioBudget();
  ComparisonOptions options = args.input.getOptions();
  options.recordTimelines = !args.traceDir.empty() || htmlFile;
  // An output named "-" (`--json -`) takes stdout instead of the table.
  bool tableOnStdout = args.jsonFile != "-" && args.htmlFile != "-";
  // The header as soon as the bounds are known. On a terminal each
  // policy's row follows as soon as it has run, in a table with a column
  // for every link direction of the target (which ones the runs use is not
  // known yet); elsewhere the table comes at the end, with the columns of
  // the links the runs used.
  ArrayRef<ComparedPolicy> policies = options.getPolicies();
  bool streamRows =
      tableOnStdout && llvm::sys::Process::StandardOutIsDisplayed();
  StreamedComparisonTable table(stdout, /*withTitle=*/false);
  ComparisonProgress events;
  events.started = [&](const PolicyComparison &partial) {
    if (tableOnStdout) {
      printComparisonHeader(stdout, tabulateComparison(partial));
      std::fflush(stdout);
    }
    progress.show(fmt::format("[0/{}] next: {}", policies.size(),
                              stringifyComparedPolicy(policies.front()).str()));
  };
  events.finished = [&](const PolicyComparison &partial, ComparedPolicy,
                        size_t done, size_t) {
    if (streamRows) {
      progress.clear();
      table.update(tabulateComparison(partial, LinkColumns::All));
    }
    progress.show(describeProgress(partial, policies, done,
                                   progress.getElapsedSeconds()));
  };
  FailureOr<PolicyComparison> comparison =
      comparePolicies(**module, options, events);
  progress.clear();
  if (failed(comparison))
    return 1;

  if (tableOnStdout) {
    if (streamRows)
      table.finish(tabulateComparison(*comparison, LinkColumns::All));
    else
      printComparisonTable(stdout, tabulateComparison(*comparison),
                           /*withHeader=*/false);
    for (std::optional<ComparisonTable> extra :
         {tabulateRoutedSteps(*comparison), tabulateAdmission(*comparison)})
      if (extra) {
        fmt::print("\n");
        printComparisonTable(stdout, *extra);
      }
  }
  if (jsonFile)
    if (int code = writeJSONOutput(*jsonFile, comparisonToJSON(*comparison)))
      return code;
  if (htmlFile)
    if (int code = writeHtmlOutput(
            *htmlFile, tableOnStdout, [&](llvm::raw_ostream &os) {
              writeComparisonHtml(os, *comparison, args.commandLine);
            }))
      return code;
  if (!args.traceDir.empty())
    return writeTraces(args.traceDir, *comparison);
  return 0;
}

/// Where `hyperoffload` without arguments writes its report: the current
/// directory, like any output a user asks for.
static constexpr const char *kDefaultReportFile = "hyperoffload-report.html";

int cli::runDefaultComparison() {
  CompareArgs args;
  args.input.scenario = "deepseek-v3-nsa-decode";
  args.input.hw = "ascend910c-supernode";
  args.input.budget =
      workloads::lookupScenario(args.input.scenario)->budget.str();
  args.htmlFile = kDefaultReportFile;
  args.commandLine = fmt::format(
      "hyperoffload compare --scenario {} --hw {} --budget {} "
      "--html {}",
      args.input.scenario, args.input.hw, args.input.budget, args.htmlFile);
  fmt::print("{}\n(every offload policy on one graph; `hyperoffload --help` "
             "lists the commands)\n\n",
             args.commandLine);
  std::fflush(stdout);
  return runCompare(args);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void cli::addCompareCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App *compare = app.add_subcommand(
      "compare", "Run every offload policy on one graph and compare their "
                 "memory, time, stalls and traffic");
  args->input.addTo(*compare);
  compare
      ->add_option("--json", args->jsonFile,
                   "Write the comparison as JSON (docs/Compare.md)")
      ->type_name("FILE");
  compare
      ->add_option("--html", args->htmlFile,
                   "Write a self-contained HTML report: the table, memory "
                   "over time, a stall heat map and the timelines")
      ->type_name("FILE");
  compare
      ->add_option("--trace", args->traceDir,
                   "Write a Perfetto trace of each policy to "
                   "DIR/<policy>.json, and of all of them, a process each, to "
                   "DIR/all.json")
      ->type_name("DIR");
  addProgressOption(*compare, args->progress);

  compare->callback([&action, args] {
    args->input.check();
    args->commandLine = getCommandLine();
    action = [args] { return runCompare(*args); };
  });
}
