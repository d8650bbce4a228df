//===- OptimalityCommand.cpp - `hyperoffload optimality` ------------------===//

#include "OptimalityCommand.h"

#include "ComparisonArgs.h"
#include "Table.h"

#include "hyperoffload/Compare/OptimalitySurvey.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
struct OptimalityArgs {
  OptimalitySurveyOptions survey;
  std::string jsonFile;
  std::string casesDirectory;
};
} // namespace

static std::string formatRatio(double ratio) {
  return fmt::format("{:.3f}", ratio);
}

static void addRatioRow(Table &table, const char *name,
                        const std::vector<double> &ratios) {
  RatioDistribution distribution = describeRatios(ratios);
  if (distribution.count == 0) {
    table.addRow({name, "0", "-", "-", "-", "-", "-"});
    return;
  }
  table.addRow(
      {name, std::to_string(distribution.count), formatRatio(distribution.mean),
       formatRatio(distribution.median), formatRatio(distribution.p90),
       formatRatio(distribution.max),
       fmt::format("{:.1f}%", 100.0 * distribution.ones / distribution.count)});
}

/// Writes each function of the survey as seed-N.mlir with its target as
/// seed-N.json, for hyperoffload-opt.
static int writeCases(MLIRContext &context, const OptimalityArgs &args) {
  if (std::error_code error =
          llvm::sys::fs::create_directories(args.casesDirectory))
    return reportError("cannot create " + args.casesDirectory + ": " +
                       error.message());
  for (unsigned index = 0; index < args.survey.functions; ++index) {
    uint64_t seed = args.survey.firstSeed + index;
    SurveyFunction drawn = drawSurveyFunction(context, args.survey, seed);
    std::string base = args.casesDirectory + "/seed-" + std::to_string(seed);
    std::unique_ptr<llvm::ToolOutputFile> mlir = openOutput(base + ".mlir");
    if (!mlir)
      return 1;
    if (int code = writeOutput(
            *mlir, [&](llvm::raw_ostream &os) { drawn.module->print(os); }))
      return code;
    std::unique_ptr<llvm::ToolOutputFile> json = openOutput(base + ".json");
    if (!json)
      return 1;
    if (int code = writeJSONOutput(*json, toJSON(drawn.target)))
      return code;
  }
  return 0;
}

static int runOptimality(const OptimalityArgs &args) {
  std::unique_ptr<llvm::ToolOutputFile> jsonFile;
  if (!args.jsonFile.empty() && !(jsonFile = openOutput(args.jsonFile)))
    return 1;
  std::unique_ptr<MLIRContext> context = createContext();
  if (!args.casesDirectory.empty())
    if (int code = writeCases(*context, args))
      return code;
  bool showProgress = llvm::sys::Process::StandardErrIsDisplayed();
  std::vector<OptimalityCase> cases = runOptimalitySurvey(
      *context, args.survey, [&](unsigned done, unsigned total) {
        if (!showProgress)
          return;
        if (done == total)
          fmt::print(stderr, "\r\033[K");
        else
          fmt::print(stderr, "\rfunction {}/{}", done, total);
        std::fflush(stderr);
      });
  OptimalityStatistics statistics = summarizeOptimality(cases);
  if (args.jsonFile != "-") {
    const OptimalitySurveyOptions &survey = args.survey;
    auto range = [](unsigned low, unsigned high) {
      return low == high ? std::to_string(low)
                         : fmt::format("{}-{}", low, high);
    };
    fmt::print("{} functions of {} ops (seeds {}-{}), {} budgets each from "
               "the memory bound towards the peak; {} tier(s), {} queue(s) "
               "per link direction, link overheads {}\n\n",
               survey.functions,
               range(survey.function.minOps, survey.function.maxOps),
               survey.firstSeed, survey.firstSeed + survey.functions - 1,
               survey.budgetsPerFunction,
               range(survey.target.minTiers, survey.target.maxTiers),
               range(1, survey.target.maxQueues),
               survey.target.linkOverheads ? "on" : "off");
    Table table({{"ratio"},
                 {"cases", Table::Align::Right},
                 {"mean", Table::Align::Right},
                 {"median", Table::Align::Right},
                 {"p90", Table::Align::Right},
                 {"max", Table::Align::Right},
                 {"equal", Table::Align::Right}});
    addRatioRow(table, "planner / exact optimum", statistics.plannerOverExact);
    addRatioRow(table, "exact optimum / time bound", statistics.exactOverBound);
    addRatioRow(table, "exact optimum / with deadlines",
                statistics.exactOverTighterBound);
    table.print(stdout);
    fmt::print("\n{} cases: exact search optimal {}, infeasible {}, gave up "
               "{}, not searched {}\n",
               statistics.cases, statistics.optimal, statistics.infeasible,
               statistics.gaveUp, statistics.notSearched);
    fmt::print("planner: missed {} budget(s) the exact search fits, fits {} "
               "it proved infeasible; left over 3% of the budget unused in "
               "{}\n",
               statistics.plannerMissed, statistics.plannerOnlyFits,
               statistics.budgetUnused);
  }
  if (jsonFile)
    return writeJSONOutput(*jsonFile, toJSON(args.survey, cases));
  return 0;
}

void cli::addOptimalityCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<OptimalityArgs>();
  OptimalitySurveyOptions &survey = args->survey;
  CLI::App *command = app.add_subcommand(
      "optimality",
      "Plan seeded random functions with the planner and with the exact "
      "search (policy=exact), and print the planner's distance to the "
      "optimum and the optimum's to the time lower bound");
  command->add_option("--functions", survey.functions, "Functions drawn")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  command->add_option("--seed", survey.firstSeed, "Seed of the first function")
      ->capture_default_str();
  command
      ->add_option("--min-ops", survey.function.minOps,
                   "Fewest compute ops of a function")
      ->check(CLI::Range(1u, 200u))
      ->capture_default_str();
  command
      ->add_option("--max-ops", survey.function.maxOps,
                   "Most compute ops of a function")
      ->check(CLI::Range(1u, 200u))
      ->capture_default_str();
  command
      ->add_option("--budgets", survey.budgetsPerFunction,
                   "Budgets per function, evenly spaced from its memory lower "
                   "bound towards its peak")
      ->check(CLI::Range(1u, 100u))
      ->capture_default_str();
  command
      ->add_option("--tiers", survey.target.maxTiers,
                   "Tiers (each with its own link), drawn from 1 to this")
      ->check(CLI::Range(1u, 3u))
      ->capture_default_str();
  command
      ->add_option("--queues", survey.target.maxQueues,
                   "Copy queues per link direction, drawn from 1 to this")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  command->add_flag("--link-overheads", survey.target.linkOverheads,
                    "Draw link latency, issue overhead and HBM contention "
                    "(zero without)");
  command
      ->add_option("--max-simulations", survey.limits.maxSimulations,
                   "Plans the exact search simulates per case before it "
                   "gives up")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40))
      ->capture_default_str();
  command->add_flag("--no-local-search{false}", survey.localSearch,
                    "Plan without the planner's local search "
                    "(ho-plan-offload{local-search=false})");
  command
      ->add_option("--json", args->jsonFile,
                   "Write the statistics and every case as JSON (- for "
                   "stdout, instead of the table)")
      ->type_name("FILE");
  command
      ->add_option("--write-cases", args->casesDirectory,
                   "Also write each function as DIR/seed-N.mlir with its "
                   "hardware as DIR/seed-N.json, to plan it again with "
                   "hyperoffload-opt")
      ->type_name("DIR");
  command->callback([args, &action] {
    if (args->survey.function.minOps > args->survey.function.maxOps)
      throw CLI::ValidationError("--min-ops", "must not be above --max-ops");
    action = [args] { return runOptimality(*args); };
  });
}
