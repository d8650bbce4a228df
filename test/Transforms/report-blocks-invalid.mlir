// A prefetch of picked blocks that no gather reads: the simulator cannot
// tell which blocks it fetches, and says so at the prefetch.
// RUN: hyperoffload-opt %s --ho-report -verify-diagnostics -o /dev/null

func.func @unread(%cache: !ho.remote<tensor<1x8x4xf32>>, %sel: tensor<1x2xi32>) -> tensor<1x2x4xf32> {
  // expected-error @below {{fetches blocks that no ho.gather_blocks reads (through ho.await as its staged operand), so nothing says which blocks it picks}}
  %f = ho.prefetch_blocks %cache[%sel] {axis = 1 : i64, block_size = 1 : i64}
      : !ho.remote<tensor<1x8x4xf32>>, tensor<1x2xi32> -> !ho.future<tensor<1x2x4xf32>>
  %s = ho.await %f : !ho.future<tensor<1x2x4xf32>> -> tensor<1x2x4xf32>
  return %s : tensor<1x2x4xf32>
}
