//===- Admission.h - How many sequences vLLM runs at once -------*- C++ -*-===//
//
// vLLM does not offload inside a forward pass when its KV blocks run out:
// its scheduler admits only the requests whose blocks fit the pool beside
// the weights and the activations, and preempts the others (V1 frees their
// blocks and recomputes them later). For a decode step of `batch`
// sequences, that is the largest batch whose paged run keeps every KV
// block on the device; it is scored as tokens per second, against plans
// that run the whole batch with offload. docs/Compare.md, "Admission".
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_ADMISSION_H
#define HYPEROFFLOAD_COMPARE_ADMISSION_H

#include "hyperoffload/Simulation/Simulator.h"
#include "hyperoffload/Workloads/Workloads.h"

namespace mlir {
namespace ho {

struct Admission {
  /// The sequences asked for, and those vLLM runs at once: 0 when not even
  /// one fits (vLLM refuses to start: its weights, or one sequence's
  /// blocks, do not fit).
  int64_t requested = 0;
  int64_t admitted = 0;
  /// The step of the admitted batch, no block offloaded (the mean over
  /// drawn steps for a graph with run-time selections), and the tokens it
  /// generates per second.
  double stepTime = 0;
  double tokensPerSecond = 0;
};

/// Builds the decode step `workload` at every batch from its own down to 1
/// and keeps the largest whose paged run (vLLM's PagedAttention runtime,
/// `ExecutionMode::Paged`) fits `simulation.budget` with every KV block on
/// the device. `routingSteps` steps are drawn for graphs with run-time
/// selections. Fails with an error when a graph cannot be built or
/// simulated.
FailureOr<Admission> admitBatch(MLIRContext &context,
                                const workloads::WorkloadOptions &workload,
                                const Target &target,
                                SimulationOptions simulation,
                                unsigned routingSteps);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_ADMISSION_H
