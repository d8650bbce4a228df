//===- CompareCommand.cpp - `hyperoffload compare` ------------------------===//

#include "CompareCommand.h"
#include "CompareTable.h"
#include "WorkloadFlags.h"

#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
struct CompareArgs {
  // The input: a file, a model or a scenario.
  std::string file;
  std::string model;
  std::string scenario;
  WorkloadFlags flags;
  // Where and how to run it.
  std::string hw = getTargetPresetNames().front().str();
  std::vector<std::string> hwOverrides;
  std::string budget;
  std::vector<std::string> policies;
  // What to write besides the table.
  std::string jsonFile;
  std::string traceDir;
};
} // namespace

//===----------------------------------------------------------------------===//
// Running a comparison
//===----------------------------------------------------------------------===//

/// The graph to compare: the file parsed (diagnostics go to the handler of
/// `sourceMgr`), or the model or scenario built.
static FailureOr<OwningOpRef<ModuleOp>> loadInput(const CompareArgs &args,
                                                  MLIRContext &context,
                                                  llvm::SourceMgr &sourceMgr) {
  if (!args.file.empty()) {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(args.file, sourceMgr, &context);
    if (!module)
      return failure();
    return module;
  }
  llvm::Expected<workloads::WorkloadOptions> options =
      args.flags.resolve(args.model, args.scenario);
  if (!options) {
    reportError(options.takeError());
    return failure();
  }
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      workloads::buildWorkload(context, *options);
  if (!module) {
    reportError(module.takeError());
    return failure();
  }
  return std::move(*module);
}

/// Opens `path` for writing, or reports why it cannot.
static std::unique_ptr<llvm::ToolOutputFile> openOutput(llvm::StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file)
    reportError(message);
  return file;
}

/// Flushes `file` and keeps it, or reports why it could not be written.
static int keepOutput(llvm::ToolOutputFile &file) {
  file.os().flush();
  if (std::error_code error = file.os().error()) {
    file.os().clear_error();
    return reportError("cannot write '" + file.getFilename() +
                       "': " + error.message());
  }
  file.keep();
  return 0;
}

/// Writes `<dir>/<policy>.json`, a Perfetto trace of each run, streamed:
/// the paged runtime's can hold a million events.
static int writeTraces(llvm::StringRef dir,
                       const PolicyComparison &comparison) {
  for (const PolicyRun &run : comparison.runs) {
    llvm::StringRef name = stringifyComparedPolicy(run.policy);
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name + ".json");
    std::unique_ptr<llvm::ToolOutputFile> file = openOutput(path);
    if (!file)
      return 1;
    llvm::json::OStream json(file->os());
    json.object([&] {
      json.attribute("displayTimeUnit", "ms");
      json.attributeArray("traceEvents", [&] {
        // Name the process after the policy, so that traces opened side by
        // side tell themselves apart.
        json.object([&] {
          json.attributeObject("args", [&] {
            json.attribute("name", fmt::format("{} on {}", name.str(),
                                               comparison.target.name));
          });
          json.attribute("name", "process_name");
          json.attribute("ph", "M");
          json.attribute("pid", 1);
        });
        writeChromeTraceEvents(json, run.result, /*pid=*/1);
      });
    });
    file->os() << "\n";
    if (int code = keepOutput(*file))
      return code;
  }
  return 0;
}

static int runCompare(const CompareArgs &args) {
  // Fail on an output that cannot be written before the work, not after.
  std::unique_ptr<llvm::ToolOutputFile> jsonFile;
  if (!args.jsonFile.empty() && !(jsonFile = openOutput(args.jsonFile)))
    return 1;
  if (!args.traceDir.empty())
    if (std::error_code error =
            llvm::sys::fs::create_directories(args.traceDir))
      return reportError("cannot create the trace directory '" + args.traceDir +
                         "': " + error.message());

  std::unique_ptr<MLIRContext> context = createContext();
  // Diagnostics of the parser, the passes and the simulator, with the
  // source line when they point into a file.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
  // The planners warn when a baseline's plan misses the budget; the table
  // says so in its FITS column. Errors go on to the handler above.
  ScopedDiagnosticHandler dropWarnings(context.get(), [](Diagnostic &diag) {
    return success(diag.getSeverity() != DiagnosticSeverity::Error);
  });
  FailureOr<OwningOpRef<ModuleOp>> module =
      loadInput(args, *context, sourceMgr);
  if (failed(module))
    return 1;

  ComparisonOptions options;
  options.hw = args.hw;
  options.hwOverrides = args.hwOverrides;
  options.budget = args.budget;
  for (const std::string &name : args.policies)
    options.policies.push_back(*parseComparedPolicy(name));
  options.recordTimelines = !args.traceDir.empty();
  FailureOr<PolicyComparison> comparison = comparePolicies(**module, options);
  if (failed(comparison))
    return 1;

  // `--json -` puts the JSON on stdout instead of the table.
  if (args.jsonFile != "-")
    printComparison(stdout, *comparison);
  if (jsonFile) {
    jsonFile->os() << llvm::formatv("{0:2}", comparisonToJSON(*comparison))
                   << "\n";
    if (int code = keepOutput(*jsonFile))
      return code;
  }
  if (!args.traceDir.empty())
    return writeTraces(args.traceDir, *comparison);
  return 0;
}

int cli::runDefaultComparison() {
  CompareArgs args;
  args.scenario = "deepseek-v3-nsa-decode";
  args.hw = "ascend910c-supernode";
  args.budget = "44GB";
  fmt::print("hyperoffload compare --scenario {} --hw {} --budget {}\n"
             "(every offload policy on one graph; `hyperoffload --help` lists "
             "the commands)\n\n",
             args.scenario, args.hw, args.budget);
  std::fflush(stdout);
  return runCompare(args);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

static std::vector<std::string> getPolicyNames() {
  std::vector<std::string> names;
  for (ComparedPolicy policy : getComparedPolicies())
    names.push_back(stringifyComparedPolicy(policy).str());
  return names;
}

/// Accepts a preset name or a readable target file.
static CLI::Validator targetValidator() {
  auto check = [](std::string &text) -> std::string {
    llvm::Expected<Target> target = loadTarget(text);
    return target ? "" : llvm::toString(target.takeError());
  };
  return CLI::Validator(check, "");
}

/// Checks what CLI11 cannot check alone: that there is an input, that the
/// workload options go with a model, and the overrides and the budget
/// against the target.
static void checkArgs(const CompareArgs &args, const CLI::Option *file,
                      const CLI::Option *model, const CLI::Option *scenario) {
  if (file->count() == 0 && model->count() == 0 && scenario->count() == 0)
    throw CLI::RequiredError("FILE, --model or --scenario");
  if (file->count() > 0)
    if (const CLI::Option *given = args.flags.getFirstGiven())
      throw CLI::ValidationError(given->get_name(),
                                 "applies to --model or --scenario, not to "
                                 "an input FILE");
  llvm::Expected<Target> target = loadTarget(args.hw);
  if (!target) // The validator of --hw has accepted it.
    throw CLI::ValidationError("--hw", llvm::toString(target.takeError()));
  for (const std::string &assignment : args.hwOverrides)
    if (llvm::Error error = applyTargetOverride(*target, assignment))
      throw CLI::ValidationError("--hw-set", llvm::toString(std::move(error)));
  llvm::Expected<int64_t> budget =
      parseMemoryBudget(args.budget, target->device.hbmCapacity);
  if (!budget)
    throw CLI::ValidationError("--budget", llvm::toString(budget.takeError()));
}

void cli::addCompareCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App *compare = app.add_subcommand(
      "compare", "Run every offload policy on one graph and compare their "
                 "memory, time, stalls and traffic");

  const char *input = "Input (one of)";
  CLI::Option *file =
      compare->add_option("FILE", args->file, "An MLIR file with one function")
          ->check(CLI::Validator(CLI::ExistingFile).description(""))
          ->type_name("")
          ->group(input);
  CLI::Option *model =
      compare
          ->add_option("--model", args->model,
                       "A model that `hyperoffload model list` shows")
          ->type_name("NAME")
          ->excludes(file)
          ->group(input);
  CLI::Option *scenario =
      compare
          ->add_option("--scenario", args->scenario,
                       "A named scenario (see `model list`); the workload "
                       "options override its settings")
          ->type_name("NAME")
          ->check(CLI::IsMember(getScenarioNames()).description(""))
          ->excludes(file)
          ->excludes(model)
          ->group(input);

  compare
      ->add_option("--hw", args->hw,
                   "Hardware: a preset (" +
                       llvm::join(getTargetPresetNames(), ", ") +
                       ") or a JSON file")
      ->type_name("PRESET|FILE")
      ->check(targetValidator())
      ->capture_default_str();
  compare
      ->add_option("--hw-set", args->hwOverrides,
                   "Override a hardware field: links.host.bandwidth_gbps=25")
      ->type_name("FIELD=VALUE");
  compare
      ->add_option("--budget", args->budget,
                   "Device memory every policy must fit in: 44GB, 48GiB, a "
                   "fraction of the HBM capacity (0.75) or a percentage (75%)")
      ->type_name("SIZE")
      ->required();
  compare
      ->add_option("--policies", args->policies,
                   "The policies to run, in order (default: all of them)")
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::IsMember(getPolicyNames()));
  compare
      ->add_option("--json", args->jsonFile,
                   "Write the comparison as JSON (docs/Compare.md)")
      ->type_name("FILE");
  compare
      ->add_option("--trace", args->traceDir,
                   "Write a Perfetto trace of each policy to "
                   "DIR/<policy>.json")
      ->type_name("DIR");
  args->flags.addTo(*compare);

  compare->callback([&action, args, file, model, scenario] {
    checkArgs(*args, file, model, scenario);
    action = [args] { return runCompare(*args); };
  });
}
