//===- CalibrateCommand.cpp - `hyperoffload calibrate` --------------------===//

#include "CalibrateCommand.h"

#include "ComparisonArgs.h"

#include "hyperoffload/Execution/Calibration.h"
#include "hyperoffload/Execution/JitFunction.h"
#include "hyperoffload/InputGuards.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
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
  std::string like;
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
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
  OwningOpRef<ModuleOp> program;
  if (!args.like.empty()) {
    program = parseInputFile(args.like, sourceMgr, context.get());
    if (!program)
      return 1;
    options.program = *program;
    options.programName = llvm::sys::path::filename(args.like).str();
  }
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
  command
      ->add_option("--like", args->like,
                   "A program in linalg on tensors: each element type's peak "
                   "FLOP/s is then what its compute-bound ops achieve here, "
                   "each compiled alone as `run` compiles it, rather than the "
                   "square matmul's")
      ->check(CLI::ExistingFile);
  command->callback(
      [args, &action] { action = [args] { return calibrateMachine(*args); }; });
}
