// Byte sizes past what 64-bit counts hold are diagnosed, never wrapped: a
// shape whose element count wraps to 0 (2^64 f32 elements) or overflows,
// under the pipeline, the report and the verifier; a remote type that big
// does not even parse.
// RUN: not hyperoffload-opt %s --split-input-file --hyperoffload=budget=0.5 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not hyperoffload-opt %s --split-input-file --ho-report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not hyperoffload-opt %s --split-input-file --ho-verify-schedule 2>&1 | FileCheck %s --check-prefix=VERIFY

// PLAN: sizes.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: a tensor of more than 2^59 bytes ('tensor<4294967296x4294967296xf32>')
// REPORT: sizes.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error:
// VERIFY: sizes.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error:
func.func @wraps_to_zero(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %y = ho.compute "add"(%x) : (tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}

// -----

// PLAN: sizes.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: a tensor of more than 2^59 bytes ('tensor<9223372036854775807x2xf32>')
func.func @overflows(%x: tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32> {
  return %x : tensor<9223372036854775807x2xf32>
}

// -----

// Each buffer fits; together they would overflow the planner's sums.
// PLAN: sizes.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: @sum_overflows holds more than 2^59 bytes of buffers (512 PiB)
func.func @sum_overflows(%a: tensor<36028797018963968xi8>, %b: tensor<36028797018963968xi8>, %c: tensor<36028797018963968xi8>, %d: tensor<36028797018963968xi8>, %e: tensor<36028797018963968xi8>, %f: tensor<36028797018963968xi8>, %g: tensor<36028797018963968xi8>, %h: tensor<36028797018963968xi8>, %i: tensor<36028797018963968xi8>, %j: tensor<36028797018963968xi8>, %k: tensor<36028797018963968xi8>, %l: tensor<36028797018963968xi8>, %m: tensor<36028797018963968xi8>, %n: tensor<36028797018963968xi8>, %o: tensor<36028797018963968xi8>, %p: tensor<36028797018963968xi8>, %q: tensor<36028797018963968xi8>) {
  return
}

// -----

// PLAN: sizes.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: !ho.remote needs a tensor of at most 2^59 bytes, but 'tensor<4611686018427387904xf32>' is larger
func.func @remote(%r: !ho.remote<tensor<4611686018427387904xf32>>) {
  return
}

// -----

// Attention on head dimensions of 2^62: its FLOP count overflows and is
// unknown, not wrapped; its two tensors of 2^59 bytes are too many.
// PLAN: sizes.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: @attention holds more than 2^59 bytes of buffers
func.func @attention(%q: tensor<1x1x1x4611686018427387904xi1>) -> tensor<1x1x1x4611686018427387904xi1> {
  %o = ho.compute "attention"(%q, %q, %q) : (tensor<1x1x1x4611686018427387904xi1>, tensor<1x1x1x4611686018427387904xi1>, tensor<1x1x1x4611686018427387904xi1>) -> tensor<1x1x1x4611686018427387904xi1>
  return %o : tensor<1x1x1x4611686018427387904xi1>
}
