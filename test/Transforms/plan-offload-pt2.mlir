// policy=pt2: PyTorch's compiled activation offloading. An activation used
// in the forward pass and again in the backward pass (ops named
// "backward / ...") is stored after its last forward use, and its reload is
// hoisted until the compute before the use covers the copy at one scalar
// bandwidth. The round-numbers target moves 1 MB in 1 ms; every op here
// takes 1 ms, so the reload goes one op ahead of the backward use.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json policy=pt2" | FileCheck %s

// %a is last used in the forward pass by fwd1.
// CHECK-LABEL: func.func @train
// CHECK: %[[A:.+]] = ho.compute "fwd0"
// CHECK-NEXT: ho.compute "fwd1"(%[[A]])
// CHECK-NEXT: %[[R:.+]] = ho.offload %[[A]]
// CHECK-NEXT: ho.compute "fwd2"
// CHECK-NEXT: %[[F:.+]] = ho.prefetch %[[R]]
// CHECK-NEXT: ho.compute "bwd2"
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: ho.compute "bwd1"(%{{.+}}, %[[T]])
// A value used only in the forward pass stays put.
// CHECK-NOT: ho.offload
func.func @train(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "fwd0"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32> loc("layer 0 / mlp")
  %b = ho.compute "fwd1"(%a) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32> loc("layer 1 / mlp")
  %c = ho.compute "fwd2"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32> loc("layer 2 / mlp")
  %d = ho.compute "bwd2"(%c) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32> loc("backward / layer 2 / mlp")
  %e = ho.compute "bwd1"(%d, %a) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>, tensor<250000xf32>) -> tensor<4xf32> loc("backward / layer 1 / mlp")
  return %e : tensor<4xf32>
}
