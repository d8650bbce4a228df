// ho-lower-to-runtime turns a routed prefetch into a runtime group that
// fetches the experts the picks name into its slots, and the routed kernel
// into the calls that fetch what a wrong prediction missed, then the
// kernel over the resident experts and the slots, with the table of the
// expert each slot holds and a layout that says which operand is which.
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | FileCheck %s
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | hyperoffload-opt -split-input-file -o /dev/null

// CHECK-DAG: func.func private @ho_routed_begin(i64, i64, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @ho_routed_offer(i64, i32, i32, i64, i64)
// CHECK-DAG: func.func private @ho_routed_event(i64) -> i64
// CHECK-DAG: func.func private @ho_routed_ensure(i64, i64, i64, i32, i32, i64, i64)
// CHECK-DAG: func.func private @ho_routed_slot_expert(i64, i64) -> i64
// CHECK-LABEL: func.func @moe
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32> {ho.offset = 0 : i64}, %[[E0:.+]]: tensor<250000xf32> {ho.offset = 64 : i64}, %[[E1:.+]]: i64, %[[E2:.+]]: i64)
// The router's kernel is marked as making picks among 3 experts.
// CHECK: %[[IDS:.+]] = ho.compute "topk"(%[[X]]) {ho.offsets = array<i64: 1000064>, ho.pick_ranges = array<i64: 3>}
// The picks are 2 int32 ids at offset 1000064; two 1 MB slots at 1000128.
// CHECK: %[[SEL:.+]] = arith.constant 1000064 : i64
// CHECK: %[[PICKS:.+]] = arith.constant 2 : i64
// CHECK: %[[SLOTS_AT:.+]] = arith.constant 1000128 : i64
// CHECK: %[[SLOT_BYTES:.+]] = arith.constant 1000000 : i64
// CHECK: %[[SLOTS:.+]] = arith.constant 2 : i64
// CHECK: %[[G:.+]] = call @ho_routed_begin(%[[SEL]], %[[PICKS]], %[[SLOTS_AT]], %[[SLOT_BYTES]], %[[SLOTS]])
// CHECK: %[[ID1:.+]] = arith.constant 1 : i64
// CHECK: call @ho_routed_offer(%[[G]], %{{.+}}, %{{.+}}, %[[ID1]], %[[E1]])
// CHECK: %[[ID2:.+]] = arith.constant 2 : i64
// CHECK: call @ho_routed_offer(%[[G]], %{{.+}}, %{{.+}}, %[[ID2]], %[[E2]])
// CHECK: %[[EV:.+]] = call @ho_routed_event(%[[G]])
// CHECK: call @ho_event_wait(%[[EV]])
// CHECK: %[[VIEW:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<?xi8> to memref<2x250000xf32>
// CHECK: %[[STAGED:.+]] = bufferization.to_tensor %[[VIEW]]
// CHECK: call @ho_routed_ensure(%[[G]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[E1]])
// CHECK: call @ho_routed_ensure(%[[G]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[E2]])
// The kernel's table of what each slot holds, once the misses are in.
// CHECK: %[[SLOT0:.+]] = call @ho_routed_slot_expert(%[[G]], %{{.+}})
// CHECK: %[[SLOT1:.+]] = call @ho_routed_slot_expert(%[[G]], %{{.+}})
// CHECK: %[[TABLE:.+]] = tensor.from_elements %[[SLOT0]], %[[SLOT1]] : tensor<2xi64>
// CHECK: %[[Y:.+]] = ho.compute "ffn"(%[[X]], %[[IDS]], %[[E0]], %[[STAGED]], %[[TABLE]]) {bytes = {{[0-9]+}} : i64, flops = {{[0-9]+}} : i64, ho.offsets = array<i64: 3000128>, ho.routed_kernel = {expert_ids = array<i64: 0>, inputs = 1 : i64, total_experts = 3 : i64}}
// CHECK: return %[[Y]]
// CHECK-NOT: ho.routed
// CHECK-NOT: ho.prefetch_routed
func.func @moe(%x: tensor<4xf32> {ho.offset = 0 : i64},
               %e0: tensor<250000xf32> {ho.offset = 64 : i64},
               %e1: !ho.remote<tensor<250000xf32>>,
               %e2: !ho.remote<tensor<250000xf32>>) -> tensor<4xf32>
    attributes {ho.arena_size = 3000144 : i64} {
  %ids = ho.compute "topk"(%x) {ho.offsets = array<i64: 1000064>}
      : (tensor<4xf32>) -> tensor<1x2xi32>
  %f = ho.prefetch_routed %ids : tensor<1x2xi32>
      experts(%e1, %e2 : !ho.remote<tensor<250000xf32>>, !ho.remote<tensor<250000xf32>>)
      {expert_ids = array<i64: 1, 2>, total_experts = 3 : i64,
       ho.offsets = array<i64: 1000128>} -> !ho.future<tensor<2x250000xf32>>
  %s = ho.await %f : !ho.future<tensor<2x250000xf32>> -> tensor<2x250000xf32>
  %y = ho.routed "ffn"(%x : tensor<4xf32>) by %ids : tensor<1x2xi32>
      experts(%e0, %e1, %e2 : tensor<250000xf32>, !ho.remote<tensor<250000xf32>>,
              !ho.remote<tensor<250000xf32>>)
      staged(%s : tensor<2x250000xf32>)
      {first_expert = 0 : i64, total_experts = 3 : i64,
       ho.offsets = array<i64: 3000128>} -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Slots from anywhere but a routed prefetch have no runtime group.
func.func @slots_from_argument(%x: tensor<4xf32> {ho.offset = 0 : i64},
                               %ids: tensor<1x1xi32> {ho.offset = 64 : i64},
                               %e0: !ho.remote<tensor<8xf32>>,
                               %s: tensor<1x8xf32> {ho.offset = 128 : i64}) -> tensor<4xf32>
    attributes {ho.arena_size = 256 : i64} {
  // expected-error @below {{reads staged slots that are not the awaited result of a ho.prefetch_routed, so no runtime group holds them}}
  %y = ho.routed "ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0 : !ho.remote<tensor<8xf32>>) staged(%s : tensor<1x8xf32>)
      {first_expert = 0 : i64, total_experts = 2 : i64,
       ho.offsets = array<i64: 192>} -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @float_picks(%x: tensor<4xf32> {ho.offset = 0 : i64},
                       %ids: tensor<1x1xi64> {ho.offset = 64 : i64},
                       %e0: !ho.remote<tensor<8xf32>>) attributes {ho.arena_size = 256 : i64} {
  // expected-error @below {{picks by 'tensor<1x1xi64>'; the runtime reads int32 ids}}
  %f = ho.prefetch_routed %ids : tensor<1x1xi64>
      experts(%e0 : !ho.remote<tensor<8xf32>>)
      {expert_ids = array<i64: 0>, total_experts = 2 : i64,
       ho.offsets = array<i64: 128>} -> !ho.future<tensor<1x8xf32>>
  return
}
