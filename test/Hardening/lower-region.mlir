// A transfer inside a loop is not lowered into calls whose handles the loop
// would carry mistyped: ho-lower-to-runtime says where it is.
// RUN: not hyperoffload-opt %s --ho-lower-to-runtime 2>&1 | FileCheck %s

func.func @f(%r: !ho.remote<tensor<1024xf32>>, %x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // CHECK: lower-region.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: is inside a region: the lowering takes transfers in the function body only
  // CHECK: lower-region.mlir:[[# @LINE + 1]]:{{[0-9]+}}: note: inside this 'scf.for'
  %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<1024xf32>) {
    %f = ho.prefetch %r : !ho.remote<tensor<1024xf32>> -> !ho.future<tensor<1024xf32>>
    %t = ho.await %f : !ho.future<tensor<1024xf32>> -> tensor<1024xf32>
    %s = ho.compute "add"(%acc, %t) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    scf.yield %s : tensor<1024xf32>
  }
  return %y : tensor<1024xf32>
}
