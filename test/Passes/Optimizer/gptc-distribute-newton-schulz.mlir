// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-distribute-newton-schulz{ranks=2}))' --split-input-file | FileCheck %s
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-distribute-newton-schulz{ranks=1}))' --split-input-file | FileCheck %s --check-prefix=ONE

// Three stacked matrices over 2 ranks: padded to 4 with a copy of the last
// one, stacked round-robin (rank 0: matrices 0 and 2; rank 1: matrix 1 and
// the padding), each rank orthogonalises its 2, the results are gathered
// and put back in order: matrix 0 at 0, matrix 1 at 2, matrix 2 at 1.
// CHECK-LABEL: func.func @three_over_two
// CHECK-DAG:  %[[M0:.*]] = gpt.slice %[[X:[a-z0-9]+]] offsets = [0, 0, 0] : tensor<3x8x16xf32> to tensor<1x8x16xf32>
// CHECK-DAG:  %[[M2:.*]] = gpt.slice %[[X]] offsets = [2, 0, 0]
// CHECK-DAG:  %[[M1:.*]] = gpt.slice %[[X]] offsets = [1, 0, 0]
// CHECK-DAG:  %[[PAD:.*]] = gpt.slice %[[X]] offsets = [2, 0, 0]
// CHECK:      %[[STACK:.*]] = gpt.concat %[[M0]], %[[M2]], %[[M1]], %[[PAD]] dim = 0 : {{.*}} -> tensor<4x8x16xf32>
// CHECK-NEXT: %[[MINE:.*]] = comm.shard %[[STACK]] world_size = 2 : tensor<4x8x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[U:.*]] = optim.newton_schulz %[[MINE]] steps = 5 {{.*}} compute_dtype = bf16 : tensor<2x8x16xf32>
// CHECK-NEXT: %[[ALL:.*]] = comm.all_gather %[[U]] world_size = 2 : tensor<2x8x16xf32> -> tensor<4x8x16xf32>
// CHECK-NEXT: %[[R0:.*]] = gpt.slice %[[ALL]] offsets = [0, 0, 0]
// CHECK-NEXT: %[[R1:.*]] = gpt.slice %[[ALL]] offsets = [2, 0, 0]
// CHECK-NEXT: %[[R2:.*]] = gpt.slice %[[ALL]] offsets = [1, 0, 0]
// CHECK-NEXT: %[[R:.*]] = gpt.concat %[[R0]], %[[R1]], %[[R2]] dim = 0 : {{.*}} -> tensor<3x8x16xf32>
// CHECK-NEXT: return %[[R]]
// ONE-LABEL: func.func @three_over_two
// ONE-NOT: comm.
// ONE: optim.newton_schulz %arg0
func.func @three_over_two(%x: tensor<3x8x16xf32>) -> tensor<3x8x16xf32> {
  %0 = optim.newton_schulz %x steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<3x8x16xf32>
  return %0 : tensor<3x8x16xf32>
}

// -----

// Must not fire: one matrix (or a stack of one) has nothing to split;
// every rank computes it.
// CHECK-LABEL: func.func @single
// CHECK-NOT: comm.
// CHECK: optim.newton_schulz %arg0
// CHECK: optim.newton_schulz %arg1
func.func @single(%x: tensor<8x16xf32>, %y: tensor<1x8x16xf32>) -> (tensor<8x16xf32>, tensor<1x8x16xf32>) {
  %0 = optim.newton_schulz %x steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<8x16xf32>
  %1 = optim.newton_schulz %y steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<1x8x16xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<1x8x16xf32>
}

// -----

// Must not fire: a dynamic shape stays as it is.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: comm.
// CHECK: optim.newton_schulz %arg0
func.func @dynamic(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = optim.newton_schulz %x steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
