//===- RunCommand.cpp - `hyperoffload run` --------------------------------===//
//
// Plans a function (or takes a planned one and removes its transfers to
// get the program), JIT-compiles the plan and the program it came from,
// runs both on the same inputs (seeded, or read from files), and prints whether
// every result is bit-identical, what integrity checking found, and the planned
// run's measured times and traffic next to what the simulator predicts for the
// same plan on the same hardware description.
//
//===----------------------------------------------------------------------===//

#include "RunCommand.h"

#include "Table.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Execution/JitFunction.h"
#include "hyperoffload/Execution/PlanExecution.h"
#include "hyperoffload/InputGuards.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Simulation/Simulator.h"
#include "hyperoffload/Target/MemoryBudget.h"
#include "hyperoffload/Target/Target.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <iostream>
#include <map>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

namespace {
struct RunArgs {
  std::string file;
  std::string function;
  std::string hw;
  std::vector<std::string> hwOverrides;
  std::string budget;
  uint64_t seed = 1;
  unsigned repetitions = 3;
  double linkScale = 1.0;
  bool noIntegrity = false;
  bool lazyCopies = false;
  unsigned optLevel = 3;
  double computeScale = 0;
  bool reactive = false;
  std::vector<std::string> inputs;
  std::string resultsDir;
};

/// `--input N=FILE`: argument N's bytes, read from FILE.
llvm::Expected<std::map<unsigned, GivenInput>>
readGivenInputs(ArrayRef<std::string> specs) {
  std::map<unsigned, GivenInput> given;
  for (StringRef spec : specs) {
    auto [number, path] = spec.split('=');
    unsigned index = 0;
    if (path.empty() || number.getAsInteger(10, index))
      return llvm::createStringError(
          "--input '" + spec +
          "': expected ARGUMENT=FILE, ARGUMENT the argument's number from 0");
    if (given.count(index))
      return llvm::createStringError("--input '" + spec + "': argument " +
                                     number + " is given twice");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buffer)
      return llvm::createStringError("cannot read input file '" + path +
                                     "': " + buffer.getError().message());
    StringRef data = (*buffer)->getBuffer();
    given[index] = {path.str(), std::vector<int8_t>(data.begin(), data.end())};
  }
  return given;
}

/// Writes each of `results` to `directory`/result-N.bin.
llvm::Error writeResults(StringRef directory,
                         const std::vector<std::vector<int8_t>> &results) {
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError("cannot create '" + directory +
                                   "': " + error.message());
  for (auto [index, bytes] : llvm::enumerate(results)) {
    SmallString<128> path(directory);
    llvm::sys::path::append(path, "result-" + std::to_string(index) + ".bin");
    std::error_code error;
    llvm::raw_fd_ostream file(path, error);
    if (!error) {
      file.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
      file.close();
      error = file.error();
    }
    if (error)
      return llvm::createStringError("cannot write '" + path +
                                     "': " + error.message());
  }
  return llvm::Error::success();
}

/// The function to run: the one named, or the only one with a body.
FailureOr<func::FuncOp> pickFunction(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto function = module.lookupSymbol<func::FuncOp>(name);
    if (!function || function.isDeclaration()) {
      reportError("no function @" + name + " with a body in the input");
      return failure();
    }
    return function;
  }
  func::FuncOp found;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isDeclaration())
      continue;
    if (found) {
      reportError("the input has several functions; choose one with "
                  "--function");
      return failure();
    }
    found = function;
  }
  if (!found) {
    reportError("the input has no function with a body");
    return failure();
  }
  return found;
}

/// Whether `function` moves data already: a transfer, or a remote argument
/// or result.
bool hasTransfers(func::FuncOp function) {
  auto remote = [](Type type) { return isa<RemoteType>(type); };
  if (llvm::any_of(function.getArgumentTypes(), remote) ||
      llvm::any_of(function.getResultTypes(), remote))
    return true;
  return function
      .walk([](Operation *op) {
        return isa<OffloadOp, OffloadSliceOp, PrefetchOp, PrefetchRoutedOp,
                   PrefetchBlocksOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The plan of a schedule in the input (a plan, or transfers written by
/// hand): `program` itself, placed in an arena if it has none and checked;
/// `program` becomes it without its transfers, to run next to it.
LogicalResult takeSchedule(const RunArgs &args, MLIRContext *context,
                           OwningOpRef<ModuleOp> &program,
                           OwningOpRef<ModuleOp> &plan) {
  plan = std::move(program);
  bool placed = llvm::all_of(plan->getOps<func::FuncOp>(), [](auto function) {
    return function.isDeclaration() || function->hasAttr(kArenaSizeAttrName);
  });
  if (!placed) {
    PassManager pm(context);
    AssignOffsetsOptions offsets;
    offsets.hw = args.hw;
    offsets.hwOverrides.assign(args.hwOverrides.begin(),
                               args.hwOverrides.end());
    offsets.budget = args.budget;
    pm.addPass(createAssignOffsets(offsets));
    VerifyScheduleOptions verify;
    verify.hw = offsets.hw;
    verify.hwOverrides = offsets.hwOverrides;
    verify.budget = args.budget;
    pm.addPass(createVerifySchedule(verify));
    if (failed(pm.run(*plan)))
      return failure();
  }
  program = plan->clone();
  PassManager pm(context);
  pm.addPass(createStripTransfers());
  return pm.run(*program);
}

/// The plan of `program` at `--budget`, by the HyperOffload pipeline; the
/// program itself runs as written.
LogicalResult planProgram(const RunArgs &args, MLIRContext *context,
                          ModuleOp program, OwningOpRef<ModuleOp> &plan) {
  plan = program.clone();
  PassManager pm(context);
  HyperOffloadPipelineOptions pipeline;
  pipeline.hw = args.hw;
  pipeline.hwOverrides = args.hwOverrides;
  pipeline.budget = args.budget;
  buildHyperOffloadPipeline(pm, pipeline);
  return pm.run(*plan);
}

/// Makes `runtime`'s queues emulate the target's links: at `linkScale` of
/// their bandwidth, with their latency slowed alike (as fast as memory
/// copies at 0), and, with `issueScale` > 0, each copy costing the issuing
/// thread the link's issue overhead slowed `issueScale` times.
void emulateLinks(const Target &target, double linkScale, double issueScale,
                  ThreadedRuntime::Options &runtime) {
  for (unsigned tier = 0; tier < target.links.size(); ++tier) {
    const std::optional<LinkModel> &link = target.links[tier];
    if (!link)
      continue;
    for (Direction direction : {Direction::ToDevice, Direction::FromDevice}) {
      int32_t queue = 2 * tier + (direction == Direction::FromDevice);
      if (linkScale > 0) {
        runtime.queueBandwidth[queue] =
            linkScale * (direction == Direction::ToDevice
                             ? link->bandwidthToDevice
                             : link->bandwidthFromDevice);
        runtime.queueLatency[queue] = link->latency / linkScale;
      }
      if (issueScale > 0)
        runtime.queueIssueOverhead[queue] = link->issueOverhead * issueScale;
    }
  }
}

std::string formatQueue(int32_t queue) {
  static const char *const tiers[] = {"pool", "host", "disk"};
  const char *tier = queue / 2 < 3 ? tiers[queue / 2] : "?";
  return queue % 2 == 0 ? fmt::format("{} -> device", tier)
                        : fmt::format("device -> {}", tier);
}

int run(const RunArgs &args) {
  llvm::Expected<std::map<unsigned, GivenInput>> givenInputs =
      readGivenInputs(args.inputs);
  if (!givenInputs)
    return reportError(givenInputs.takeError());
  std::unique_ptr<MLIRContext> context = createContext();
  DialectRegistry registry;
  registerExecutionDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
  OwningOpRef<ModuleOp> program =
      ho::parseInputFile(args.file, sourceMgr, context.get());
  if (!program)
    return 1;
  FailureOr<func::FuncOp> chosen = pickFunction(*program, args.function);
  if (failed(chosen))
    return 1;
  std::string name = chosen->getName().str();
  bool scheduled =
      (*chosen)->hasAttr(kArenaSizeAttrName) || hasTransfers(*chosen);

  llvm::Expected<Target> target = loadTarget(args.hw);
  if (!target)
    return reportError(target.takeError());
  for (const std::string &assignment : args.hwOverrides)
    if (llvm::Error error = applyTargetOverride(*target, assignment))
      return reportError(std::move(error));
  if (args.budget.empty() && !scheduled)
    return reportError("@" + name +
                       " is not planned yet; give --budget to plan it");

  OwningOpRef<ModuleOp> plan;
  if (failed(scheduled ? takeSchedule(args, context.get(), program, plan)
                       : planProgram(args, context.get(), *program, plan)))
    return 1;
  auto plannedFunction = plan->lookupSymbol<func::FuncOp>(name);
  // A schedule's budget is its arena unless one is given.
  std::string budgetText =
      args.budget.empty()
          ? std::to_string(
                plannedFunction->getAttrOfType<IntegerAttr>(kArenaSizeAttrName)
                    .getInt()) +
                "B"
          : args.budget;
  llvm::Expected<int64_t> budget =
      parseMemoryBudget(budgetText, target->device.hbmCapacity);
  if (!budget)
    return reportError(budget.takeError());
  SimulationOptions simulation;
  simulation.allocator = AllocatorKind::Static;
  simulation.budget = *budget;
  simulation.recordTimeline = false;
  FailureOr<SimulationResult> predicted =
      simulate(plannedFunction.getBody().front(), *target, simulation);
  if (failed(predicted))
    return 1;
  // The program as the unplanned run has it, every tensor on the device
  // and no offsets (the `none` policy): the plan's cost over it, simulated and
  // measured, does not depend on how fast this machine computes at the moment.
  SimulationOptions unplannedSimulation = simulation;
  unplannedSimulation.allocator = AllocatorKind::Caching;
  unplannedSimulation.budget = 0;
  FailureOr<SimulationResult> unplannedPredicted =
      simulate(program->lookupSymbol<func::FuncOp>(name).getBody().front(),
               *target, unplannedSimulation);
  if (failed(unplannedPredicted))
    return 1;

  // The reactive runtime's moves, written as blocking transfers, run on the
  // same runtime and links as the plan.
  OwningOpRef<ModuleOp> replay;
  FailureOr<SimulationResult> reactivePredicted = failure();
  if (args.reactive) {
    replay = program->clone();
    PassManager replayPm(context.get());
    ReplayReactiveOptions replayOptions;
    replayOptions.hw = args.hw;
    replayOptions.hwOverrides.assign(args.hwOverrides.begin(),
                                     args.hwOverrides.end());
    replayOptions.budget = budgetText;
    // As compare scores it: on both runtime allocators, the run that fits
    // and is faster kept (the shipped caching allocator on a tie).
    Block &body = program->lookupSymbol<func::FuncOp>(name).getBody().front();
    for (AllocatorKind allocator :
         {AllocatorKind::Caching, AllocatorKind::Expandable}) {
      SimulationOptions reactive;
      reactive.mode = ExecutionMode::Reactive;
      reactive.allocator = allocator;
      reactive.budget = *budget;
      reactive.recordTimeline = false;
      FailureOr<SimulationResult> run = simulate(body, *target, reactive);
      if (failed(run))
        return 1;
      bool better =
          failed(reactivePredicted) ||
          (reactivePredicted->outOfMemory && !run->outOfMemory) ||
          (!run->outOfMemory && run->stepTime < reactivePredicted->stepTime);
      if (better) {
        reactivePredicted = std::move(run);
        replayOptions.allocator = allocator;
      }
    }
    replayPm.addPass(createReplayReactive(replayOptions));
    AssignOffsetsOptions offsets;
    offsets.hw = args.hw;
    offsets.hwOverrides = replayOptions.hwOverrides;
    replayPm.addPass(createAssignOffsets(offsets));
    if (failed(replayPm.run(*replay)))
      return 1;
  }

  JitFunction::Options jitOptions;
  jitOptions.checkIntegrity = !args.noIntegrity;
  jitOptions.optLevel = args.optLevel;
  jitOptions.computeTimeScale = args.computeScale;
  jitOptions.hw = args.hw;
  jitOptions.hwOverrides = args.hwOverrides;
  FailureOr<std::unique_ptr<JitFunction>> unplanned =
      JitFunction::compile(*program, name, jitOptions);
  if (failed(unplanned))
    return 1;
  FailureOr<std::unique_ptr<JitFunction>> planned =
      JitFunction::compile(*plan, name, jitOptions);
  if (failed(planned))
    return 1;

  // With modelled compute times scaled, the simulated times scale too.
  double timeScale = args.computeScale > 0 ? args.computeScale : 1.0;
  ExecutionOptions options;
  options.seed = args.seed;
  options.givenInputs = std::move(*givenInputs);
  options.repetitions = args.repetitions;
  options.runtime.checkIntegrity = !args.noIntegrity;
  options.runtime.copyOnlyWhenWaited = args.lazyCopies;
  emulateLinks(*target, args.linkScale, /*issueScale=*/0, options.runtime);
  llvm::Expected<ExecutionComparison> measured =
      compareWithUnplanned(**unplanned, **planned, options);
  if (!measured)
    return reportError(measured.takeError());
  if (!args.resultsDir.empty())
    if (llvm::Error error =
            writeResults(args.resultsDir, measured->programResults))
      return reportError(std::move(error));
  std::optional<ExecutionComparison> reactiveMeasured;
  if (replay) {
    FailureOr<std::unique_ptr<JitFunction>> replayed =
        JitFunction::compile(*replay, name, jitOptions);
    if (failed(replayed))
      return 1;
    // The runtime decides each transfer as it goes and pays the links'
    // per-transfer issue cost on the compute thread, as the simulator
    // charges it; the compiled plan does not.
    ExecutionOptions reactiveOptions = options;
    emulateLinks(*target, args.linkScale, timeScale, reactiveOptions.runtime);
    llvm::Expected<ExecutionComparison> run =
        compareWithUnplanned(**unplanned, **replayed, reactiveOptions);
    if (!run)
      return reportError(run.takeError());
    reactiveMeasured = std::move(*run);
  }

  std::cout << fmt::format("@{} on {} at a budget of {}: arena {}, seed {}\n",
                           name, target->name, formatBytes(*budget),
                           formatBytes(measured->arenaBytes), args.seed);
  unsigned identical = 0;
  for (auto [index, result] : llvm::enumerate(measured->results)) {
    if (result.differingBytes == 0) {
      ++identical;
      continue;
    }
    std::cout << fmt::format("result {}: {} of {} bytes differ, the first at "
                             "byte {}\n",
                             index, result.differingBytes, result.bytes,
                             result.firstDifference);
  }
  std::cout << fmt::format("results: {} of {} bit-identical to the unplanned "
                           "program\n",
                           identical, measured->results.size());
  if (args.noIntegrity)
    std::cout << "integrity: not checked\n";
  else if (measured->integrityErrors.empty())
    std::cout << "integrity: every arena read saw current data\n";
  else
    for (const std::string &error : measured->integrityErrors)
      std::cout << "integrity: " << error << "\n";

  std::string simulatedHeader =
      args.computeScale > 0 ? fmt::format("simulated x {}", args.computeScale)
                            : std::string("simulated");
  // With --repeat 0 both programs run once, untimed: results and traffic
  // are checked, times are not measured.
  bool timed = args.repetitions > 0;
  auto measuredTime = [&](double seconds) {
    return timed ? formatSeconds(seconds) : std::string("not timed");
  };
  auto measuredRatio = [&](double numerator, double denominator, int digits) {
    return timed ? fmt::format("{:.{}f}x", numerator / denominator, digits)
                 : std::string("not timed");
  };
  Table table({{""},
               {simulatedHeader, Table::Align::Right},
               {"measured", Table::Align::Right}});
  table.addRow({"step time", formatSeconds(predicted->stepTime * timeScale),
                measuredTime(measured->plannedSeconds)});
  table.addRow({"stall time", formatSeconds(predicted->stallTime * timeScale),
                measuredTime(measured->stallSeconds)});
  for (const auto &[queue, stats] : measured->queues) {
    const LinkTraffic &traffic = predicted->getTraffic(
        static_cast<MemoryTier>(queue / 2),
        queue % 2 == 0 ? Direction::ToDevice : Direction::FromDevice);
    table.addRow({formatQueue(queue), formatBytes(traffic.bytes),
                  formatBytes(stats.bytes)});
  }
  table.addRow({"unplanned step time",
                formatSeconds(unplannedPredicted->stepTime * timeScale),
                measuredTime(measured->unplannedSeconds)});
  table.addRow(
      {"planned / unplanned",
       fmt::format("{:.3f}x",
                   predicted->stepTime / unplannedPredicted->stepTime),
       measuredRatio(measured->plannedSeconds, measured->unplannedSeconds, 3)});
  bool clean = measured->isIdentical() && measured->integrityErrors.empty();
  if (reactiveMeasured) {
    table.addRow({"reactive step time",
                  formatSeconds(reactivePredicted->stepTime * timeScale),
                  measuredTime(reactiveMeasured->plannedSeconds)});
    table.addRow({"reactive stall time",
                  formatSeconds(reactivePredicted->stallTime * timeScale),
                  measuredTime(reactiveMeasured->stallSeconds)});
    // The allocator's cache releases and page remaps are host time the
    // replay does not execute.
    table.addRow(
        {"reactive allocator stalls",
         formatSeconds(reactivePredicted->allocatorStallTime * timeScale),
         "not replayed"});
    table.addRow({"reactive / planned",
                  fmt::format("{:.2f}x", reactivePredicted->stepTime /
                                             predicted->stepTime),
                  measuredRatio(reactiveMeasured->plannedSeconds,
                                measured->plannedSeconds, 2)});
    clean &= reactiveMeasured->isIdentical() &&
             reactiveMeasured->integrityErrors.empty();
  }
  std::cout.flush();
  table.print(stdout);
  if (reactiveMeasured) {
    size_t same = llvm::count_if(reactiveMeasured->results,
                                 [](const ResultComparison &result) {
                                   return result.differingBytes == 0;
                                 });
    std::cout << fmt::format(
        "reactive (its moves replayed as blocking copies): {} of {} results "
        "bit-identical, {}\n",
        same, reactiveMeasured->results.size(),
        reactiveMeasured->integrityErrors.empty()
            ? "integrity clean"
            : fmt::format("{} integrity reports, the first: {}",
                          reactiveMeasured->integrityErrors.size(),
                          reactiveMeasured->integrityErrors.front()));
  }
  return clean ? 0 : 1;
}
} // namespace

void mlir::ho::cli::addRunCommand(CLI::App &app, Action &action) {
  auto args = std::make_shared<RunArgs>();
  args->hw = getTargetPresetNames().front().str();
  CLI::App *command = app.add_subcommand(
      "run", "Plan a function, run the plan and the program on this "
             "machine, and compare");
  command
      ->add_option("FILE", args->file,
                   "An MLIR file of linalg on tensors or ho.compute, "
                   "planned (its arena set) or not")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--function", args->function,
                      "The function to run (default: the only one)");
  command->add_option("--hw", args->hw, "Hardware preset or JSON file")
      ->capture_default_str();
  command->add_option("--hw-set", args->hwOverrides,
                      "Override a hardware field (path=value)");
  command->add_option("--budget", args->budget,
                      "Device memory the plan must fit in (default for a "
                      "planned file: its arena)");
  command->add_option("--seed", args->seed, "Seed of the generated inputs")
      ->capture_default_str();
  command->add_option(
      "--input", args->inputs,
      "ARGUMENT=FILE: argument number ARGUMENT (from 0) read from FILE, "
      "its elements' bytes as the program keeps them in memory (row-major, "
      "little-endian, as numpy's tofile writes); the others are generated");
  command->add_option("--write-results", args->resultsDir,
                      "Write the program's results to DIR/result-N.bin, in "
                      "the layout --input reads");
  command
      ->add_option("--repeat", args->repetitions,
                   "Timed runs of each program (after one untimed); 0 "
                   "checks results and traffic without timing")
      ->capture_default_str();
  command
      ->add_option("--link-scale", args->linkScale,
                   "Emulate the links at this fraction of their bandwidth "
                   "(0: copy as fast as memory)")
      ->capture_default_str();
  command->add_flag("--no-integrity", args->noIntegrity,
                    "Do not check arena reads and writes");
  command->add_flag("--lazy-copies", args->lazyCopies,
                    "Start each copy only when a wait needs it: the slowest "
                    "links a plan must tolerate");
  command
      ->add_option("--compute-scale", args->computeScale,
                   "Abstract ho.compute: each kernel takes at least this many "
                   "times its modelled time on --hw (0: its loops' time); "
                   "with --link-scale 1/S the run is the modelled step "
                   "slowed S times, and the simulated column is scaled so")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_flag("--reactive", args->reactive,
                    "Also run the reactive runtime at the same budget: its "
                    "moves (ho-replay-reactive) as blocking copies on the "
                    "same runtime and links");
  command
      ->add_option("--opt-level", args->optLevel,
                   "LLVM optimization level of the compiled code; 1 compiles "
                   "large generated graphs many times faster")
      ->check(CLI::Range(0u, 3u))
      ->capture_default_str();
  command->callback(
      [args, &action] { action = [args] { return run(*args); }; });
}
