//===- KernelTiming.h - Compiled kernels timed on this machine -*- C++ -*-===//
//
// What calibration measures with: a function compiled as `hyperoffload run`
// compiles programs, generated inputs for it, and the median time of its
// calls.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_EXECUTION_KERNELTIMING_H
#define HYPEROFFLOAD_LIB_EXECUTION_KERNELTIMING_H

#include "hyperoffload/Execution/JitFunction.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <vector>

namespace mlir {
namespace ho {

/// The median seconds of `repetitions` calls of `work`, after one untimed.
double medianSeconds(unsigned repetitions, const std::function<void()> &work);

/// A compiled function @kernel and inputs for it.
struct CompiledKernel {
  std::unique_ptr<JitFunction> function;
  std::vector<std::vector<int8_t>> inputs;
};

/// Compiles @kernel of `module` (or of the module `source` parses to).
llvm::Expected<CompiledKernel> compileKernel(ModuleOp module);
llvm::Expected<CompiledKernel> compileKernel(MLIRContext &context,
                                             llvm::StringRef source);

/// The median seconds of one call of `kernel`.
llvm::Expected<double> timeKernel(const CompiledKernel &kernel,
                                  unsigned repetitions);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_EXECUTION_KERNELTIMING_H
