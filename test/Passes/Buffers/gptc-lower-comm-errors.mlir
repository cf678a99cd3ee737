// RUN: gptc-opt %s --gptc-lower-comm --verify-diagnostics

// A dynamic shape is an error at the op.
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'comm.all_reduce' op gptc-lower-comm needs static shapes}}
  %r = comm.all_reduce sum %a : tensor<?xf32>
  return %r : tensor<?xf32>
}
