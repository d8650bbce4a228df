// ho-plan-offload on a body written only in upstream dialects: nothing in
// the input loads the ho dialect, so the pass must load it itself before it
// writes !ho.remote arguments and ho.prefetch / ho.await.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=40000B" | FileCheck %s

// Both weights (16 KB each) cannot stay on the device with the 16 KB
// activation in a 40 KB budget: they are passed from the pool and fetched
// before their matmul.
// CHECK-LABEL: func.func @weights
// CHECK-SAME: %[[W1:[a-z0-9]+]]: !ho.remote<tensor<4x1000xf32>>
// CHECK-SAME: %[[W2:[a-z0-9]+]]: !ho.remote<tensor<1000x4xf32>>
// CHECK: %[[F1:.+]] = ho.prefetch %[[W1]]
// CHECK: %[[T1:.+]] = ho.await %[[F1]]
// CHECK: %[[H:.+]] = linalg.matmul ins(%{{.+}}, %[[T1]] :
// CHECK: %[[F2:.+]] = ho.prefetch %[[W2]]
// CHECK: %[[T2:.+]] = ho.await %[[F2]]
// CHECK: linalg.matmul ins(%[[H]], %[[T2]] :
func.func @weights(%x: tensor<4x4xf32>, %w1: tensor<4x1000xf32>,
                   %w2: tensor<1000x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x1000xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x4xf32>, tensor<4x1000xf32>)
      outs(%e : tensor<4x1000xf32>) -> tensor<4x1000xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<4x1000xf32>, tensor<1000x4xf32>)
      outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
