//===- ComparisonArgs.cpp - What `compare` and `sweep` run on -------------===//

#include "ComparisonArgs.h"
#include "OneOf.h"

#include "hyperoffload/InputGuards.h"
#include "hyperoffload/Support/PlainDiagnostics.h"
#include "hyperoffload/Target/MemoryBudget.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

ComparisonArgs::ComparisonArgs() : hw(getTargetPresetNames().front().str()) {}

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

void ComparisonArgs::addTo(CLI::App &command) {
  const char *input = "Input (one of)";
  fileOption =
      command.add_option("FILE", file, "An MLIR file with one function")
          ->check(CLI::Validator(CLI::ExistingFile).description(""))
          ->type_name("")
          ->group(input);
  modelOption = command
                    .add_option("--model", model,
                                "A model that `hyperoffload model list` shows")
                    ->type_name("NAME")
                    ->check(oneOf(getModelNames()).description(""))
                    ->excludes(fileOption)
                    ->group(input);
  scenarioOption =
      command
          .add_option("--scenario", scenario,
                      "A named scenario (see `model list`); the workload "
                      "options override its settings")
          ->type_name("NAME")
          ->check(oneOf(getScenarioNames()).description(""))
          ->excludes(fileOption)
          ->excludes(modelOption)
          ->group(input);

  command
      .add_option("--hw", hw,
                  "Hardware: a preset (" +
                      llvm::join(getTargetPresetNames(), ", ") +
                      ") or a JSON file")
      ->type_name("PRESET|FILE")
      ->check(targetValidator())
      ->capture_default_str();
  command
      .add_option("--hw-set", hwOverrides,
                  "Override a hardware field: links.host.bandwidth_gbps=25")
      ->type_name("FIELD=VALUE");
  command
      .add_option("--budget", budget,
                  "Device memory every policy must fit in: 44GB, 48GiB, a "
                  "fraction of the HBM capacity (0.75) or a percentage (75%); "
                  "with --scenario, the scenario's own budget (`model list`) "
                  "by default")
      ->type_name("SIZE");
  command
      .add_option("--policies", policies,
                  "The policies to run, in order (default: all of them)")
      ->type_name("LIST")
      ->delimiter(',')
      ->check(oneOf(getPolicyNames()));
  command
      .add_option("--perturb", perturb,
                  "Plan for --hw, then score every plan on hardware with the "
                  "links' bandwidth and the device's speed scaled and each "
                  "op's time jittered: link=0.8,compute=1.25,jitter=0.1,"
                  "seed=7. The table's FITS says 'no (overlap)' where a "
                  "static plan reused memory still in use")
      ->type_name("KEY=VALUE,...")
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            llvm::Expected<Perturbation> parsed = parsePerturbation(text);
            return parsed ? "" : llvm::toString(parsed.takeError());
          },
          ""));
  std::string routed = "Routed experts and picked blocks (graphs with "
                       "ho.routed or ho.gather_blocks ops)";
  command
      .add_option("--routing", routing,
                  "Which experts the routers, and which KV blocks the "
                  "selections, pick at each step: uniform, zipf:EXPONENT (a "
                  "few popular ones per layer) or trace:FILE "
                  "(docs/CostModel.md gives the format)")
      ->type_name("SPEC")
      ->capture_default_str()
      ->group(routed)
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            RoutingOptions options;
            llvm::Error error = parseRoutingSpec(text, options);
            return error ? llvm::toString(std::move(error)) : "";
          },
          ""));
  command
      .add_option(
          "--predictor-accuracy", predictorAccuracy,
          "The fraction of picked experts and blocks an early prediction gets "
          "right; the planner is told it too")
      ->capture_default_str()
      ->group(routed)
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            double accuracy;
            if (llvm::StringRef(text).getAsDouble(accuracy))
              return "expected a number in [0, 1], not '" + text + "'";
            llvm::Error error = checkPredictorAccuracy(accuracy);
            return error ? llvm::toString(std::move(error)) : "";
          },
          ""));
  command
      .add_option("--routing-steps", routingSteps,
                  "Steps each policy runs for, each on every device of the "
                  "expert-parallel group")
      ->capture_default_str()
      ->group(routed)
      ->check(CLI::PositiveNumber);
  command
      .add_option("--routing-seed", routingSeed,
                  "Seed of the drawn routing and predictions")
      ->capture_default_str()
      ->group(routed);
  flags.addTo(command);
}

void ComparisonArgs::check() {
  if (fileOption->count() == 0 && modelOption->count() == 0 &&
      scenarioOption->count() == 0)
    throw CLI::RequiredError("FILE, --model or --scenario");
  if (budget.empty()) {
    if (scenario.empty())
      throw CLI::RequiredError("--budget (a --scenario has its own)");
    budget = workloads::lookupScenario(scenario)->budget.str();
    scenarioBudget = true;
  }
  if (fileOption->count() > 0)
    if (const CLI::Option *given = flags.getFirstGiven())
      throw CLI::ValidationError(given->get_name(),
                                 "applies to --model or --scenario, not to "
                                 "an input FILE");
  llvm::Expected<Target> target = loadTarget(hw);
  if (!target) // The validator of --hw has accepted it.
    throw CLI::ValidationError("--hw", llvm::toString(target.takeError()));
  for (const std::string &assignment : hwOverrides)
    if (llvm::Error error = applyTargetOverride(*target, assignment))
      throw CLI::ValidationError("--hw-set", llvm::toString(std::move(error)));
  llvm::Expected<int64_t> bytes =
      parseMemoryBudget(budget, target->device.hbmCapacity);
  if (!bytes)
    throw CLI::ValidationError("--budget", llvm::toString(bytes.takeError()));
}

void ComparisonArgs::noteScenarioBudget() const {
  if (scenarioBudget)
    fmt::print(stderr,
               "hyperoffload: note: budget {}, the scenario's own "
               "(--budget sets another)\n",
               budget);
}

ComparisonOptions ComparisonArgs::getOptions() const {
  ComparisonOptions options;
  options.hw = hw;
  options.hwOverrides = hwOverrides;
  options.budget = budget;
  for (const std::string &name : policies)
    options.policies.push_back(*parseComparedPolicy(name));
  if (!perturb.empty()) // The validator of --perturb has accepted it.
    options.perturbation = cantFail(parsePerturbation(perturb));
  // The validators have accepted the routing options.
  cantFail(parseRoutingSpec(routing, options.routing));
  options.routing.predictorAccuracy = predictorAccuracy;
  options.routing.seed = routingSeed;
  options.routingSteps = routingSteps;
  // loadInput reports a workload that does not resolve.
  if (file.empty()) {
    llvm::Expected<workloads::WorkloadOptions> workload =
        flags.resolve(model, scenario);
    if (workload)
      options.workload = *workload;
    else
      llvm::consumeError(workload.takeError());
  }
  return options;
}

FailureOr<OwningOpRef<ModuleOp>>
ComparisonArgs::loadInput(MLIRContext &context,
                          llvm::SourceMgr &sourceMgr) const {
  if (!file.empty()) {
    OwningOpRef<ModuleOp> module =
        ho::parseInputFile(file, sourceMgr, &context);
    if (!module)
      return failure();
    return module;
  }
  llvm::Expected<workloads::WorkloadOptions> options =
      flags.resolve(model, scenario);
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

ComparisonDiagnostics::ComparisonDiagnostics(MLIRContext &context,
                                             ProgressLine *progress)
    : printErrors(sourceMgr, &context),
      dropWarnings(&context, [progress](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Error)
          return success();
        if (progress)
          progress->clear();
        return printWithoutSourceLine(diag, "hyperoffload");
      }) {}

std::unique_ptr<llvm::ToolOutputFile> cli::openOutput(llvm::StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file)
    reportError(message);
  return file;
}

int cli::writeOutput(llvm::ToolOutputFile &file,
                     llvm::function_ref<void(llvm::raw_ostream &)> write) {
  write(file.os());
  file.os().flush();
  if (std::error_code error = file.os().error()) {
    file.os().clear_error();
    return reportError("cannot write '" + file.getFilename() +
                       "': " + error.message());
  }
  file.keep();
  return 0;
}

int cli::writeJSONOutput(llvm::ToolOutputFile &file,
                         const llvm::json::Value &value) {
  return writeOutput(file, [&](llvm::raw_ostream &os) {
    os << llvm::formatv("{0:2}", value) << "\n";
  });
}

int cli::writeHtmlOutput(llvm::ToolOutputFile &file, bool announce,
                         llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (int code = writeOutput(file, write))
    return code;
  if (announce)
    fmt::print("\nHTML report: {}\n", file.getFilename());
  return 0;
}
