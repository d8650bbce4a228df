//===- ModelBuilder.cpp - What every model builder shares -----------------===//

#include "ModelBuilder.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

ModelBuilder::ModelBuilder(MLIRContext &context, const WorkloadOptions &options,
                           DType defaultWeights, llvm::StringRef functionName)
    : options(options),
      b(context, functionName, /*recordTape=*/options.mode == Mode::Train),
      weightType(
          getElementType(context, options.weightType.value_or(defaultWeights))),
      activationType(getElementType(
          context, options.activationType.value_or(DType::BF16))),
      optimizerType(
          getElementType(context, options.optimizerType.value_or(DType::F32))),
      layerOps(b, activationType, options.parallelism.tp,
               options.recomputeAttention) {}

Value ModelBuilder::weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                           std::optional<Type> type) {
  Value value = b.argument(
      name, RankedTensorType::get(shape, type.value_or(weightType)), "weight");
  weights.push_back({value, b.qualify(name)});
  return value;
}

Value ModelBuilder::kvCache(llvm::StringRef name, RankedTensorType type) {
  if (!options.remoteKVCache)
    return b.argument(name, type, "kv_cache");
  Value remote = b.argument(name, RemoteType::get(type), "kv_cache");
  return b.fetch(remote, name);
}

void ModelBuilder::kvCacheResult(Value updated) {
  b.result(options.remoteKVCache ? b.store(updated, "kv_cache_store") : updated,
           "kv_cache");
}

std::pair<int64_t, int64_t>
ModelBuilder::getStageLayers(int64_t totalLayers) const {
  int64_t perStage = totalLayers / options.parallelism.pp;
  int64_t first = options.parallelism.ppStage * perStage;
  return {first, first + perStage};
}

Value ModelBuilder::beginStep(Value embeddingTable, int64_t hidden) {
  if (!isFirstStage())
    return hiddenIn = b.argument(
               "hidden_in",
               RankedTensorType::get({getTokens(), hidden}, activationType),
               "input");
  Builder builder(&b.getContext());
  tokenIds = b.argument(
      "token_ids", RankedTensorType::get({getTokens()}, builder.getI32Type()),
      "input");
  return layerOps.embedding(embeddingTable, tokenIds, "embedding");
}

void ModelBuilder::endStep(Value hidden, Value finalNorm, Value lmHead) {
  Builder builder(&b.getContext());
  if (!isLastStage()) {
    b.result(hidden, "activation");
    if (isTraining())
      emitBackwardAndOptimizer(
          hidden, b.argument("d_hidden_out", hidden.getType(), "gradient"));
    return;
  }
  GraphBuilder::Scope head = b.scope("head");
  Value normed = layerOps.rmsnorm(hidden, finalNorm, "final_norm");
  Value logits = layerOps.linear(normed, lmHead, "logits");
  if (!isTraining()) {
    b.result(logits, "output");
    return;
  }
  Value labels = b.argument(
      "labels", RankedTensorType::get({getTokens()}, builder.getI32Type()),
      "input");
  Value loss = layerOps.crossEntropy(logits, labels);
  b.result(loss, "loss");
  Value seed = b.compute("ones", {}, loss.getType(), "loss / seed",
                         /*flops=*/0);
  emitBackwardAndOptimizer(loss, seed);
}

void ModelBuilder::emitBackwardAndOptimizer(Value loss, Value seed) {
  DenseMap<Value, Value> grads = b.emitBackward(loss, seed);
  if (hiddenIn)
    b.result(grads.lookup(hiddenIn), "gradient");
  for (auto &[weight, name] : weights) {
    // A weight the loss does not depend on has no gradient to apply.
    Value grad = grads.lookup(weight);
    if (!grad)
      continue;
    GraphBuilder::Scope scope = b.scope("optimizer / " + name);
    emitOptimizerStep(weight, grad);
  }
}

void ModelBuilder::emitOptimizerStep(Value weight, Value gradient) {
  auto weightTensor = cast<RankedTensorType>(weight.getType());
  int64_t elements = weightTensor.getNumElements();
  int64_t dp = options.parallelism.dp;

  // Gradients accumulate in place over micro-batches.
  Value accumulator = b.argument(
      "grad", RankedTensorType::get(weightTensor.getShape(), activationType),
      "gradient");
  Value grad = b.computeN("grad_accumulate", {accumulator, gradient},
                          {accumulator.getType()}, "grad", std::nullopt,
                          std::nullopt, {0})[0];
  b.result(grad, "gradient");

  // ZeRO-1: each data-parallel rank keeps and updates 1/dp of the states.
  SmallVector<int64_t> stateShape(weightTensor.getShape());
  int64_t shard = llvm::divideCeil(elements, dp);
  if (dp > 1) {
    stateShape = {shard};
    grad =
        b.compute("reduce_scatter", {grad},
                  RankedTensorType::get({shard}, activationType), "grad_shard");
  }
  auto stateType = RankedTensorType::get(stateShape, optimizerType);
  Value master = b.argument("master", stateType, "master_weight");
  Value m = b.argument("adam_m", stateType, "optimizer_state");
  Value v = b.argument("adam_v", stateType, "optimizer_state");
  // Adam: about 12 operations per element for the moments, bias correction
  // and the update.
  SmallVector<Value> updated = b.computeN(
      "adam", {master, grad, m, v}, {stateType, stateType, stateType}, "adam",
      12 * stateType.getNumElements(), std::nullopt, {0, 2, 3});
  b.result(updated[0], "master_weight");
  b.result(updated[1], "optimizer_state");
  b.result(updated[2], "optimizer_state");

  Value newWeights = updated[0];
  if (dp > 1) {
    Type elementType = weightTensor.getElementType();
    Value cast =
        b.compute("cast", {updated[0]},
                  RankedTensorType::get({shard}, elementType), "weight_shard");
    newWeights = b.compute("allgather", {cast},
                           RankedTensorType::get({shard * dp}, elementType),
                           "weight_gather");
  }
  Value updatedWeight =
      b.computeN("weight_update", {weight, newWeights}, {weight.getType()},
                 "weight_update", std::nullopt, std::nullopt, {0})[0];
  b.result(updatedWeight, "weight");
}
