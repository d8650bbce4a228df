// ho-explain-cost points at every op the cost model does not know, and at
// every op whose model does not know its cost.
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

// The scalar payload of a linalg op, index arithmetic and constants do no
// device work: no remark. tosa elementwise ops have a model.
func.func @upstream(%x: tensor<256xf32>, %i: index) -> (tensor<256xf32>, index) {
  %one = arith.constant 1.0 : f32
  %c1 = arith.constant 1 : index
  %j = arith.addi %i, %c1 : index
  %0 = linalg.generic {indexing_maps = [affine_map<(d) -> (d)>, affine_map<(d) -> (d)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%x : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %one : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %1 = tosa.exp %0 : (tensor<256xf32>) -> tensor<256xf32>
  return %1, %j : tensor<256xf32>, index
}

// An scf.for without a constant trip count degrades to the bytes estimate
// of its operands and results and of what its body uses from outside; so
// does a region holding an op without a model, which gets a remark of its
// own (the scf.if: its 2 KB result and the two 1 KB tensors it reads).
func.func @regions(%x: tensor<256xf32>, %n: index, %cond: i1)
    -> (tensor<256xf32>, tensor<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @below {{cost of 'scf.for' unknown: its bounds or steps are not constants; estimated from the 2.05 KB it reads and writes as}}
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<256xf32> {
    %e = tensor.empty() : tensor<256xf32>
    %s = linalg.add ins(%acc, %acc : tensor<256xf32>, tensor<256xf32>)
        outs(%e : tensor<256xf32>) -> tensor<256xf32>
    scf.yield %s : tensor<256xf32>
  }
  // expected-remark @below {{cost of 'scf.if' unknown: an op in its regions has no known cost (see the remarks there); estimated from the 4.10 KB it reads and writes as}}
  %1 = scf.if %cond -> tensor<512xf32> {
    // expected-remark @below {{no cost model for 'tensor.concat'}}
    %c = tensor.concat dim(0) %0, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<512xf32>
    scf.yield %c : tensor<512xf32>
  } else {
    %e = tensor.empty() : tensor<512xf32>
    scf.yield %e : tensor<512xf32>
  }
  return %0, %1 : tensor<256xf32>, tensor<512xf32>
}
