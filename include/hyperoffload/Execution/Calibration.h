//===- Calibration.h - This machine as a hardware model ---------*- C++ -*-===//
//
// `hyperoffload run` executes a plan on this machine's CPUs, but the
// simulator prices it on the `--hw` device. Calibration measures what the
// simulator needs to price it here instead: the FLOP/s of a matmul as the
// execution path lowers and compiles it, the memory bandwidth of a large
// copy, the time of a call into compiled code, and the bandwidth and
// per-copy latency of the threaded runtime's copies. The result is a
// Target that the simulator takes like any hardware file.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_EXECUTION_CALIBRATION_H
#define HYPEROFFLOAD_EXECUTION_CALIBRATION_H

#include "hyperoffload/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

namespace mlir {
class MLIRContext;

namespace ho {

struct CalibrationOptions {
  /// The model whose links (which tiers exist) and other figures the
  /// measured ones replace.
  Target base;
  /// Timed runs of each measurement; each figure is their median.
  unsigned repetitions = 5;
  /// The square matmul measured, per side.
  int64_t matmulSize = 256;
  /// A program in linalg on tensors (may be null): the peak FLOP/s of each
  /// element type its compute-bound ops use is then what those ops achieve
  /// on this machine rather than the square matmul's. The simulator prices
  /// all matmuls of a type at one figure, which compiled loops reach or
  /// miss depending on their shapes; measured on the program's own shapes,
  /// a comparison of simulated and measured steps is about the schedule.
  ModuleOp program;
  /// What the description calls `program`.
  std::string programName;
  /// The bytes of the large copies (bandwidth) and the small ones (latency).
  int64_t largeCopyBytes = int64_t(64) << 20;
  int64_t smallCopyBytes = int64_t(4) << 10;
};

/// Measures this machine; `base` with its device figures and every link it
/// has replaced by what was measured, named "calibrated".
llvm::Expected<Target> calibrate(MLIRContext &context,
                                 const CalibrationOptions &options);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_EXECUTION_CALIBRATION_H
