//===- Layers.cpp - Building blocks shared by the model builders ----------===//

#include "Layers.h"

#include "hyperoffload/Interfaces/CostOpInterface.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

/// The FLOPs the kind formula gives the op that defines `value`.
static int64_t getForwardFlops(Value value) {
  auto op = cast<CostOpInterface>(value.getDefiningOp());
  return op.getFlopCount().value_or(0);
}

/// `type`'s shape with the activation element type: the type of a gradient.
static RankedTensorType gradientType(Type type, Type activationType) {
  return RankedTensorType::get(cast<RankedTensorType>(type).getShape(),
                               activationType);
}

Value Layers::linear(Value x, Value w, llvm::StringRef name,
                     bool columnParallel) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  int64_t tokens = xType.getDimSize(0), in = xType.getDimSize(1),
          out = wType.getDimSize(1);
  Value y = b.compute("matmul", {x, w}, activation({tokens, out}), name);
  bool reduceInputGrad = columnParallel && tp > 1;
  std::string label = name.str();
  Type actType = act;
  b.record({x, w}, {y}, [=](GraphBuilder &b, ValueRange grads) {
    // Both products have the forward's FLOPs: 2 * T * K * N.
    int64_t flops = 2 * tokens * in * out;
    Value dy = grads[0];
    Value dx = b.compute("matmul_grad_input", {dy, w}, x.getType(),
                         label + " / grad_input", flops);
    if (reduceInputGrad)
      dx = b.compute("allreduce", {dx}, dx.getType(),
                     label + " / grad_input_allreduce");
    Value dw = b.compute("matmul_grad_weight", {x, dy},
                         gradientType(w.getType(), actType),
                         label + " / grad_weight", flops);
    return SmallVector<Value>{dx, dw};
  });
  return y;
}

Value Layers::routedExperts(Value x, Value picks, ValueRange experts,
                            int64_t firstExpert, int64_t totalExperts,
                            llvm::StringRef name) {
  Value y = b.routed("expert_ffn", {x}, picks, experts, {x.getType()}, name,
                     firstExpert, totalExperts)[0];
  SmallVector<Value> inputs{x};
  llvm::append_range(inputs, experts);
  SmallVector<Value> weights(experts);
  std::string label = name.str();
  Type actType = act;
  b.record(inputs, {y}, [=](GraphBuilder &b, ValueRange grads) {
    SmallVector<Type> types{x.getType()};
    for (Value weight : weights)
      types.push_back(gradientType(weight.getType(), actType));
    return b.routed("expert_ffn_grad", {grads[0], x}, picks, weights, types,
                    label + " / grad", firstExpert, totalExperts);
  });
  return y;
}

Value Layers::rmsnorm(Value x, Value w, llvm::StringRef name) {
  Value y = b.compute("rmsnorm", {x, w}, x.getType(), name);
  std::string label = name.str();
  Type actType = act;
  b.record({x, w}, {y}, [=](GraphBuilder &b, ValueRange grads) {
    SmallVector<Value> dxdw =
        b.computeN("rmsnorm_grad", {grads[0], x, w},
                   {x.getType(), gradientType(w.getType(), actType)},
                   label + " / grad", 2 * getForwardFlops(y));
    return dxdw;
  });
  return y;
}

SmallVector<Value> Layers::pointwiseN(llvm::StringRef kind, ValueRange inputs,
                                      TypeRange resultTypes,
                                      llvm::StringRef name,
                                      std::optional<int64_t> flops) {
  SmallVector<Value> outputs =
      b.computeN(kind, inputs, resultTypes, name, flops);
  SmallVector<Value> savedInputs(inputs);
  std::string gradKind = (kind + "_grad").str();
  std::string label = name.str();
  int64_t forwardFlops = getForwardFlops(outputs.front());
  Type actType = act;
  b.record(inputs, outputs, [=](GraphBuilder &b, ValueRange grads) {
    SmallVector<Value> operands;
    for (Value grad : grads)
      if (grad)
        operands.push_back(grad);
    llvm::append_range(operands, savedInputs);
    SmallVector<Type> gradTypes;
    for (Value input : savedInputs)
      gradTypes.push_back(gradientType(input.getType(), actType));
    return b.computeN(gradKind, operands, gradTypes, label + " / grad",
                      2 * forwardFlops);
  });
  return outputs;
}

Value Layers::residual(Value x, Value y, llvm::StringRef name) {
  Value sum = b.compute("add", {x, y}, x.getType(), name);
  b.record({x, y}, {sum}, [](GraphBuilder &, ValueRange grads) {
    return SmallVector<Value>{grads[0], grads[0]};
  });
  return sum;
}

Value Layers::attention(llvm::StringRef kind, Value q, Value k, Value v,
                        bool causal, llvm::StringRef name,
                        std::optional<int64_t> flops,
                        std::optional<int64_t> bytes) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  Type outType = activation({qType.getDimSize(0), qType.getDimSize(1),
                             qType.getDimSize(2), vType.getDimSize(3)});
  std::string kindName = kind.str();
  auto emit = [=](GraphBuilder &b, llvm::StringRef label) {
    Value o = b.compute(kindName, {q, k, v}, outType, label, flops, bytes);
    if (causal)
      o.getDefiningOp()->setAttr("causal", UnitAttr::get(&b.getContext()));
    return o;
  };
  Value o = emit(b, name);
  std::string label = name.str();
  std::string gradKind = (kind + "_grad").str();
  bool recompute = recomputeAttention;
  b.record({q, k, v}, {o}, [=](GraphBuilder &b, ValueRange grads) {
    // Recomputing spends the forward's FLOPs again instead of keeping the
    // output alive from the forward to the backward pass.
    Value out = recompute ? emit(b, label + " / recompute") : o;
    std::optional<int64_t> gradBytes;
    if (bytes)
      gradBytes = 2 * *bytes;
    return b.computeN(gradKind, {grads[0], q, k, v, out},
                      {q.getType(), k.getType(), v.getType()},
                      label + " / grad", 2 * getForwardFlops(out), gradBytes);
  });
  return o;
}

Value Layers::embedding(Value table, Value ids, llvm::StringRef name) {
  auto tableType = cast<RankedTensorType>(table.getType());
  int64_t tokens = numElements(ids.getType());
  Value h = b.compute("embedding", {table, ids},
                      activation({tokens, tableType.getDimSize(1)}), name);
  std::string label = name.str();
  Type actType = act;
  b.record({table, ids}, {h}, [=](GraphBuilder &b, ValueRange grads) {
    // Scatter-adds the gradient rows into a dense table gradient.
    int64_t bytes =
        2 * sizeInBytes(grads[0].getType()) + sizeInBytes(ids.getType());
    Value dTable = b.compute("embedding_grad", {grads[0], ids},
                             gradientType(table.getType(), actType),
                             label + " / grad", /*flops=*/0, bytes);
    return SmallVector<Value>{dTable, Value()};
  });
  return h;
}

Value Layers::crossEntropy(Value logits, Value labels) {
  Builder builder(&b.getContext());
  int64_t flops = 5 * numElements(logits.getType());
  Value loss = b.compute("cross_entropy", {logits, labels},
                         RankedTensorType::get({1}, builder.getF32Type()),
                         "loss", flops);
  b.record({logits, labels}, {loss}, [=](GraphBuilder &b, ValueRange) {
    Value dLogits = b.compute("cross_entropy_grad", {logits, labels},
                              logits.getType(), "loss / grad", flops);
    return SmallVector<Value>{dLogits, Value()};
  });
  return loss;
}

Value Layers::reduceTensorParallel(Value x, llvm::StringRef name) {
  if (tp == 1)
    return x;
  Value sum = b.compute("allreduce", {x}, x.getType(), name);
  b.record({x}, {sum}, [](GraphBuilder &, ValueRange grads) {
    return SmallVector<Value>{grads[0]};
  });
  return sum;
}
