// An arena over the budget is an error that says whether the schedule itself
// needs more memory than the budget or only the plan's fragmentation does.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=20B" -split-input-file -verify-diagnostics -o /dev/null

// 20 live bytes fit in 20, and no layout does. Buffers with no operands
// start lifetimes and the empty results end them, so that the live sets are
// in turn {a}, {a, c}, {c, e, g}, {b, c, e}, {b, d, e}, {b, f}: three of
// them fill the budget, and each fixes where the next may go. An exact
// search over every layout proves it (unittests/Planning/ExactPackingTest
// checks the same buffers by enumerating every offset).
// expected-error @below {{the static memory plan of @no_packing needs 24 bytes, over the budget of 20 bytes; its peak of 20 live bytes fits, fragmentation (+20.0%) is what exceeds it: offload a little more to leave room for it}}
// expected-note @below {{an exact search over the 7 buffers proved that no placement of them fits}}
func.func @no_packing() -> tensor<3xf32> {
  %a = ho.compute "k"() : () -> tensor<3xf32>
  %c = ho.compute "k"() : () -> tensor<1xf32>
  %0 = ho.compute "k"(%a) : (tensor<3xf32>) -> tensor<0xf32>
  %e = ho.compute "k"() : () -> tensor<2xf32>
  %g = ho.compute "k"() : () -> tensor<2xf32>
  %1 = ho.compute "k"(%g) : (tensor<2xf32>) -> tensor<0xf32>
  %b = ho.compute "k"() : () -> tensor<1xf32>
  %2 = ho.compute "k"(%c) : (tensor<1xf32>) -> tensor<0xf32>
  %d = ho.compute "k"() : () -> tensor<2xf32>
  %3 = ho.compute "k"(%d, %e) : (tensor<2xf32>, tensor<2xf32>) -> tensor<0xf32>
  %f = ho.compute "k"() : () -> tensor<3xf32>
  %4 = ho.compute "k"(%b) : (tensor<1xf32>) -> tensor<0xf32>
  return %f : tensor<3xf32>
}

// -----

// 128 bytes are live at once: no layout fits in 20.
// expected-error @below {{the static memory plan of @too_much_live needs 128 bytes, over the budget of 20 bytes; even its peak of 128 live bytes exceeds the budget: the schedule needs more offload}}
func.func @too_much_live(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ho.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %a : tensor<16xf32>
}

// -----

// Within the budget: planned without a word.
func.func @fits(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = ho.compute "relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

// A function the simulator cannot run gets its error, and the pass fails.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @above {{cannot simulate a device tensor of unknown size ('tensor<?xf32>'): give it a static shape}}
  return %x : tensor<?xf32>
}
