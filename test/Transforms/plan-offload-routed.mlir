// Which experts a routed kernel reads is known only when its router has
// run, so ho-plan-offload cannot leave the idle ones behind: it keeps a hot
// set on the device and fetches the picked ones among the rest into slots
// right after the router, where the shared expert's compute covers the
// copy, when that is faster than fetching experts whole. On the
// round-numbers target an expert (1 MB) takes 1 ms to fetch.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=3100000B" | FileCheck %s --check-prefix=HALF
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=2200000B" | FileCheck %s --check-prefix=NONE
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=3100000B" | hyperoffload-opt --ho-lower-to-runtime -o /dev/null

// With 3.1 MB, two experts stay; the two others share one slot (one pick).
// HALF-LABEL: func.func @moe
// HALF-SAME: %[[E0:[^:]+]]: tensor<250000xf32> {ho.role = "weight"}, %[[E1:[^:]+]]: tensor<250000xf32> {ho.role = "weight"}, %[[E2:[^:]+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "weight"}, %[[E3:[^:]+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "weight"}
// HALF: %[[IDS:.+]] = ho.compute "topk"
// HALF-NEXT: %[[F:.+]] = ho.prefetch_routed %[[IDS]] : tensor<1x1xi32> experts(%[[E2]], %[[E3]] : {{.*}}) {expert_ids = array<i64: 2, 3>, total_experts = 4 : i64} -> !ho.future<tensor<1x250000xf32>>
// HALF-NEXT: ho.compute "shared"
// HALF-NEXT: %[[S:.+]] = ho.await %[[F]]
// HALF-NEXT: ho.routed "expert_ffn"({{.*}}) by %[[IDS]] : tensor<1x1xi32> experts(%[[E0]], %[[E1]], %[[E2]], %[[E3]] : {{.*}}) staged(%[[S]] : tensor<1x250000xf32>)

// With 2.2 MB, every expert lives in the pool.
// NONE: ho.prefetch_routed %{{.+}} : tensor<1x1xi32> experts(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} : {{.*}}) {expert_ids = array<i64: 0, 1, 2, 3>
func.func @moe(%x: tensor<4xf32> {ho.role = "input"},
               %e0: tensor<250000xf32> {ho.role = "weight"},
               %e1: tensor<250000xf32> {ho.role = "weight"},
               %e2: tensor<250000xf32> {ho.role = "weight"},
               %e3: tensor<250000xf32> {ho.role = "weight"}) -> tensor<4xf32> {
  %ids = ho.compute "topk"(%x) {flops = 100000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<1x1xi32>
  %shared = ho.compute "shared"(%x) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %y = ho.routed "expert_ffn"(%shared : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0, %e1, %e2, %e3 : tensor<250000xf32>, tensor<250000xf32>,
              tensor<250000xf32>, tensor<250000xf32>)
      {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<4xf32>
  return %y : tensor<4xf32>
}
