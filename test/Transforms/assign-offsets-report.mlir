// With report=true, each function gets a remark with its arena, its peak of
// live bytes and the fragmentation overhead: the arena over the peak.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json report=true" -split-input-file -verify-diagnostics -o /dev/null

// expected-remark @below {{static memory plan: arena 48 bytes for a peak of 48 live bytes (fragmentation +0.0%)}}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "relu"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Largest first leaves %2 above both %1 and %3: 112 bytes where 80 would do
// (assign-offsets-static.mlir shows the layout).
// expected-remark @below {{static memory plan: arena 112 bytes for a peak of 80 live bytes (fragmentation +40.0%)}}
func.func @fragmented() -> tensor<12xf32> {
  %0 = ho.compute "init"() : () -> tensor<12xf32>
  %1 = ho.compute "relu"(%0) : (tensor<12xf32>) -> tensor<8xf32>
  %2 = ho.compute "relu"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = ho.compute "relu"(%2) : (tensor<8xf32>) -> tensor<12xf32>
  return %3 : tensor<12xf32>
}

// -----

// Declarations have no body to plan.
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// -----

// Without device buffers the arena is empty.
// expected-remark @below {{static memory plan: arena 0 bytes for a peak of 0 live bytes (fragmentation +0.0%)}}
func.func @remote_only(%r: !ho.remote<tensor<4xf32>>) -> !ho.remote<tensor<4xf32>> {
  return %r : !ho.remote<tensor<4xf32>>
}
