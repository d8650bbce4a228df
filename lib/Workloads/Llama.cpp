//===- Llama.cpp - LLaMA-style decoder graphs -----------------------------===//
//
// Per layer: RMSNorm, Q/K/V projections, RoPE, GQA attention (over the KV
// cache when decoding), the output projection and a residual; RMSNorm, the
// SwiGLU FFN and a residual. Tensor parallelism splits heads, FFN columns
// and the vocabulary.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"
#include "Models.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

static constexpr LlamaSpec kLlamaSpecs[] = {
    {"llama3-8b", /*hidden=*/4096, /*layers=*/32, /*heads=*/32,
     /*kvHeads=*/8, /*headDim=*/128, /*ffn=*/14336, /*vocab=*/128256},
    {"llama3-tiny", 256, 2, 4, 2, 64, 512, 1024},
};

const LlamaSpec *workloads::lookupLlama(llvm::StringRef name) {
  for (const LlamaSpec &spec : kLlamaSpecs)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

ModelStats workloads::getStats(const LlamaSpec &spec, int64_t activationBytes) {
  int64_t h = spec.hidden, qDim = spec.heads * spec.headDim,
          kvDim = spec.kvHeads * spec.headDim;
  int64_t perLayer = h * qDim + 2 * h * kvDim + qDim * h + 3 * h * spec.ffn +
                     2 * h; // two norms
  ModelStats stats;
  stats.embeddingParameters = spec.vocab * h;
  stats.totalParameters =
      spec.layers * perLayer + 2 * spec.vocab * h + h; // + lm head, norm
  stats.activeParameters = stats.totalParameters;
  stats.kvCacheBytesPerToken = 2 * spec.layers * kvDim * activationBytes;
  return stats;
}

namespace {
class LlamaGraph {
public:
  LlamaGraph(ModelBuilder &m, const LlamaSpec &spec)
      : m(m), b(m.graph()), l(m.layers()), spec(spec),
        tp(m.getOptions().parallelism.tp) {}

  void build();

private:
  Value attention(Value h);
  Value feedForward(Value h);

  ModelBuilder &m;
  GraphBuilder &b;
  Layers &l;
  const LlamaSpec &spec;
  int64_t tp;
};
} // namespace

Value LlamaGraph::attention(Value h) {
  int64_t batch = m.getBatch(), step = m.getStepLength(),
          context = m.getContext(), d = spec.headDim;
  int64_t heads = spec.heads / tp, kvHeads = spec.kvHeads / tp;
  GraphBuilder::Scope scope = b.scope("attention");

  Value norm = m.weight("norm", {spec.hidden});
  Value wq = m.weight("wq", {spec.hidden, heads * d});
  Value wk = m.weight("wk", {spec.hidden, kvHeads * d});
  Value wv = m.weight("wv", {spec.hidden, kvHeads * d});
  Value wo = m.weight("wo", {heads * d, spec.hidden});

  Value x = l.rmsnorm(h, norm, "norm");
  Value q = l.linear(x, wq, "q", /*columnParallel=*/true);
  Value k = l.linear(x, wk, "k", true);
  Value v = l.linear(x, wv, "v", true);
  // RoPE also lays the heads out as [batch, heads, tokens, head_dim].
  Value qh =
      l.pointwise("rope", {q}, l.activation({batch, heads, step, d}), "q_rope");
  Value kh = l.pointwise("rope", {k}, l.activation({batch, kvHeads, step, d}),
                         "k_rope");
  Value vh = l.pointwise("copy", {v}, l.activation({batch, kvHeads, step, d}),
                         "v_heads");

  Value keys = kh, values = vh;
  auto cacheType = l.activation({2, batch, kvHeads, context, d});
  if (m.getMode() == Mode::Decode) {
    // The new token's keys and values go into the cache in place.
    Value cache = m.kvCache("kv_cache", cacheType);
    Value updated =
        b.computeN("kv_append", {cache, kh, vh}, {cacheType}, "kv_cache_append",
                   std::nullopt, std::nullopt, {0})[0];
    m.kvCacheResult(updated);
    keys = b.slice(updated, 0, "keys");
    values = b.slice(updated, 1, "values");
  } else if (m.getMode() == Mode::Prefill) {
    b.result(b.compute("copy", {kh, vh}, cacheType, "kv_cache"), "kv_cache");
  }
  Value o = l.attention("attention", qh, keys, values,
                        /*causal=*/m.getMode() != Mode::Decode, "attention");
  Value merged = l.pointwise(
      "copy", {o}, l.activation({m.getTokens(), heads * d}), "merge_heads");
  Value out = l.linear(merged, wo, "o");
  return l.residual(h, l.reduceTensorParallel(out, "o_allreduce"), "residual");
}

Value LlamaGraph::feedForward(Value h) {
  int64_t ffn = spec.ffn / tp;
  GraphBuilder::Scope scope = b.scope("mlp");
  Value norm = m.weight("norm", {spec.hidden});
  Value wGate = m.weight("w_gate", {spec.hidden, ffn});
  Value wUp = m.weight("w_up", {spec.hidden, ffn});
  Value wDown = m.weight("w_down", {ffn, spec.hidden});

  Value x = l.rmsnorm(h, norm, "norm");
  Value gate = l.linear(x, wGate, "gate", /*columnParallel=*/true);
  Value up = l.linear(x, wUp, "up", true);
  Value act = l.pointwise("swiglu", {gate, up},
                          l.activation({m.getTokens(), ffn}), "swiglu");
  Value down = l.linear(act, wDown, "down");
  return l.residual(h, l.reduceTensorParallel(down, "down_allreduce"),
                    "residual");
}

void LlamaGraph::build() {
  Value table;
  if (m.isFirstStage())
    table = m.weight("embedding", {spec.vocab, spec.hidden});
  Value h = m.beginStep(table, spec.hidden);
  auto [first, last] =
      m.getStageLayers(m.getOptions().layers.value_or(spec.layers));
  for (int64_t layer = first; layer < last; ++layer) {
    GraphBuilder::Scope scope = b.scope("layer " + std::to_string(layer));
    h = feedForward(attention(h));
  }
  Value finalNorm, lmHead;
  if (m.isLastStage()) {
    GraphBuilder::Scope scope = b.scope("head");
    finalNorm = m.weight("final_norm", {spec.hidden});
    lmHead = m.weight("lm_head", {spec.hidden, spec.vocab / tp});
  }
  m.endStep(h, finalNorm, lmHead);
}

llvm::Expected<OwningOpRef<ModuleOp>>
workloads::buildLlama(MLIRContext &context, const LlamaSpec &spec,
                      const WorkloadOptions &options) {
  int64_t tp = options.parallelism.tp;
  for (auto [what, value] :
       {std::pair<llvm::StringRef, int64_t>{"attention heads", spec.heads},
        {"KV heads", spec.kvHeads},
        {"FFN width", spec.ffn},
        {"vocabulary", spec.vocab}})
    if (llvm::Error error = checkDivides("tp", tp, what, value))
      return std::move(error);
  if (llvm::Error error =
          checkDivides("pp", options.parallelism.pp, "layer count",
                       options.layers.value_or(spec.layers)))
    return std::move(error);

  ModelBuilder model(context, options, DType::BF16,
                     getFunctionName(spec.name, options.mode));
  LlamaGraph(model, spec).build();
  return model.finish();
}
