// Ops the cost model does not know, in a body the pipeline plans: each is
// timed from the bytes of its tensor operands and results, with a remark
// from --ho-explain-cost, and planning goes on around them. linalg.softmax
// is not a structured op; tensor.pad and the scf.for (whose trip count is
// an argument) have regions.
// RUN: hyperoffload-opt %s --ho-explain-cost="hw=%S/Inputs/round-numbers.json" -verify-diagnostics -o /dev/null
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=6000000B" | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=6000000B" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=6000000B allocator=static" -o /dev/null | FileCheck %s --check-prefix=REPORT

// As written 8 MB are live at the loop; at 6 MB both arguments are passed
// from the pool and fetched before their first use.
// CHECK-LABEL: func.func @unknown
// CHECK-SAME: %[[X:[a-z0-9]+]]: !ho.remote<tensor<250000xf32>>
// CHECK-SAME: %[[W:[a-z0-9]+]]: !ho.remote<tensor<250000xf32>>
// CHECK: ho.prefetch %[[X]]
// CHECK: ho.prefetch %[[W]]
// CHECK: linalg.softmax
// CHECK: tensor.pad
// CHECK: scf.for
// CHECK: tensor.concat

// REPORT: peak live       6.00 MB of a 6.00 MB budget
// REPORT: out of memory   no
func.func @unknown(%x: tensor<250000xf32>, %w: tensor<250000xf32>, %n: index)
    -> tensor<500000xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<250000xf32>
  // expected-remark @below {{no cost model for 'linalg.softmax': estimated from the 3.00 MB it reads and writes as 3.000 us}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<250000xf32>)
      outs(%e : tensor<250000xf32>) -> tensor<250000xf32>
  // expected-remark @below {{no cost model for 'tensor.pad': estimated from the 3.00 MB it reads and writes as 3.000 us}}
  %p = tensor.pad %s low[0] high[250000] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<250000xf32> to tensor<500000xf32>
  // expected-remark @below {{cost of 'scf.for' unknown: its bounds or steps are not constants; estimated from the 4.00 MB it reads and writes as 4.000 us}}
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %p)
      -> tensor<500000xf32> {
    %e2 = tensor.empty() : tensor<500000xf32>
    %a = linalg.add ins(%acc, %acc : tensor<500000xf32>, tensor<500000xf32>)
        outs(%e2 : tensor<500000xf32>) -> tensor<500000xf32>
    scf.yield %a : tensor<500000xf32>
  }
  // expected-remark @below {{no cost model for 'tensor.concat': estimated from the 4.00 MB it reads and writes as 4.000 us}}
  %c = tensor.concat dim(0) %w, %w
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<500000xf32>
  %e3 = tensor.empty() : tensor<500000xf32>
  %r = linalg.add ins(%l, %c : tensor<500000xf32>, tensor<500000xf32>)
      outs(%e3 : tensor<500000xf32>) -> tensor<500000xf32>
  return %r : tensor<500000xf32>
}
