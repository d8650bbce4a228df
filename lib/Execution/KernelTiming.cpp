//===- KernelTiming.cpp - Compiled kernels timed on this machine ----------===//

#include "KernelTiming.h"

#include "hyperoffload/Execution/PlanExecution.h"

#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::ho;

using Clock = std::chrono::steady_clock;

double ho::medianSeconds(unsigned repetitions,
                         const std::function<void()> &work) {
  work();
  std::vector<double> seconds;
  for (unsigned i = 0; i < std::max(1u, repetitions); ++i) {
    Clock::time_point start = Clock::now();
    work();
    seconds.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  return getMedian(std::move(seconds));
}

llvm::Expected<CompiledKernel> ho::compileKernel(ModuleOp module) {
  FailureOr<std::unique_ptr<JitFunction>> function =
      JitFunction::compile(module, "kernel", JitFunction::Options());
  if (failed(function))
    return llvm::createStringError("calibration: a kernel does not compile");
  CompiledKernel kernel;
  kernel.inputs = makeInputs((*function)->getArguments(), /*seed=*/1);
  kernel.function = std::move(*function);
  return kernel;
}

llvm::Expected<CompiledKernel> ho::compileKernel(MLIRContext &context,
                                                 llvm::StringRef source) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return llvm::createStringError("calibration: a kernel does not parse");
  return compileKernel(*module);
}

llvm::Expected<double> ho::timeKernel(const CompiledKernel &kernel,
                                      unsigned repetitions) {
  llvm::Error error = llvm::Error::success();
  double seconds = medianSeconds(repetitions, [&] {
    auto outputs = kernel.function->run(kernel.inputs, /*runtime=*/nullptr);
    if (!outputs)
      error = llvm::joinErrors(std::move(error), outputs.takeError());
  });
  if (error)
    return std::move(error);
  return seconds;
}
