// Lists the parser guard must let through to MLIR's own parsers.
func.func @lists(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %v: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) {
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [0x1,
      // a comment inside the list
      0]
  %g = "linalg.transpose"(%a, %b) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = linalg.broadcast ins(%v : tensor<3xf32>) outs(%b : tensor<3x2xf32>) dimensions = [ 1 ]
  %r = linalg.reduce ins(%b : tensor<3x2xf32>) outs(%v : tensor<3xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %t, %g, %c, %r : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>
}
// WELL-LABEL: func.func @lists
// WELL-COUNT-2: linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// WELL: linalg.broadcast
// WELL: linalg.reduce
