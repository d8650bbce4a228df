//===- ModelCommand.cpp - `hyperoffload model` ----------------------------===//

#include "ModelCommand.h"
#include "OneOf.h"
#include "Table.h"
#include "WorkloadFlags.h"

#include "hyperoffload/Dialect/HO/HOTypes.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Workloads/Workloads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/ToolOutputFile.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;
using namespace mlir::ho::workloads;

namespace {
struct EmitArgs {
  std::string model;
  std::string scenario;
  std::string output = "-";
  bool stats = false;
  WorkloadFlags flags;
};

struct StatsArgs {
  std::vector<std::string> models;
  WorkloadFlags flags;
};
} // namespace

//===----------------------------------------------------------------------===//
// model list
//===----------------------------------------------------------------------===//

static int runList() {
  Table models({{"MODEL"}, {"DESCRIPTION"}});
  for (const ModelInfo &model : getModels())
    models.addRow({model.name.str(), model.description.str()});
  Table scenarios({{"SCENARIO"}, {"BUDGET"}, {"DESCRIPTION"}});
  for (const Scenario &scenario : getScenarios())
    scenarios.addRow({scenario.name.str(), scenario.budget.str(),
                      scenario.description.str()});

  // Line the descriptions of both tables up.
  size_t width = std::max(models.getWidth(0), scenarios.getWidth(0));
  models.setMinWidth(0, width);
  scenarios.setMinWidth(0, width);
  models.print(stdout);
  fmt::print("\n");
  scenarios.print(stdout);
  return 0;
}

//===----------------------------------------------------------------------===//
// model emit
//===----------------------------------------------------------------------===//

/// Prints what `module` holds, how large its text is and how much memory
/// its arguments take by role, to stderr.
static void printEmitSummary(ModuleOp module, llvm::StringRef name,
                             uint64_t bytes) {
  int64_t functions = 0, ops = 0;
  llvm::MapVector<llvm::StringRef, int64_t> argumentBytes;
  for (auto func : module.getOps<func::FuncOp>()) {
    ++functions;
    func.getBody().walk([&](Operation *) { ++ops; });
    for (BlockArgument arg : func.getArguments()) {
      auto role =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kRoleAttrName);
      Type type = arg.getType();
      if (auto remote = dyn_cast<ho::RemoteType>(type))
        type = remote.getTensorType();
      if (std::optional<int64_t> size = ho::getTensorSizeInBytes(type))
        argumentBytes[role ? role.getValue() : "other"] += *size;
    }
  }
  std::string arguments;
  for (auto [role, size] : argumentBytes)
    arguments += fmt::format("{}{} {:.2f} GB", arguments.empty() ? "" : ", ",
                             role.str(), size / 1e9);
  llvm::errs() << fmt::format(
      "{}: {} function{}, {} ops, {} bytes of MLIR; arguments: {}\n",
      name.str(), functions, functions == 1 ? "" : "s", ops, bytes, arguments);
}

static int runEmit(const EmitArgs &args) {
  llvm::Expected<WorkloadOptions> options =
      args.flags.resolve(args.model, args.scenario);
  if (!options)
    return reportError(options.takeError());
  std::string name = args.scenario.empty() ? args.model : args.scenario;

  std::unique_ptr<MLIRContext> context = createContext();
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      buildWorkload(*context, *options);
  if (!module)
    return reportError(module.takeError());
  if (failed(verify(**module)))
    return reportError("the graph built for '" + name +
                       "' does not verify; this is a bug in the workload "
                       "builder");

  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(args.output, &message);
  if (!output)
    return reportError(message);
  // With locations: they name the layer and op of every value, which later
  // passes and traces read back ("layer 17 / attention / kv_cache").
  (*module)->print(output->os(),
                   OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                     /*prettyForm=*/false));
  output->os() << "\n";
  output->os().flush();
  if (std::error_code error = output->os().error()) {
    output->os().clear_error();
    return reportError("cannot write '" + args.output +
                       "': " + error.message());
  }
  output->keep();
  if (args.stats)
    printEmitSummary(**module, name, output->os().tell());
  return 0;
}

//===----------------------------------------------------------------------===//
// model stats
//===----------------------------------------------------------------------===//

/// `count` in billions with at least three significant digits: 8.03B,
/// 671.03B, 0.0123B.
static std::string formatBillions(int64_t count) {
  double billions = static_cast<double>(count) / 1e9;
  int decimals = 2;
  if (billions > 0 && billions < 1)
    decimals = 2 - static_cast<int>(std::floor(std::log10(billions)));
  return fmt::format("{:.{}f}B", billions, decimals);
}

static int runStats(const StatsArgs &args) {
  std::vector<std::string> names = args.models;
  if (names.empty())
    for (const ModelInfo &model : getModels())
      names.push_back(model.name.str());

  using Align = Table::Align;
  Table table({{"MODEL"},
               {"TOTAL PARAMS", Align::Right},
               {"ACTIVE PARAMS", Align::Right},
               {"EMBEDDING PARAMS", Align::Right},
               {"KV BYTES/TOKEN", Align::Right}});
  for (const std::string &name : names) {
    WorkloadOptions options;
    options.model = name;
    llvm::Expected<ModelStats> stats =
        getModelStats(args.flags.apply(std::move(options)));
    if (!stats)
      return reportError(stats.takeError());
    table.addRow({name, formatBillions(stats->totalParameters),
                  formatBillions(stats->activeParameters),
                  formatBillions(stats->embeddingParameters),
                  std::to_string(stats->kvCacheBytesPerToken)});
  }
  table.print(stdout);
  return 0;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

static void addListCommand(CLI::App &model, Action &action) {
  CLI::App *list =
      model.add_subcommand("list", "List the models and the named scenarios");
  list->callback([&action] { action = runList; });
}

static void addEmitCommand(CLI::App &model, Action &action) {
  auto args = std::make_shared<EmitArgs>();
  CLI::App *emit = model.add_subcommand(
      "emit", "Print the per-device graph of a model or scenario as MLIR");
  CLI::Option *modelName =
      emit->add_option("MODEL", args->model,
                       "A model that `hyperoffload model list` shows")
          ->type_name("")
          ->check(oneOf(getModelNames()).description(""));
  CLI::Option *scenario =
      emit->add_option("--scenario", args->scenario,
                       "Emit a named scenario instead of MODEL (see `model "
                       "list`); the options below override its settings")
          ->type_name("NAME")
          // The names go in the error message, not in the help.
          ->check(oneOf(getScenarioNames()).description(""))
          ->excludes(modelName);
  emit->add_option("-o,--output", args->output, "Output file, - for stdout")
      ->capture_default_str();
  emit->add_flag("--stats", args->stats,
                 "Print the functions, ops and bytes emitted to stderr");
  args->flags.addTo(*emit);

  emit->callback([&action, args, modelName, scenario] {
    if (modelName->count() == 0 && scenario->count() == 0)
      throw CLI::RequiredError("MODEL or --scenario");
    action = [args] { return runEmit(*args); };
  });
}

static void addStatsCommand(CLI::App &model, Action &action) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App *stats = model.add_subcommand(
      "stats", "Print the parameter counts and KV-cache size of models");
  stats->add_option("MODEL", args->models, "Models (default: all of them)")
      ->type_name("")
      ->check(oneOf(getModelNames()).description(""));
  args->flags.addTypeOptionsTo(*stats);
  stats->callback(
      [&action, args] { action = [args] { return runStats(*args); }; });
}

void cli::addModelCommand(CLI::App &app, Action &action) {
  CLI::App *model = app.add_subcommand(
      "model", "Model graphs: list them, emit one as MLIR, show their sizes");
  addListCommand(*model, action);
  addEmitCommand(*model, action);
  addStatsCommand(*model, action);
}
