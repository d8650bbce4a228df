// RUN: hyperoffload-opt %s --ho-constants-as-arguments -split-input-file | FileCheck %s

// A large constant read as an input becomes a weight argument with its
// value; a small one and a splat used only as an init stay in the body.
// CHECK-LABEL: func.func @f
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<1024x4xf32> {ho.constant = dense<{{[0-9.e+-]+}}> : tensor<1024x4xf32>, ho.role = "weight"}
// CHECK: arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: arith.constant dense<0.000000e+00> : tensor<1024x4xf32>
// CHECK: linalg.add ins(%{{.*}}, %[[W]] :
func.func @f(%x: tensor<1024x4xf32>) -> (tensor<1024x4xf32>, tensor<4xf32>) {
  %w = arith.constant dense<0.01> : tensor<1024x4xf32>
  %small = arith.constant dense<2.0> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<1024x4xf32>
  %r = linalg.add ins(%x, %w : tensor<1024x4xf32>, tensor<1024x4xf32>) outs(%zero : tensor<1024x4xf32>) -> tensor<1024x4xf32>
  return %r, %small : tensor<1024x4xf32>, tensor<4xf32>
}

// -----

// A function something calls keeps its signature, and its constants.
// CHECK-LABEL: func.func private @callee(%{{.*}}: tensor<1024x4xf32>) -> tensor<1024x4xf32>
// CHECK: arith.constant dense<1.000000e+00> : tensor<1024x4xf32>
func.func private @callee(%x: tensor<1024x4xf32>) -> tensor<1024x4xf32> {
  %w = arith.constant dense<1.0> : tensor<1024x4xf32>
  %e = tensor.empty() : tensor<1024x4xf32>
  %r = linalg.add ins(%x, %w : tensor<1024x4xf32>, tensor<1024x4xf32>) outs(%e : tensor<1024x4xf32>) -> tensor<1024x4xf32>
  return %r : tensor<1024x4xf32>
}
func.func @caller(%x: tensor<1024x4xf32>) -> tensor<1024x4xf32> {
  %r = func.call @callee(%x) : (tensor<1024x4xf32>) -> tensor<1024x4xf32>
  return %r : tensor<1024x4xf32>
}

// -----

// A load of an immutable ml_program.global is a weight too.
// CHECK-LABEL: func.func @global
// CHECK-SAME: {ho.constant = dense<3.000000e+00> : tensor<2048xf32>, ho.role = "weight"}
// CHECK-NOT: ml_program.global_load_const
ml_program.global private @w(dense<3.0> : tensor<2048xf32>) : tensor<2048xf32>
func.func @global(%x: tensor<2048xf32>) -> tensor<2048xf32> {
  %w = ml_program.global_load_const @w : tensor<2048xf32>
  %e = tensor.empty() : tensor<2048xf32>
  %r = linalg.add ins(%x, %w : tensor<2048xf32>, tensor<2048xf32>) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  return %r : tensor<2048xf32>
}
