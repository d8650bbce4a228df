//===- TensorRoles.cpp - What a buffer on the device is for ---------------===//

#include "hyperoffload/Compare/TensorRoles.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ho;

/// The value a plan's copy was made from, through any chain of copies.
static Value getOriginal(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<OffloadOp, PrefetchOp, AwaitOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

static std::optional<TensorRole> parseRole(StringAttr role) {
  if (!role)
    return std::nullopt;
  return llvm::StringSwitch<std::optional<TensorRole>>(role.getValue())
      .Cases({"weight", "master_weight"}, TensorRole::Weight)
      .Case("kv_cache", TensorRole::KVCache)
      .Cases({"input", "activation", "output", "loss"}, TensorRole::Activation)
      .Case("gradient", TensorRole::Gradient)
      .Case("optimizer_state", TensorRole::OptimizerState)
      .Default(TensorRole::Other);
}

/// The role of the function result that `value`, or a copy a plan made of
/// it, is returned as, if it is.
static std::optional<TensorRole> getReturnedRole(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<OffloadOp, PrefetchOp, AwaitOp>(user)) {
      if (auto role = getReturnedRole(user->getResult(0)))
        return role;
      continue;
    }
    if (!user->hasTrait<OpTrait::IsTerminator>())
      continue;
    auto function = dyn_cast<FunctionOpInterface>(user->getParentOp());
    if (!function)
      continue;
    if (auto role = parseRole(function.getResultAttrOfType<StringAttr>(
            use.getOperandNumber(), kRoleAttrName)))
      return role;
  }
  return std::nullopt;
}

TensorRole ho::classifyTensor(Value value) {
  Value original = getOriginal(value);
  if (auto arg = dyn_cast<BlockArgument>(original)) {
    auto function =
        dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!function || arg.getOwner() != &function.getFunctionBody().front())
      return TensorRole::Activation;
    return parseRole(function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                           kRoleAttrName))
        .value_or(TensorRole::Other);
  }
  if (auto role = getReturnedRole(value))
    return *role;
  if (original != value)
    if (auto role = getReturnedRole(original))
      return *role;
  return TensorRole::Activation;
}

llvm::StringRef ho::stringifyTensorRole(TensorRole role) {
  switch (role) {
  case TensorRole::Weight:
    return "weights";
  case TensorRole::KVCache:
    return "KV cache";
  case TensorRole::Activation:
    return "activations";
  case TensorRole::Gradient:
    return "gradients";
  case TensorRole::OptimizerState:
    return "optimizer state";
  case TensorRole::Other:
    return "other arguments";
  }
  llvm_unreachable("unknown tensor role");
}

std::string ho::describeTensor(Value value) {
  value = getOriginal(value);
  if (auto named = dyn_cast<NameLoc>(value.getLoc()))
    return named.getName().str();
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "argument #" + std::to_string(arg.getArgNumber());
  Operation *def = value.getDefiningOp();
  if (auto named = dyn_cast<NameLoc>(def->getLoc()))
    return named.getName().str();
  if (auto compute = dyn_cast<ComputeOp>(def))
    return compute.getKind().str();
  return def->getName().getStringRef().str();
}
