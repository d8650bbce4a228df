// A transfer's future lives in the function that issued it: as an argument
// or a call operand it is diagnosed by the pipeline, the verifier and the
// lowering, never turned into !ho.remote<!ho.future<...>> or a mistyped
// call.
// RUN: not hyperoffload-opt %s --split-input-file --hyperoffload=budget=0.5 2>&1 | FileCheck %s
// RUN: not hyperoffload-opt %s --split-input-file --ho-verify-schedule 2>&1 | FileCheck %s
// RUN: not hyperoffload-opt %s --split-input-file --ho-lower-to-runtime 2>&1 | FileCheck %s

// CHECK: futures.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: argument #0 is a future: a transfer's handle lives in the function that issued it
func.func @argument(%f: !ho.future<tensor<4xf32>>) {
  return
}

// -----

func.func private @consume(!ho.future<tensor<4xf32>>)
func.func @call(%r: !ho.remote<tensor<4xf32>>) {
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  // CHECK: futures.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: passes a future (operand #0) to a call
  func.call @consume(%f) : (!ho.future<tensor<4xf32>>) -> ()
  return
}
