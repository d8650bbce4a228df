// An arena over the budget is an error that says whether the schedule itself
// needs more memory than the budget or only the plan's fragmentation does.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=64B" -split-input-file -verify-diagnostics -o /dev/null

// 64 live bytes fit in 64, but no order of placement (by size, by size
// times lifetime, by start) finds a 64-byte layout: %a sits between %x,
// which is still live, and the buffers that come and go around it.
// expected-error @below {{the static memory plan of @fragmented needs 68 bytes, over the budget of 64 bytes; its peak of 64 live bytes fits, fragmentation (+6.2%) is what exceeds it: offload a little more to leave room for it}}
func.func @fragmented() -> tensor<5xf32> {
  %v0 = ho.compute "k"() : () -> tensor<6xf32>
  %x = ho.compute "k"(%v0) : (tensor<6xf32>) -> tensor<2xf32>
  %v2 = ho.compute "k"(%x) : (tensor<2xf32>) -> tensor<12xf32>
  %a = ho.compute "k"(%v2) : (tensor<12xf32>) -> tensor<2xf32>
  %v4 = ho.compute "k"(%a) : (tensor<2xf32>) -> tensor<8xf32>
  %v5 = ho.compute "k"(%v4, %x) : (tensor<8xf32>, tensor<2xf32>) -> tensor<5xf32>
  return %v5 : tensor<5xf32>
}

// -----

// 128 bytes are live at once: no layout fits in 64.
// expected-error @below {{the static memory plan of @too_much_live needs 128 bytes, over the budget of 64 bytes; even its peak of 128 live bytes exceeds the budget: the schedule needs more offload}}
func.func @too_much_live(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ho.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %a : tensor<16xf32>
}

// -----

// Within the budget: planned without a word.
func.func @fits(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A function the simulator cannot run gets its error, and the pass fails.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @above {{cannot simulate a device tensor of unknown size ('tensor<?xf32>'): give it a static shape}}
  return %x : tensor<?xf32>
}
