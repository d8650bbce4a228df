// An arena over the budget is an error that says whether the schedule itself
// needs more memory than the budget or only the plan's fragmentation does.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=100B" -split-input-file -verify-diagnostics -o /dev/null

// 80 live bytes fit in 100, the 112-byte arena does not.
// expected-error @below {{the static memory plan of @fragmented needs 112 bytes, over the budget of 100 bytes; its peak of 80 live bytes fits, fragmentation (+40.0%) is what exceeds it: offload a little more to leave room for it}}
func.func @fragmented() -> tensor<12xf32> {
  %0 = ho.compute "init"() : () -> tensor<12xf32>
  %1 = ho.compute "relu"(%0) : (tensor<12xf32>) -> tensor<8xf32>
  %2 = ho.compute "relu"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = ho.compute "relu"(%2) : (tensor<8xf32>) -> tensor<12xf32>
  return %3 : tensor<12xf32>
}

// -----

// 128 bytes are live at once: no layout fits in 100.
// expected-error @below {{the static memory plan of @too_much_live needs 128 bytes, over the budget of 100 bytes; even its peak of 128 live bytes exceeds the budget: the schedule needs more offload}}
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
