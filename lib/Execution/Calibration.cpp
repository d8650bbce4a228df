//===- Calibration.cpp - This machine measured as a hardware model --------===//
//
// Each figure is the median of several timed runs after one untimed one:
//   - peak FLOP/s per element type: a square linalg.matmul compiled by
//     JitFunction as `hyperoffload run` compiles programs, 2 n^3 FLOPs per
//     call (fp8 takes the bf16 figure: the lowering has no faster path);
//   - memory bandwidth: a large memcpy, counted as its reads plus writes,
//     as the cost model counts an op's bytes;
//   - with a program given, the peak of each element type its compute-bound
//     linalg ops use: their FLOPs over their time, each op compiled alone
//     (a program's matmuls can run at half or twice the square one's rate);
//   - launch overhead: what one more tiny op costs in compiled code;
//   - each link: the threaded runtime's prefetch and offload of a large
//     copy (bandwidth) and of a small one (what it takes beyond its bytes
//     is the latency), on one queue per direction as the runtime has.
// Contention between copies and compute is not measured (0).
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Execution/Calibration.h"

#include "KernelTiming.h"
#include "ProgramPeaks.h"

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace mlir::ho;

static llvm::Expected<double> measureMatmulFlops(MLIRContext &context,
                                                 llvm::StringRef element,
                                                 int64_t n,
                                                 unsigned repetitions) {
  std::string type = llvm::formatv("tensor<{0}x{0}x{1}>", n, element).str();
  std::string source = llvm::formatv(R"mlir(
func.func @kernel(%a: {0}, %b: {0}) -> {0} {
  %zero = arith.constant 0.0 : {1}
  %empty = tensor.empty() : {0}
  %init = linalg.fill ins(%zero : {1}) outs(%empty : {0}) -> {0}
  %c = linalg.matmul ins(%a, %b : {0}, {0}) outs(%init : {0}) -> {0}
  return %c : {0}
}
)mlir",
                                     type, element)
                           .str();
  llvm::Expected<CompiledKernel> kernel = compileKernel(context, source);
  if (!kernel)
    return kernel.takeError();
  llvm::Expected<double> seconds = timeKernel(*kernel, repetitions);
  if (!seconds)
    return seconds.takeError();
  return 2.0 * double(n) * double(n) * double(n) / *seconds;
}

/// What one more op costs in compiled code: the launch overhead the
/// simulator charges per kernel. A call runs all of a function's ops
/// inline, so this is the difference between a chain of 17 tiny ops and
/// one, per op (the call itself, its argument copies and results, are paid
/// once a step, not per op).
static llvm::Expected<double> measureLaunchOverhead(MLIRContext &context,
                                                    unsigned repetitions) {
  auto chain = [](unsigned ops) {
    std::string body;
    for (unsigned i = 1; i <= ops; ++i)
      body +=
          llvm::formatv("  %v{0} = arith.addf %v{1}, %v{1} : tensor<1xf32>\n",
                        i, i - 1)
              .str();
    return llvm::formatv(
               "func.func @kernel(%v0: tensor<1xf32>) -> "
               "tensor<1xf32> {\n{0}  return %v{1} : tensor<1xf32>\n}\n",
               body, ops)
        .str();
  };
  constexpr unsigned kOps = 17;
  const unsigned counts[] = {1, kOps};
  double seconds[2];
  for (unsigned index = 0; index < 2; ++index) {
    llvm::Expected<CompiledKernel> kernel =
        compileKernel(context, chain(counts[index]));
    if (!kernel)
      return kernel.takeError();
    llvm::Expected<double> time = timeKernel(*kernel, repetitions);
    if (!time)
      return time.takeError();
    seconds[index] = *time;
  }
  return std::max(0.0, (seconds[1] - seconds[0]) / (kOps - 1));
}

static double measureMemoryBandwidth(int64_t bytes, unsigned repetitions) {
  std::vector<int8_t> from(bytes, 1), to(bytes, 0);
  double seconds = medianSeconds(
      repetitions, [&] { std::memcpy(to.data(), from.data(), bytes); });
  return 2.0 * double(bytes) / seconds;
}

namespace {
/// What the runtime's copies of one size take, each way.
struct CopyTimes {
  double toDevice = 0;
  double fromDevice = 0;
};
} // namespace

static CopyTimes timeRuntimeCopies(int64_t bytes, unsigned repetitions) {
  ThreadedRuntime::Options options;
  options.arenaBytes = bytes;
  options.checkIntegrity = false;
  ThreadedRuntime runtime(options);
  std::vector<int8_t> data(bytes, 1);
  ho_remote_t source = runtime.createCopy(/*tier=*/0, data);
  CopyTimes times;
  times.toDevice = medianSeconds(repetitions, [&] {
    runtime.eventWait(
        runtime.prefetchStart(/*tier=*/0, /*queue=*/0, source, 0, bytes));
  });
  times.fromDevice = medianSeconds(repetitions, [&] {
    runtime.offloadWait(
        runtime.offloadStart(/*tier=*/0, /*queue=*/1, 0, bytes));
  });
  runtime.synchronize();
  return times;
}

llvm::Expected<Target> ho::calibrate(MLIRContext &context,
                                     const CalibrationOptions &options) {
  Target target = options.base;
  target.name = "calibrated";
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  target.description =
      llvm::formatv("this machine ({0} cores), measured by `hyperoffload "
                    "calibrate` from {1}",
                    cores, options.base.name)
          .str();
  unsigned repetitions = options.repetitions;
  DeviceModel &device = target.device;

  llvm::Expected<double> f32 =
      measureMatmulFlops(context, "f32", options.matmulSize, repetitions);
  if (!f32)
    return f32.takeError();
  llvm::Expected<double> bf16 =
      measureMatmulFlops(context, "bf16", options.matmulSize, repetitions);
  if (!bf16)
    return bf16.takeError();
  llvm::Expected<double> launch = measureLaunchOverhead(context, repetitions);
  if (!launch)
    return launch.takeError();
  device.peakFlopsF32 = *f32;
  device.peakFlopsBF16 = *bf16;
  device.peakFlopsFP8 = *bf16;
  device.launchOverhead = *launch;
  device.hbmBandwidth =
      measureMemoryBandwidth(options.largeCopyBytes, repetitions);
  // Which of the program's ops are compute-bound depends on the peaks and
  // the bandwidth measured above.
  if (options.program) {
    llvm::Expected<std::string> measured =
        measureProgramPeaks(options.program, target, repetitions);
    if (!measured)
      return measured.takeError();
    target.description += llvm::formatv("; peak FLOP/s of {0}'s compute-"
                                        "bound ops as compiled alone: {1}",
                                        options.programName, *measured);
  }
  device.hbmCapacity =
      int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGESIZE));

  CopyTimes large = timeRuntimeCopies(options.largeCopyBytes, repetitions);
  CopyTimes small = timeRuntimeCopies(options.smallCopyBytes, repetitions);
  double toDevice = double(options.largeCopyBytes) / large.toDevice;
  double fromDevice = double(options.largeCopyBytes) / large.fromDevice;
  double latency = std::max(
      0.0, std::min(small.toDevice - options.smallCopyBytes / toDevice,
                    small.fromDevice - options.smallCopyBytes / fromDevice));
  for (std::optional<LinkModel> &link : target.links) {
    if (!link)
      continue;
    link->bandwidthToDevice = toDevice;
    link->bandwidthFromDevice = fromDevice;
    link->latency = latency;
    link->queuesPerDirection = 1;
    link->hbmContention = 0;
  }
  return target;
}
