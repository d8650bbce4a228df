// A called function keeps its signature: it runs as written inside its
// caller's plan, and must fit the budget as written; inlining first plans
// its work with the caller's. Round-numbers target: tensor<250000xf32> is
// 1 MB.
// RUN: not hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=3.5MB" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CALLED
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=4MB" | FileCheck %s --check-prefix=FITS
// RUN: hyperoffload-opt %s --inline --hyperoffload="hw=%S/Inputs/round-numbers.json budget=3.5MB" | FileCheck %s --check-prefix=INLINED

// CALLED: error: @helper is called, so its plan cannot change its signature, and as written its peak of 4000000 bytes is over the budget of 3500000 bytes: inline it (--inline) to plan it with its caller
// FITS-LABEL: func.func private @helper(%{{.*}}: tensor<250000xf32> {ho.offset = {{[0-9]+}} : i64}, %{{.*}}: tensor<250000xf32> {ho.offset = {{[0-9]+}} : i64}) -> tensor<250000xf32>
// FITS-NOT: ho.prefetch
// FITS: func.func @main
// FITS: call @helper(%{{.*}}, %{{.*}}) {{.*}}: (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
// INLINED-NOT: @helper
// INLINED: func.func @main(%{{.*}}: !ho.remote<tensor<250000xf32>
// INLINED: ho.prefetch
func.func private @helper(%a: tensor<250000xf32>, %b: tensor<250000xf32>) -> tensor<250000xf32> {
  %x = ho.compute "relu"(%a) {flops = 1000000000 : i64} : (tensor<250000xf32>) -> tensor<250000xf32>
  %y = ho.compute "add"(%x, %b) {flops = 1000000000 : i64} : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %y : tensor<250000xf32>
}

func.func @main(%a: tensor<250000xf32>, %b: tensor<250000xf32>) -> tensor<250000xf32> {
  %r = func.call @helper(%a, %b) : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %r : tensor<250000xf32>
}
