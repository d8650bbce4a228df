// Inputs ho-report cannot simulate get an error at the offending op.
// RUN: hyperoffload-opt %s --ho-report=hw=ascend910c-host -split-input-file -verify-diagnostics -o /dev/null

func.func @no_such_link(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{target 'ascend910c-host' has no link to the 'pool' tier}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  return
}

// -----

// expected-error @below {{cannot simulate a device tensor of unknown size ('tensor<?xf32>'): give it a static shape}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
