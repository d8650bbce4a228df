// A random function (`hyperoffload optimality --seed 198`, at its memory
// lower bound) on which the planner, delaying a committed prefetch past a
// peak, released a link interval that was not reserved as such: the release
// stepped before the start of the link's busy intervals and the planner
// crashed. A release now frees only what is busy.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/random-198.json budget=50065664B rewrites=false" | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/random-198.json budget=50065664B" -o /dev/null

// CHECK-LABEL: func.func @f
// CHECK: ho.prefetch
// CHECK: return

func.func @f(%arg0: tensor<5079x1024xf32>, %arg1: tensor<1396x64xbf16>, %arg2: tensor<82x64xf32> {ho.role = "kv_cache"}, %arg3: tensor<76x64xf32> {ho.role = "kv_cache"}, %arg4: tensor<1178x512xbf16> {ho.role = "weight"}, %arg5: tensor<3387x1024xbf16> {ho.role = "weight"}, %arg6: tensor<6490x512xf32> {ho.role = "weight"}, %arg7: tensor<7707x1024xf32> {ho.role = "weight"}) -> (tensor<82x64xf32>, tensor<76x64xf32>, tensor<4732x1024xbf16>, tensor<15215x64xf32>) {
  %0 = ho.compute "matmul"(%arg5) {flops = 72978164127 : i64} : (tensor<3387x1024xbf16>) -> tensor<977x64xf32>
  %1 = ho.compute "attention"(%arg6, %arg7, %0) {flops = 1262529206 : i64} : (tensor<6490x512xf32>, tensor<7707x1024xf32>, tensor<977x64xf32>) -> tensor<19360x64xf32>
  %2 = ho.compute "add"(%0, %arg1, %arg3) {flops = 357193175 : i64} : (tensor<977x64xf32>, tensor<1396x64xbf16>, tensor<76x64xf32>) -> tensor<25815x512xbf16>
  %3 = ho.compute "kv_append"(%arg2, %2) {tied_operands = array<i64: 0>} : (tensor<82x64xf32>, tensor<25815x512xbf16>) -> tensor<82x64xf32>
  %4 = ho.compute "add"(%arg0, %1) {flops = 12823035845 : i64} : (tensor<5079x1024xf32>, tensor<19360x64xf32>) -> tensor<66x1024xbf16>
  %5 = ho.compute "norm"(%3) {flops = 280136603 : i64} : (tensor<82x64xf32>) -> tensor<32x64xbf16>
  %6 = ho.compute "add"(%arg4, %2, %4) {flops = 16593345589 : i64} : (tensor<1178x512xbf16>, tensor<25815x512xbf16>, tensor<66x1024xbf16>) -> tensor<16456x512xbf16>
  %7 = ho.compute "attention"(%arg4, %6) {flops = 2582483458 : i64} : (tensor<1178x512xbf16>, tensor<16456x512xbf16>) -> tensor<88x512xf32>
  %8 = ho.compute "attention"(%6, %7) {flops = 8145911106 : i64} : (tensor<16456x512xbf16>, tensor<88x512xf32>) -> tensor<4732x1024xbf16>
  %9 = ho.compute "kv_append"(%arg3, %7) {tied_operands = array<i64: 0>} : (tensor<76x64xf32>, tensor<88x512xf32>) -> tensor<76x64xf32>
  %10 = ho.compute "norm"(%arg6, %7) {flops = 3671402187 : i64} : (tensor<6490x512xf32>, tensor<88x512xf32>) -> tensor<239x128xbf16>
  %11 = ho.compute "gelu"(%3) {flops = 537873010 : i64} : (tensor<82x64xf32>) -> tensor<15215x64xf32>
  return %3, %9, %8, %11 : tensor<82x64xf32>, tensor<76x64xf32>, tensor<4732x1024xbf16>, tensor<15215x64xf32>
}
