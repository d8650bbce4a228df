// ho-explain-cost points at every op the cost model does not know.
// RUN: hyperoffload-opt %s --ho-explain-cost -verify-diagnostics -o /dev/null

func.func @explain(%x: tensor<256xf32>, %y: tensor<256xf32>) -> tensor<512xf32> {
  // Known: no remark.
  %a = ho.compute "add"(%x, %y) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  // expected-remark @below {{no cost model for 'arith.maximumf': estimated from the 3.07 KB it reads and writes as 5.002 us; attach a CostOpInterface model for a better estimate}}
  %m = arith.maximumf %a, %y : tensor<256xf32>
  // expected-remark @below {{no cost model for 'tensor.concat'}}
  %c = tensor.concat dim(0) %m, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<512xf32>
  return %c : tensor<512xf32>
}
