// policy=window: ZeRO-Infinity-style parameter prefetch. Layers are the
// stretches of ops named "layer N"; a layer's weights are fetched when the
// layer window-layers before it starts. As in ZeRO-3, weights of fewer
// elements than window-persistence-threshold (1e5 by default) stay on the
// device: these have 1024.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json policy=window window-layers=1 window-persistence-threshold=0" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json policy=window window-layers=2 window-persistence-threshold=0" | FileCheck %s --check-prefix=TWO
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json policy=window" | FileCheck %s --check-prefix=PERSISTENT
// PERSISTENT-LABEL: func.func @layers
// PERSISTENT-NOT: ho.remote
// PERSISTENT-NOT: ho.prefetch

// With a window of one layer, layer 1's weight is fetched when layer 0
// starts and layer 2's when layer 1 starts; layer 0's weight cannot be
// fetched earlier than the first op. The input is not a weight and stays.
// CHECK-LABEL: func.func @layers
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32> {ho.role = "input"}, %[[W0:[a-z0-9]+]]: !ho.remote<tensor<1024xf32>> {ho.placed_by_plan, ho.role = "weight"}, %[[W1:[a-z0-9]+]]: !ho.remote<tensor<1024xf32>> {ho.placed_by_plan, ho.role = "weight"}, %[[W2:[a-z0-9]+]]: !ho.remote<tensor<1024xf32>> {ho.placed_by_plan, ho.role = "weight"})
// CHECK: ho.prefetch %[[W0]]
// CHECK-NEXT: ho.prefetch %[[W1]]
// CHECK-NEXT: ho.await
// CHECK-NEXT: ho.compute "l0"
// CHECK-NEXT: ho.prefetch %[[W2]]
// CHECK-NEXT: ho.await
// CHECK-NEXT: ho.compute "l1"
// CHECK-NEXT: ho.await
// CHECK-NEXT: ho.compute "l2"
// TWO-LABEL: func.func @layers
// TWO: ho.prefetch
// TWO-NEXT: ho.prefetch
// TWO-NEXT: ho.prefetch
// TWO-NEXT: ho.await
// TWO-NEXT: ho.compute "l0"
func.func @layers(%x: tensor<4xf32> {ho.role = "input"},
                  %w0: tensor<1024xf32> {ho.role = "weight"},
                  %w1: tensor<1024xf32> {ho.role = "weight"},
                  %w2: tensor<1024xf32> {ho.role = "weight"}) -> tensor<4xf32> {
  %a = ho.compute "l0"(%x, %w0) : (tensor<4xf32>, tensor<1024xf32>) -> tensor<4xf32> loc("layer 0 / mlp")
  %b = ho.compute "l1"(%a, %w1) : (tensor<4xf32>, tensor<1024xf32>) -> tensor<4xf32> loc("layer 1 / mlp")
  %c = ho.compute "l2"(%b, %w2) : (tensor<4xf32>, tensor<1024xf32>) -> tensor<4xf32> loc("layer 2 / mlp")
  return %c : tensor<4xf32>
}
