//===- CalibrateCommand.cpp - `hyperoffload calibrate` --------------------===//

#include "CalibrateCommand.h"

#include "ComparisonArgs.h"

#include "hyperoffload/Execution/Calibration.h"
#include "hyperoffload/Execution/JitFunction.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/ToolOutputFile.h"

#include <CLI/CLI.hpp>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
struct CalibrateArgs {
  std::string base;
  std::string output = "-";
  unsigned repetitions = 5;
  int64_t matmulSize = 256;
};

int calibrateMachine(const CalibrateArgs &args) {
  llvm::Expected<Target> base = loadTarget(args.base);
  if (!base)
    return reportError(base.takeError());
  std::unique_ptr<MLIRContext> context = createContext();
  DialectRegistry registry;
  registerExecutionDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();
  CalibrationOptions options;
  options.base = std::move(*base);
  options.repetitions = args.repetitions;
  options.matmulSize = args.matmulSize;
  llvm::Expected<Target> measured = calibrate(*context, options);
  if (!measured)
    return reportError(measured.takeError());
  std::unique_ptr<llvm::ToolOutputFile> file = openOutput(args.output);
  if (!file)
    return 1;
  return writeJSONOutput(*file, toJSON(*measured));
}
} // namespace

void mlir::ho::cli::addCalibrateCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<CalibrateArgs>();
  args->base = getTargetPresetNames().front().str();
  CLI::App *command = app.add_subcommand(
      "calibrate", "Measure this machine as `run` uses it and write a "
                   "hardware JSON for the simulator");
  command
      ->add_option("--base", args->base,
                   "Hardware preset or JSON file whose links (which tiers "
                   "exist) and other fields the measured figures replace")
      ->capture_default_str();
  command->add_option("-o,--output", args->output, "Output file, - for stdout")
      ->capture_default_str();
  command
      ->add_option("--repeat", args->repetitions,
                   "Timed runs of each measurement; each figure is their "
                   "median")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  command
      ->add_option("--matmul-size", args->matmulSize,
                   "Side of the square matmul whose FLOP/s is the peak: the "
                   "compiled loops' speed depends on whether their operands "
                   "stay in cache, so measure at the size a program uses")
      ->check(CLI::Range(int64_t(1), int64_t(8192)))
      ->capture_default_str();
  command->callback(
      [args, &action] { action = [args] { return calibrateMachine(*args); }; });
}
