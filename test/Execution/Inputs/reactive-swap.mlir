// Three 4 MiB arguments and four ops: at 14 MB the reactive runtime fetches,
// drops and evicts (test/Transforms/replay-reactive.mlir shows its moves).
func.func @f(%w1: tensor<1048576xf32>, %w2: tensor<1048576xf32>, %x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = ho.compute "a"(%x, %w1) {flops = 20000000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %b = ho.compute "b"(%a, %w2) {flops = 20000000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %c = ho.compute "c"(%b, %w1) {flops = 20000000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %d = ho.compute "d"(%c, %a) {tied_operands = array<i64: 1>} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  return %d : tensor<1048576xf32>
}
