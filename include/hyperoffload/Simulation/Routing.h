//===- Routing.h - Expert routing drawn at simulation time ------*- C++ -*-===//
//
// Which experts a router picks is known only when the step runs, so the
// simulator draws it: from a seeded distribution (uniform, or Zipf-skewed
// towards a few popular experts per layer) or from a trace of real routing
// decisions. An early prediction of the picks (what ho.prefetch_routed may
// be issued on) is drawn from the picks with a given accuracy. The same
// options always give the same picks. docs/CostModel.md describes the
// models and the trace format.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_ROUTING_H
#define HYPEROFFLOAD_SIMULATION_ROUTING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// Recorded picks: `steps[s][l][t]` are the global expert ids token `t` of
/// the `l`-th routed op (in block order) picked in step `s`; `blocks[s][g]
/// [r]` the block indices row `r` of the `g`-th ho.gather_blocks op picked.
/// Either may be empty (not recorded).
struct RoutingTrace {
  using Selections =
      std::vector<std::vector<std::vector<llvm::SmallVector<int64_t, 8>>>>;
  std::string path;
  Selections steps;
  Selections blocks;
};

/// Reads a trace file (JSON: `{"steps": [[[[ids...] per token] per routed
/// op] per step], "blocks": [[[[ids...] per row] per gather] per step]}`,
/// either or both); an error names the file and the field that is wrong.
llvm::Expected<std::shared_ptr<const RoutingTrace>>
loadRoutingTrace(llvm::StringRef path);
/// The same, from the text of a file called `path`.
llvm::Expected<std::shared_ptr<const RoutingTrace>>
parseRoutingTrace(llvm::StringRef text, llvm::StringRef path);

enum class RoutingDistribution {
  /// Every token picks its top-k uniformly among all experts.
  Uniform,
  /// Expert popularity falls as 1 / rank^exponent, with a seeded ranking
  /// per layer that stays the same from step to step.
  Zipf,
  /// Picks read from a trace; steps past its end start it again.
  Trace,
};

/// Picks already drawn from a distribution, kept for the next simulation
/// that draws the same ones: a draw depends only on the options and the
/// selection's shape, and a planner simulates hundreds of candidate plans
/// of one function. Safe to share between threads.
class DrawnPicks;

struct RoutingOptions {
  RoutingDistribution distribution = RoutingDistribution::Uniform;
  double zipfExponent = 1.0;
  std::shared_ptr<const RoutingTrace> trace;
  uint64_t seed = 1;
  /// The fraction of picks an early prediction gets right: each pick is
  /// predicted with this probability, else an expert the token did not
  /// pick is predicted in its place. 0.9 is the low end of what ProMoE and
  /// Pre-gated MoE report.
  double predictorAccuracy = 0.9;
  /// The step of the run, and the device of an expert-parallel group whose
  /// experts are simulated: device d holds the d-th run of consecutive
  /// experts of the size the routed op has.
  unsigned step = 0;
  unsigned device = 0;
  /// Where draws are kept for reuse; null draws every time.
  std::shared_ptr<DrawnPicks> drawn;
};

/// The routing a planner scores its candidates with: uniform, as a
/// compiler must assume, and a seed of its own, so that a plan is never
/// tuned to the draws it is measured on (those use the default seed).
/// Its draws are kept for reuse.
RoutingOptions getPlanningRouting(
    double predictorAccuracy = RoutingOptions().predictorAccuracy);

/// Parses "uniform", "zipf:EXPONENT" or "trace:FILE" into `options`.
llvm::Error parseRoutingSpec(llvm::StringRef spec, RoutingOptions &options);
/// Checks an accuracy given by a user: a fraction in [0, 1].
llvm::Error checkPredictorAccuracy(double accuracy);
/// "uniform", "zipf:1.2", "trace:FILE".
std::string describeRouting(const RoutingOptions &options);

/// The picks of the `layer`-th routed op of the run: `tokens * top` global
/// ids, `top` distinct ones per token, in [0, total). A trace must have the
/// shape asked for; the error says where it differs.
llvm::Expected<std::vector<int64_t>> drawPicks(const RoutingOptions &options,
                                               unsigned layer, int64_t tokens,
                                               int64_t top, int64_t total);
/// The blocks the `gather`-th ho.gather_blocks op of the run picks: `rows *
/// perRow` block indices, `perRow` distinct ones per row, in [0, blocks),
/// drawn like experts (a Zipf ranking of the blocks per gather) or read
/// from the trace's "blocks"; a trace without them leaves the blocks to
/// the seeded uniform draw.
llvm::Expected<std::vector<int64_t>>
drawBlockPicks(const RoutingOptions &options, unsigned gather, int64_t rows,
               int64_t perRow, int64_t blocks);
/// The layer `gather`'s draws and predictions are seeded with, apart from
/// those of the routed ops.
unsigned getBlockSelectionLayer(unsigned gather);
/// An early prediction of `picks` (`top` per token) as the options' accuracy
/// has it, seeded like the picks.
std::vector<int64_t> predictPicks(const RoutingOptions &options, unsigned layer,
                                  llvm::ArrayRef<int64_t> picks, int64_t top,
                                  int64_t total);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_ROUTING_H
