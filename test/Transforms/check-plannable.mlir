// Inputs the planner cannot take fail before any planning, at the op that
// breaks the rule; --hyperoffload and ho-plan-offload check the same rules.
// RUN: hyperoffload-opt %s --ho-check-plannable -split-input-file -verify-diagnostics
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1MB" -split-input-file -verify-diagnostics -o /dev/null
// RUN: not hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=1MB" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

// A control-flow graph: planning needs structured control flow.
// expected-error @below {{@branches has 3 blocks; the planner takes a function body of one block, with loops and branches as scf ops: run `mlir-opt --lift-cf-to-scf` first}}
func.func @branches(%a: tensor<1024xf32>, %p: i1) -> tensor<1024xf32> {
  cf.cond_br %p, ^then, ^else
^then:
  // expected-note @below {{the second block starts here}}
  %b = ho.compute "relu"(%a) : (tensor<1024xf32>) -> tensor<1024xf32>
  return %b : tensor<1024xf32>
^else:
  return %a : tensor<1024xf32>
}
// PIPELINE: error: @branches has 3 blocks

// -----

// The planner needs the bytes of every buffer.
// expected-error @below {{a tensor of unknown size ('tensor<?xf32>'): the planner needs the bytes of every buffer; give @dynamic static shapes}}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-note @below {{1 more tensors of unknown size, the next here}}
  %b = ho.compute "relu"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %b : tensor<?xf32>
}
// PIPELINE: error: a tensor of unknown size

// -----

// A dynamic-typed cast of a sized buffer shares that buffer: nothing to
// reject.
func.func @dynamic_view(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %d = tensor.cast %a : tensor<1024xf32> to tensor<?xf32>
  %b = ho.compute "relu"(%d) : (tensor<?xf32>) -> tensor<1024xf32>
  return %b : tensor<1024xf32>
}

// -----

// A tied ho.compute result overwrites its operand, which is read later.
func.func @stale_read(%cache: tensor<16xf32>, %kv: tensor<1xf32>) -> tensor<16xf32> {
  // expected-note @below {{the buffer is overwritten here}}
  %cache2 = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
  // expected-error @below {{operand #0 is read after its buffer was overwritten in place}}
  %y = ho.compute "relu"(%cache) : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
// PIPELINE: error: operand #0 is read after its buffer was overwritten in place

// -----

// A transfer already in the input that nothing awaits.
func.func @never_awaited(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{never awaited}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  return
}
// PIPELINE: error: never awaited
