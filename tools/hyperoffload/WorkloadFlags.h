//===- WorkloadFlags.h - Command-line options of a workload -----*- C++ -*-===//
//
// One command-line option per field of `workloads::WorkloadOptions`
// (`--mode`, `--batch`, `--tp`, ...). An option that is given overrides the
// base configuration it is applied to: the defaults or a named scenario.
// Values are checked by CLI11 validators, so a bad one is a parse error.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_WORKLOADFLAGS_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_WORKLOADFLAGS_H

#include "hyperoffload/Workloads/Workloads.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace mlir::ho::cli {

class WorkloadFlags {
public:
  WorkloadFlags();
  // The options CLI11 adds write into this object; it must stay put.
  WorkloadFlags(const WorkloadFlags &) = delete;
  WorkloadFlags &operator=(const WorkloadFlags &) = delete;

  /// Adds every workload option to `command`.
  void addTo(CLI::App &command);
  /// Adds only the element-type options (`--weight-type`, ...).
  void addTypeOptionsTo(CLI::App &command);

  /// `base` with the options given on the command line applied.
  workloads::WorkloadOptions apply(workloads::WorkloadOptions base) const;
  /// The named scenario's options when `scenario` is not empty, else the
  /// defaults for `model`, with the options given applied. Fails on an
  /// unknown scenario.
  llvm::Expected<workloads::WorkloadOptions>
  resolve(llvm::StringRef model, llvm::StringRef scenario) const;
  /// The first workload option given on the command line, or null.
  const CLI::Option *getFirstGiven() const;

private:
  using Setter = std::function<void(workloads::WorkloadOptions &)>;
  void addShapeOptionsTo(CLI::App &command);
  void addParallelismOptionsTo(CLI::App &command);
  /// Remembers that `option`, when given, sets a field with `set`.
  void onGiven(CLI::Option *option, Setter set);

  // Where CLI11 writes the values; the defaults are WorkloadOptions'.
  std::string mode, attention, weightType, activationType, optimizerType;
  int64_t batch, sequence, layers, tp, pp, ppStage, dp, ep;
  bool recomputeAttention, remoteKVCache;
  std::vector<std::pair<CLI::Option *, Setter>> setters;
};

/// The names of the models, for `MODEL` and `--model`.
std::vector<std::string> getModelNames();
/// The names of the named scenarios, for `--scenario`.
std::vector<std::string> getScenarioNames();

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_WORKLOADFLAGS_H
