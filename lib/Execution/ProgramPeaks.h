//===- ProgramPeaks.h - A program's kernels' peak FLOP/s --------*- C++ -*-===//
//
// The simulator prices every op of one element type at one peak FLOP/s;
// compiled loops reach it for some shapes and miss it for others. This
// measures the peak where one program runs: its compute-bound linalg ops,
// each compiled alone as `hyperoffload run` compiles it.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_EXECUTION_PROGRAMPEAKS_H
#define HYPEROFFLOAD_LIB_EXECUTION_PROGRAMPEAKS_H

#include "hyperoffload/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
namespace ho {

/// Sets the peak FLOP/s of each element-type class that `program`'s
/// compute-bound linalg ops use (compute-bound as `target` prices them) to
/// what those ops achieve, each compiled alone: their FLOPs over their
/// time, summed over the program's ops. Returns what was measured, in
/// words ("f32 from 2 ops in 2 kernels").
llvm::Expected<std::string>
measureProgramPeaks(ModuleOp program, Target &target, unsigned repetitions);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_EXECUTION_PROGRAMPEAKS_H
