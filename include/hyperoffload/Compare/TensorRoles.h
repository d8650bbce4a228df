//===- TensorRoles.h - What a buffer on the device is for -------*- C++ -*-===//
//
// The reports break device memory down by what it holds, as TensorBoard's
// memory viewer and PyTorch's memory snapshot do: weights, KV cache,
// activations, gradients, optimizer state. The role comes from the
// `ho.role` of the function argument a tensor was passed in as or of the
// result it is returned as, looking through the copies a plan makes
// (ho.offload, ho.prefetch, ho.await).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_TENSORROLES_H
#define HYPEROFFLOAD_COMPARE_TENSORROLES_H

#include "mlir/IR/Value.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
namespace ho {

enum class TensorRole {
  /// "weight" and "master_weight".
  Weight,
  /// "kv_cache".
  KVCache,
  /// Values the function computes and does not return with another role,
  /// "input" arguments, and "activation", "output" and "loss" results.
  Activation,
  /// "gradient".
  Gradient,
  /// "optimizer_state".
  OptimizerState,
  /// Arguments and results without a role (or with one the reports do not
  /// know).
  Other,
};
inline constexpr unsigned kTensorRoleCount = 6;

/// The role of the tensor in `value`'s buffer.
TensorRole classifyTensor(Value value);

/// "weights", "KV cache", "activations", "gradients", "optimizer state",
/// "other arguments".
llvm::StringRef stringifyTensorRole(TensorRole role);

/// A readable name for the tensor in `value`'s buffer (the original for a
/// plan's copy): its location's name, "argument #i", or what defines it.
std::string describeTensor(Value value);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_TENSORROLES_H
