//===- DeepSeek.cpp - DeepSeek-V3 graphs: MLA, MoE, NSA -------------------===//
//
// Per layer: Multi-head Latent Attention (MLA), then a dense SwiGLU FFN in the
// first layers and a mixture of experts (one shared expert plus routed ones,
// top-k routing) in the others. Decoding uses MLA's absorbed form over the
// compressed KV cache (512 latent + 64 RoPE values per token and layer);
// prefill and training expand the latent into per-head keys and values.
// With Native Sparse Attention, each attention reads compressed blocks, the
// selected blocks and a sliding window instead of the whole context.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"
#include "Models.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

static constexpr DeepSeekSpec kDeepSeekSpecs[] = {
    {"deepseek-v3",           /*hidden=*/7168,          /*layers=*/61,
     /*denseLayers=*/3,
     /*heads=*/128,           /*qLoraRank=*/1536,       /*kvLoraRank=*/512,
     /*qkNopeDim=*/128,       /*qkRopeDim=*/64,         /*vHeadDim=*/128,
     /*denseFfn=*/18432,      /*expertFfn=*/2048,       /*routedExperts=*/256,
     /*expertsPerToken=*/8,   /*sharedExperts=*/1,      /*vocab=*/129280,
     /*nsaCompressBlock=*/32, /*nsaCompressStride=*/16, /*nsaSelectBlock=*/64,
     /*nsaSelectCount=*/16,   /*nsaWindow=*/512},
    {"deepseek-v3-tiny",
     256,
     3,
     1,
     4,
     64,
     32,
     32,
     16,
     32,
     512,
     64,
     8,
     2,
     1,
     1024,
     8,
     4,
     16,
     2,
     32},
};

const DeepSeekSpec *workloads::lookupDeepSeek(llvm::StringRef name) {
  for (const DeepSeekSpec &spec : kDeepSeekSpecs)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

ModelStats workloads::getStats(const DeepSeekSpec &spec,
                               int64_t activationBytes) {
  int64_t h = spec.hidden;
  int64_t qkDim = spec.qkNopeDim + spec.qkRopeDim;
  int64_t attention =
      h + h * spec.qLoraRank + spec.qLoraRank +
      spec.qLoraRank * spec.heads * qkDim +
      h * (spec.kvLoraRank + spec.qkRopeDim) + spec.kvLoraRank +
      spec.kvLoraRank * spec.heads * (spec.qkNopeDim + spec.vHeadDim) +
      spec.heads * spec.vHeadDim * h;
  int64_t dense = h + 3 * h * spec.denseFfn;
  int64_t expert = 3 * h * spec.expertFfn;
  int64_t moeFixed = h + h * spec.routedExperts + spec.sharedExperts * expert;
  int64_t moeLayers = spec.layers - spec.denseLayers;

  ModelStats stats;
  stats.embeddingParameters = spec.vocab * h;
  int64_t common = spec.layers * attention + spec.denseLayers * dense +
                   moeLayers * moeFixed + 2 * spec.vocab * h + h;
  stats.totalParameters = common + moeLayers * spec.routedExperts * expert;
  stats.activeParameters = common + moeLayers * spec.expertsPerToken * expert;
  stats.kvCacheBytesPerToken =
      (spec.kvLoraRank + spec.qkRopeDim) * spec.layers * activationBytes;
  return stats;
}

namespace {
class DeepSeekGraph {
public:
  DeepSeekGraph(ModelBuilder &m, const DeepSeekSpec &spec)
      : m(m), b(m.graph()), l(m.layers()), spec(spec),
        tp(m.getOptions().parallelism.tp), ep(m.getOptions().parallelism.ep),
        nsa(m.getOptions().attention == AttentionKind::NSA),
        act(m.getActivationType()) {}

  void build();

private:
  Value attention(Value h);
  Value attend(Value q, Value keys, Value values, int64_t keyHeads);
  Value sparseDecode(Value q, Value entry);
  Value denseFeedForward(Value h);
  Value mixtureOfExperts(Value h);
  Value swiglu(Value x, int64_t width, llvm::StringRef prefix);

  ModelBuilder &m;
  GraphBuilder &b;
  Layers &l;
  const DeepSeekSpec &spec;
  int64_t tp, ep;
  bool nsa;
  Type act;
};
} // namespace

/// Attention of q [B, H, Sq, Dk] over keys/values [B, Hk, Sk, D*] of a
/// causal step (prefill, training): full, or NSA's three branches combined
/// by a gate.
Value DeepSeekGraph::attend(Value q, Value keys, Value values,
                            int64_t keyHeads) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(keys.getType());
  auto vType = cast<RankedTensorType>(values.getType());
  int64_t batch = qType.getDimSize(0), heads = qType.getDimSize(1),
          queries = qType.getDimSize(2), dk = qType.getDimSize(3),
          context = kType.getDimSize(2), dv = vType.getDimSize(3);
  bool causal = m.getMode() != Mode::Decode;
  if (!nsa)
    return l.attention("attention", q, keys, values, causal, "attention");

  // Keys each query attends to in a branch that looks at `limit` keys: with
  // a causal mask, half of them on average.
  auto keysSeen = [&](int64_t limit) {
    return std::max<int64_t>(1, std::min(limit, context) / 2);
  };
  auto branchFlops = [&](int64_t seen) {
    return batch * heads * queries * seen * (2 * (dk + dv) + 5);
  };

  int64_t compressed = std::max<int64_t>(
      1, (context - spec.nsaCompressBlock) / spec.nsaCompressStride + 1);
  int64_t flops =
      2 * batch * keyHeads * compressed * spec.nsaCompressBlock * (dk + dv);
  SmallVector<Value> cmp = l.pointwiseN(
      "nsa_compress", {keys, values},
      {RankedTensorType::get({batch, keyHeads, compressed, dk}, act),
       RankedTensorType::get({batch, keyHeads, compressed, dv}, act)},
      "nsa_compress", flops);
  Value oCmp = l.attention("nsa_compressed_attention", q, cmp[0], cmp[1],
                           /*causal=*/false, "nsa_compressed",
                           branchFlops(std::max<int64_t>(1, compressed / 2)));

  Builder builder(&b.getContext());
  Value selected = l.pointwise(
      "nsa_select", {q, cmp[0]},
      RankedTensorType::get({batch, heads, queries, spec.nsaSelectCount},
                            builder.getI32Type()),
      "nsa_select_blocks", 2 * batch * heads * queries * compressed * dk);
  Value oSel = l.pointwiseN(
      "nsa_selected_attention", {q, keys, values, selected},
      {RankedTensorType::get({batch, heads, queries, dv}, act)}, "nsa_selected",
      branchFlops(keysSeen(spec.nsaSelectCount * spec.nsaSelectBlock)))[0];
  Value oWin = l.attention("nsa_window_attention", q, keys, values,
                           /*causal=*/false, "nsa_window",
                           branchFlops(keysSeen(spec.nsaWindow)));
  return l.pointwise("nsa_gate", {oCmp, oSel, oWin, q},
                     RankedTensorType::get({batch, heads, queries, dv}, act),
                     "nsa_gate", 4 * batch * heads * queries * dv);
}

/// NSA in a decode step of absorbed MLA: q [B, H, Sq, D] over the latent KV
/// cache, `entry` [B, 1, Sq, D] the step's own rows. The last nsaWindow
/// tokens are kept in a window of their own, which the sliding-window branch
/// reads whole and the compressed cache is updated from; the older tokens
/// are in the cache proper, of which the step reads only the blocks its
/// selection picks (ho.gather_blocks) and writes only the rows that leave
/// the window. Both together hold the context once.
Value DeepSeekGraph::sparseDecode(Value q, Value entry) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto entryType = cast<RankedTensorType>(entry.getType());
  int64_t batch = qType.getDimSize(0), heads = qType.getDimSize(1),
          queries = qType.getDimSize(2), width = qType.getDimSize(3),
          context = m.getContext(), rows = entryType.getDimSize(2);
  int64_t window = std::min(spec.nsaWindow, context);
  // The rows that leave the window this step go to the end of the cache.
  int64_t cached = context - window;
  bool hasCache = cached >= rows;
  auto branchFlops = [&](int64_t seen) {
    return batch * heads * queries * seen * (4 * width + 5);
  };
  auto rowsType = [&](int64_t count) {
    return RankedTensorType::get({batch, 1, count, width}, act);
  };
  Builder builder(&b.getContext());

  // The new rows enter the window, pushing out as many of its oldest.
  Value windowCache = m.kvCache("kv_window", rowsType(window));
  int64_t rowBytes = sizeInBytes(entryType);
  SmallVector<Value> appended = b.computeN(
      "kv_append", {windowCache, entry}, {rowsType(window), entryType},
      "kv_window_append", /*flops=*/0, 3 * rowBytes, {0, ComputeOp::kUntied});
  Value recent = appended[0];
  m.kvCacheResult(recent);

  // The compressed cache gains the blocks the new rows complete.
  int64_t compressed = std::max<int64_t>(
      1, (context - spec.nsaCompressBlock) / spec.nsaCompressStride + 1);
  Value cmpCache = m.kvCache("nsa_compressed_cache", rowsType(compressed));
  int64_t blockBytes = 2 * batch * spec.nsaCompressBlock * width *
                       sizeInBytes(RankedTensorType::get({1}, act));
  Value cmp =
      b.computeN("nsa_compress_update", {cmpCache, recent},
                 {rowsType(compressed)}, "nsa_compress",
                 2 * batch * spec.nsaCompressBlock * width, blockBytes, {0})[0];
  m.kvCacheResult(cmp);

  // Blocks are picked per sequence (one latent head), for all query heads.
  // Of NSA's selected blocks, the 2 local ones are always picked (NSA,
  // section 4.1) and lie in the window; the others come from the cache (a
  // context within the window has every block there).
  int64_t blocks = llvm::divideCeil(cached, spec.nsaSelectBlock);
  int64_t fromCache = std::max<int64_t>(1, spec.nsaSelectCount - 2);
  int64_t picks = hasCache ? std::min(fromCache, blocks) : fromCache;
  Value selected = l.pointwise(
      "nsa_select", {q, cmp},
      RankedTensorType::get({batch, 1, picks}, builder.getI32Type()),
      "nsa_select_blocks", 2 * batch * heads * queries * compressed * width);
  // The selection scores the compressed keys (NSA, equation 8); the
  // compressed branch's output and the window's branch do not wait for it.
  Value oCmp =
      l.attention("nsa_compressed_attention", q, cmp, cmp,
                  /*causal=*/false, "nsa_compressed", branchFlops(compressed));
  Value oWin = l.attention("nsa_window_attention", q, recent, recent,
                           /*causal=*/false, "nsa_window", branchFlops(window));
  Value oSel;
  if (hasCache) {
    Value cache = m.kvCache("kv_cache", rowsType(cached));
    Value picked =
        b.gatherBlocks(cache, selected, 2, spec.nsaSelectBlock, "nsa_gather");
    oSel = l.attention(
        "nsa_selected_attention", q, picked, picked, /*causal=*/false,
        "nsa_selected",
        branchFlops(cast<RankedTensorType>(picked.getType()).getDimSize(2)));
    m.kvCacheResult(b.insertSlice(appended[1], cache, {0, 0, cached - rows, 0},
                                  "kv_cache_append"));
  } else {
    oSel = l.pointwiseN(
        "nsa_selected_attention", {q, recent, selected},
        {RankedTensorType::get({batch, heads, queries, width}, act)},
        "nsa_selected", branchFlops(window))[0];
  }
  return l.pointwise("nsa_gate", {oCmp, oSel, oWin, q},
                     RankedTensorType::get({batch, heads, queries, width}, act),
                     "nsa_gate", 4 * batch * heads * queries * width);
}

Value DeepSeekGraph::attention(Value h) {
  int64_t batch = m.getBatch(), step = m.getStepLength(),
          tokens = m.getTokens(), heads = spec.heads / tp;
  int64_t nope = spec.qkNopeDim, rope = spec.qkRopeDim, dv = spec.vHeadDim,
          latent = spec.kvLoraRank;
  GraphBuilder::Scope scope = b.scope("attention");

  Value norm = m.weight("norm", {spec.hidden}, act);
  Value wDq = m.weight("w_dq", {spec.hidden, spec.qLoraRank});
  Value qNorm = m.weight("q_norm", {spec.qLoraRank}, act);
  Value wUq = m.weight("w_uq", {spec.qLoraRank, heads * (nope + rope)});
  Value wDkv = m.weight("w_dkv", {spec.hidden, latent + rope});
  Value kvNorm = m.weight("kv_norm", {latent}, act);
  Value wUkv = m.weight("w_ukv", {latent, heads * (nope + dv)});
  Value wO = m.weight("w_o", {heads * dv, spec.hidden});

  Value x = l.rmsnorm(h, norm, "norm");
  Value q = l.linear(l.rmsnorm(l.linear(x, wDq, "q_down"), qNorm, "q_norm"),
                     wUq, "q_up", /*columnParallel=*/true);
  Value qh = l.pointwise(
      "rope", {q}, l.activation({batch, heads, step, nope + rope}), "q_rope");
  Value ckv = l.linear(x, wDkv, "kv_down");

  Value o;
  if (m.getMode() == Mode::Decode) {
    // Absorbed MLA: queries move into the latent space, attention reads the
    // compressed cache directly, and the output leaves it again.
    auto entryType = l.activation({batch, 1, step, latent + rope});
    Value entry = l.pointwise("rope", {ckv, kvNorm}, entryType, "kv_latent");
    Value qLatent =
        b.compute("mla_absorb_q", {qh, wUkv},
                  l.activation({batch, heads, step, latent + rope}), "q_absorb",
                  2 * batch * heads * step * nope * latent);
    Value oLatent;
    if (nsa) {
      oLatent = sparseDecode(qLatent, entry);
    } else {
      auto cacheType = l.activation({batch, 1, m.getContext(), latent + rope});
      Value cache = m.kvCache("kv_cache", cacheType);
      Value updated =
          b.computeN("kv_append", {cache, entry}, {cacheType},
                     "kv_cache_append", std::nullopt, std::nullopt, {0})[0];
      m.kvCacheResult(updated);
      oLatent = attend(qLatent, updated, updated, /*keyHeads=*/1);
    }
    o = b.compute("mla_absorb_o", {oLatent, wUkv},
                  l.activation({batch, heads, step, dv}), "o_absorb",
                  2 * batch * heads * step * latent * dv);
  } else {
    Value latentNormed = l.pointwise("rmsnorm", {ckv, kvNorm},
                                     l.activation({tokens, latent}), "kv_norm");
    Value kRope = l.pointwise("rope", {ckv},
                              l.activation({batch, 1, step, rope}), "k_rope");
    if (m.getMode() == Mode::Prefill)
      b.result(b.compute("copy", {latentNormed, kRope},
                         l.activation({batch, 1, step, latent + rope}),
                         "kv_cache"),
               "kv_cache");
    Value kv = l.linear(latentNormed, wUkv, "kv_up", /*columnParallel=*/true);
    SmallVector<Value> kvHeads =
        l.pointwiseN("copy", {kv, kRope},
                     {l.activation({batch, heads, step, nope + rope}),
                      l.activation({batch, heads, step, dv})},
                     "kv_heads", /*flops=*/0);
    o = attend(qh, kvHeads[0], kvHeads[1], heads);
  }
  Value merged = l.pointwise("copy", {o}, l.activation({tokens, heads * dv}),
                             "merge_heads");
  Value out = l.linear(merged, wO, "o");
  return l.residual(h, l.reduceTensorParallel(out, "o_allreduce"), "residual");
}

Value DeepSeekGraph::swiglu(Value x, int64_t width, llvm::StringRef prefix) {
  auto xType = cast<RankedTensorType>(x.getType());
  Value wGate = m.weight((prefix + "w_gate").str(), {spec.hidden, width});
  Value wUp = m.weight((prefix + "w_up").str(), {spec.hidden, width});
  Value wDown = m.weight((prefix + "w_down").str(), {width, spec.hidden});
  Value gate = l.linear(x, wGate, (prefix + "gate").str(), true);
  Value up = l.linear(x, wUp, (prefix + "up").str(), true);
  Value hidden = l.pointwise("swiglu", {gate, up},
                             l.activation({xType.getDimSize(0), width}),
                             (prefix + "swiglu").str());
  return l.linear(hidden, wDown, (prefix + "down").str());
}

Value DeepSeekGraph::denseFeedForward(Value h) {
  GraphBuilder::Scope scope = b.scope("mlp");
  Value norm = m.weight("norm", {spec.hidden}, act);
  Value out = swiglu(l.rmsnorm(h, norm, "norm"), spec.denseFfn / tp, "");
  return l.residual(h, l.reduceTensorParallel(out, "down_allreduce"),
                    "residual");
}

Value DeepSeekGraph::mixtureOfExperts(Value h) {
  int64_t tokens = m.getTokens(), experts = spec.routedExperts,
          topK = spec.expertsPerToken, localExperts = experts / ep;
  GraphBuilder::Scope scope = b.scope("moe");
  Value norm = m.weight("norm", {spec.hidden}, act);
  Value router = m.weight("router", {spec.hidden, experts}, act);
  Value x = l.rmsnorm(h, norm, "norm");

  Value logits = l.linear(x, router, "router");
  // The router's picks are integers no gradient flows through; its weights
  // scale the experts' outputs.
  Builder builder(&b.getContext());
  Value picks = b.compute("topk", {logits},
                          b.tensor({tokens, topK}, builder.getI32Type()),
                          "routing", 5 * tokens * experts);
  Value gates = l.pointwise("softmax", {logits}, l.activation({tokens, topK}),
                            "routing_weights", 5 * tokens * topK);

  Value shared;
  {
    GraphBuilder::Scope sharedScope = b.scope("shared expert");
    shared = l.reduceTensorParallel(
        swiglu(x, spec.sharedExperts * spec.expertFfn / tp, ""), "allreduce");
  }

  // Which of this device's experts the tokens pick is known only when the
  // router has run: every local expert is an operand of the routed kernel,
  // which reads the picked ones. Each expert's gate, up and down
  // projections are one tensor [3, hidden, ffn] (down transposed). The
  // tokens this device receives are sized for a balanced share.
  int64_t received = llvm::divideCeil(tokens * topK, ep);
  auto rowsType = l.activation({received, spec.hidden});
  Value dispatched = l.pointwise(ep > 1 ? "all_to_all" : "moe_dispatch",
                                 {x, picks}, rowsType, "dispatch",
                                 /*flops=*/0);
  SmallVector<Value> expertWeights;
  for (int64_t expert = 0; expert < localExperts; ++expert) {
    GraphBuilder::Scope expertScope =
        b.scope("expert " + std::to_string(expert));
    expertWeights.push_back(
        m.weight("weights", {3, spec.hidden, spec.expertFfn}));
  }
  Value expertsOut = l.routedExperts(dispatched, picks, expertWeights,
                                     /*firstExpert=*/0, experts, "experts");
  if (ep > 1)
    expertsOut = l.pointwise("all_to_all", {expertsOut}, rowsType, "return",
                             /*flops=*/0);
  Value combined = l.pointwise("moe_combine", {expertsOut, gates},
                               l.activation({tokens, spec.hidden}), "combine",
                               2 * tokens * topK * spec.hidden);
  return l.residual(h, l.residual(shared, combined, "experts_sum"), "residual");
}

void DeepSeekGraph::build() {
  Value table;
  if (m.isFirstStage())
    table = m.weight("embedding", {spec.vocab, spec.hidden}, act);
  Value h = m.beginStep(table, spec.hidden);
  auto [first, last] =
      m.getStageLayers(m.getOptions().layers.value_or(spec.layers));
  for (int64_t layer = first; layer < last; ++layer) {
    GraphBuilder::Scope scope = b.scope("layer " + std::to_string(layer));
    h = attention(h);
    h = layer < spec.denseLayers ? denseFeedForward(h) : mixtureOfExperts(h);
  }
  Value finalNorm, lmHead;
  if (m.isLastStage()) {
    GraphBuilder::Scope scope = b.scope("head");
    finalNorm = m.weight("final_norm", {spec.hidden}, act);
    lmHead = m.weight("lm_head", {spec.hidden, spec.vocab / tp}, act);
  }
  m.endStep(h, finalNorm, lmHead);
}

llvm::Expected<OwningOpRef<ModuleOp>>
workloads::buildDeepSeek(MLIRContext &context, const DeepSeekSpec &spec,
                         const WorkloadOptions &options) {
  const Parallelism &par = options.parallelism;
  for (auto [what, value] :
       {std::pair<llvm::StringRef, int64_t>{"attention heads", spec.heads},
        {"dense FFN width", spec.denseFfn},
        {"shared expert width", spec.sharedExperts * spec.expertFfn},
        {"vocabulary", spec.vocab}})
    if (llvm::Error error = checkDivides("tp", par.tp, what, value))
      return std::move(error);
  if (llvm::Error error =
          checkDivides("ep", par.ep, "routed experts", spec.routedExperts))
    return std::move(error);
  if (llvm::Error error = checkDivides("pp", par.pp, "layer count",
                                       options.layers.value_or(spec.layers)))
    return std::move(error);

  ModelBuilder model(context, options, DType::FP8,
                     getFunctionName(spec.name, options.mode));
  DeepSeekGraph(model, spec).build();
  return model.finish();
}
