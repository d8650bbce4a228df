// MLIR 22's linalg.transpose, linalg.broadcast and linalg.reduce parsers
// segfault on a malformed list after `permutation =` or `dimensions =`;
// the tools say where it is instead (InputGuards.h). Well-formed lists,
// in any spelling the lexer takes, and the generic form pass untouched.
// RUN: not hyperoffload-opt %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not hyperoffload compare %s --hw ascend910c-supernode --budget 1 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: hyperoffload-opt %S/Inputs/well-formed-lists.mlir | FileCheck %S/Inputs/well-formed-lists.mlir --check-prefix=WELL

func.func @lists(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %v: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) {
  // CHECK: upstream-parser.mlir:[[# @LINE + 1]]:96: error: expected a list of 64-bit integers, `permutation = [i, j, ...]`, for 'linalg.transpose' (MLIR 22's parser of that op crashes on anything else)
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, ]
  // CHECK: upstream-parser.mlir:[[# @LINE + 1]]:89: error: expected a list of 64-bit integers, `dimensions = [i, j, ...]`, for 'linalg.broadcast'
  %c = linalg.broadcast ins(%v : tensor<3xf32>) outs(%b : tensor<3x2xf32>) dimensions = 1
  // CHECK: upstream-parser.mlir:[[# @LINE + 1]]:87: error: expected a list of 64-bit integers, `dimensions = [i, j, ...]`, for 'linalg.reduce'
  %r = linalg.reduce ins(%b : tensor<3x2xf32>) outs(%v : tensor<3xf32>) dimensions = [99999999999999999999]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %t, %c, %r : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>
}
