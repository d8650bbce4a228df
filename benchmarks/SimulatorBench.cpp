//===- SimulatorBench.cpp - How fast the measuring instrument is ----------===//
//
// Times buffer liveness and the simulator on a generated 100k-op function,
// next to parsing the same IR, so that results read as ratios that hold
// across machines:
//
//   build/bin/hyperoffload-bench --benchmark_counters_tabular=true
//
// BM_Pipeline and BM_ParsePrint time the --hyperoffload pipeline and
// hyperoffload-opt's own parse and print from 10k to 1M ops;
// utils/pipeline-scaling.py runs them and fits how they scale.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Simulation/Simulator.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "benchmark/benchmark.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
constexpr int kGroups = 20000; // five ops each: 100k ops

/// A chain of layers that each prefetch a 2 MiB weight, compute while it is
/// in flight, use it, and offload their activation. With `planned` false,
/// the weights are 16 plain device arguments used in turn and no transfer is
/// written, the input a reactive runtime gets. Either way five ops a layer.
std::string generateIR(bool planned, int groups = kGroups) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  const char *weight = "tensor<1024x1024xbf16>";
  const char *act = "tensor<64x1024xbf16>";
  os << "func.func @bench(%x: " << act;
  if (planned)
    os << ", %r: !ho.remote<" << weight << ">";
  else
    for (int i = 0; i < 16; ++i)
      os << ", %w" << i << ": " << weight;
  os << ") {\n";
  std::string prev = "%x";
  for (int i = 0; i < groups; ++i) {
    std::string w =
        planned ? "%t" + std::to_string(i) : "%w" + std::to_string(i % 16);
    if (planned)
      os << "  %f" << i << " = ho.prefetch %r : !ho.remote<" << weight
         << "> -> !ho.future<" << weight << ">\n";
    os << "  %n" << i << " = ho.compute \"rmsnorm\"(" << prev << ") : (" << act
       << ") -> " << act << "\n";
    if (planned)
      os << "  %t" << i << " = ho.await %f" << i << " : !ho.future<" << weight
         << "> -> " << weight << "\n";
    os << "  %y" << i << " = ho.compute \"matmul\"(%n" << i << ", " << w
       << ") : (" << act << ", " << weight << ") -> " << act << "\n";
    if (planned)
      os << "  %o" << i << " = ho.offload %y" << i << " : " << act
         << " -> !ho.remote<" << act << ">\n";
    else
      os << "  %z" << i << " = ho.compute \"silu\"(%y" << i << ") : (" << act
         << ") -> " << act << "\n"
         << "  %s" << i << " = ho.compute \"scale\"(%z" << i << ") : (" << act
         << ") -> " << act << "\n"
         << "  %a" << i << " = ho.compute \"add\"(%s" << i << ", " << prev
         << ") : (" << act << ", " << act << ") -> " << act << "\n";
    prev = (planned ? "%y" : "%a") + std::to_string(i);
  }
  os << "  return\n}\n";
  return ir;
}

struct Fixture {
  explicit Fixture(bool planned) : text(generateIR(planned)) {
    context.loadDialect<ho::HODialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      llvm::report_fatal_error("benchmark IR does not parse");
    target = cantFail(ho::getTargetPreset("ascend910c-supernode"));
  }
  Block &body() {
    return (*module->getOps<func::FuncOp>().begin()).getBody().front();
  }

  std::string text;
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  ho::Target target;
};

Fixture &planned() {
  static Fixture fixture(/*planned=*/true);
  return fixture;
}
Fixture &unplanned() {
  static Fixture fixture(/*planned=*/false);
  return fixture;
}

void setOps(benchmark::State &state, Fixture &fixture) {
  state.counters["ops"] = fixture.body().getOperations().size();
}

void BM_Parse(benchmark::State &state) {
  Fixture &fixture = planned();
  for (auto _ : state) {
    MLIRContext context;
    context.loadDialect<ho::HODialect, func::FuncDialect>();
    benchmark::DoNotOptimize(
        parseSourceString<ModuleOp>(fixture.text, &context));
  }
  setOps(state, fixture);
}

void BM_BufferLiveness(benchmark::State &state) {
  Fixture &fixture = planned();
  for (auto _ : state)
    benchmark::DoNotOptimize(ho::BufferLiveness(fixture.body(), 512));
  setOps(state, fixture);
}

void simulate(benchmark::State &state, Fixture &fixture,
              ho::SimulationOptions options) {
  for (auto _ : state) {
    FailureOr<ho::SimulationResult> result =
        ho::simulate(fixture.body(), fixture.target, options);
    if (failed(result))
      state.SkipWithError("simulation failed");
    benchmark::DoNotOptimize(result);
  }
  setOps(state, fixture);
}

void BM_SimulateAsWritten(benchmark::State &state) {
  ho::SimulationOptions options;
  options.recordTimeline = state.range(0);
  simulate(state, planned(), options);
}

void BM_SimulateReactive(benchmark::State &state) {
  ho::SimulationOptions options;
  options.mode = ho::ExecutionMode::Reactive;
  // Room for a few weights only, so that the runtime evicts all the time.
  options.budget = int64_t(12) << 20;
  options.recordTimeline = state.range(0);
  simulate(state, unplanned(), options);
}
} // namespace

/// The sizes of the scaling benchmarks, in ops.
void addScalingSizes(benchmark::internal::Benchmark *benchmark) {
  benchmark->ArgName("ops")->Unit(benchmark::kMillisecond);
  for (int ops : {10000, 30000, 100000, 300000, 1000000})
    benchmark->Arg(ops);
}

/// The whole --hyperoffload pipeline on the unplanned chain, at a budget
/// of 3/4 of its peak, for growing sizes: how planning scales.
void BM_Pipeline(benchmark::State &state) {
  int groups = state.range(0) / 5;
  std::string text = generateIR(/*planned=*/false, groups);
  MLIRContext context;
  context.loadDialect<ho::HODialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> probe = parseSourceString<ModuleOp>(text, &context);
  Block &body = (*probe->getOps<func::FuncOp>().begin()).getBody().front();
  int64_t peak = ho::BufferLiveness(body, 512).getPeakBytes();
  probe = nullptr;

  ho::HyperOffloadPipelineOptions options;
  options.budget = std::to_string(peak / 4 * 3) + "B";
  for (auto _ : state) {
    state.PauseTiming();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    PassManager pm(&context);
    ho::buildHyperOffloadPipeline(pm, options);
    state.ResumeTiming();
    if (failed(pm.run(*module)))
      state.SkipWithError("the pipeline failed");
    // Freeing the module is not part of the pipeline.
    state.PauseTiming();
    module = nullptr;
    state.ResumeTiming();
  }
  state.counters["ops"] = groups * 5;
}

/// What the pipeline is compared with: what hyperoffload-opt does without
/// it, parsing the same chain and printing it back.
void BM_ParsePrint(benchmark::State &state) {
  int groups = state.range(0) / 5;
  std::string text = generateIR(/*planned=*/false, groups);
  for (auto _ : state) {
    MLIRContext context;
    context.loadDialect<ho::HODialect, func::FuncDialect>();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      state.SkipWithError("the chain does not parse");
    else
      module->print(llvm::nulls());
  }
  state.counters["ops"] = groups * 5;
}

BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pipeline)->Apply(addScalingSizes);
BENCHMARK(BM_ParsePrint)->Apply(addScalingSizes);
BENCHMARK(BM_BufferLiveness)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateAsWritten)
    ->ArgName("timeline")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateReactive)
    ->ArgName("timeline")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
