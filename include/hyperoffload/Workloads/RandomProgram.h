//===- RandomProgram.h - Random hardware and functions, seeded --*- C++ -*-===//
//
// Draws random targets and random functions of ho.compute ops for property
// tests and for the exact-optimum survey (`hyperoffload optimality`): device
// arguments (plain inputs, KV caches appended in place and returned, weights
// read once or twice), then a DAG whose operands favour recent values but
// sometimes reach far back, so that some tensors sit idle across long gaps.
// The same seed draws the same case with every standard library.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_WORKLOADS_RANDOMPROGRAM_H
#define HYPEROFFLOAD_WORKLOADS_RANDOMPROGRAM_H

#include "hyperoffload/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <random>

namespace mlir {
namespace ho {
namespace workloads {

using RandomEngine = std::mt19937_64;

/// The distributions of <random> differ between standard libraries; these
/// map the engine's bits by hand. Uniform in [low, high).
double uniformReal(RandomEngine &rng, double low, double high);
/// Uniform in [low, high]; the modulo bias is irrelevant at these ranges.
int64_t uniformInt(RandomEngine &rng, int64_t low, int64_t high);
/// Sizes, times and bandwidths span decades: spread them evenly in log.
double logUniform(RandomEngine &rng, double low, double high);
bool chance(RandomEngine &rng, double probability);

struct RandomTargetOptions {
  /// How many distinct tiers (each with its own link), drawn in this range.
  unsigned minTiers = 1;
  unsigned maxTiers = 3;
  /// Copy queues per link direction, drawn from 1 to this.
  unsigned maxQueues = 4;
  /// Draw each link's latency, issue overhead and HBM contention; off, they
  /// are zero.
  bool linkOverheads = true;
};

/// A device of 10-1000 TFLOP/s with 64 GiB of HBM (far above any budget
/// the functions need) and links of 1-500 GB/s to its tiers.
Target drawRandomTarget(RandomEngine &rng,
                        const RandomTargetOptions &options = {});

struct RandomFunctionOptions {
  /// Compute ops, drawn in this range (KV appends come on top).
  unsigned minOps = 5;
  unsigned maxOps = 60;
};

/// A module with one function @f of 2-D tensors of 4 KB to 32 MB, ops of
/// microseconds to milliseconds on `target`.
OwningOpRef<ModuleOp>
buildRandomFunction(MLIRContext &context, RandomEngine &rng,
                    const Target &target,
                    const RandomFunctionOptions &options = {});

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_WORKLOADS_RANDOMPROGRAM_H
