// RUN: gptc-opt %s --canonicalize --split-input-file | FileCheck %s

// The folders of the gpt dialect.

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %a = gpt.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %b = gpt.transpose %a permutation = [2, 0, 1] : tensor<3x4x2xf32> to tensor<2x3x4xf32>
  return %b : tensor<2x3x4xf32>
}

// -----

// Two transposes that are not inverse: one transpose by the composition.
// CHECK-LABEL: func.func @transposes_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = gpt.transpose %[[X]] permutation = [2, 1, 0] : tensor<2x3x4xf32> to tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transposes_compose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %a = gpt.transpose %x permutation = [1, 0, 2] : tensor<2x3x4xf32> to tensor<3x2x4xf32>
  %b = gpt.transpose %a permutation = [2, 0, 1] : tensor<3x2x4xf32> to tensor<4x3x2xf32>
  return %b : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = gpt.transpose %x permutation = [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// Must not fire: one transpose stays.
// CHECK-LABEL: func.func @one_transpose
// CHECK-NEXT: gpt.transpose
func.func @one_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %a = gpt.transpose %x permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  return %a : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.*]] = gpt.reshape %[[X]] : tensor<2x6xf32> to tensor<3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %a = gpt.reshape %x : tensor<2x6xf32> to tensor<12xf32>
  %b = gpt.reshape %a : tensor<12xf32> to tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_back
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_back(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %a = gpt.reshape %x : tensor<2x6xf32> to tensor<12xf32>
  %b = gpt.reshape %a : tensor<12xf32> to tensor<2x6xf32>
  return %b : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @scale_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = gpt.mul_scalar %[[X]], 2.0
// CHECK-NEXT: return %[[S]]
func.func @scale_by_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = gpt.mul_scalar %x, 1.0 : tensor<4xf32>
  %b = gpt.mul_scalar %a, 2.0 : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// Must not fire: x + 0 is not x for x = -0, so add_scalar 0 stays.
// CHECK-LABEL: func.func @add_zero_stays
// CHECK-NEXT: gpt.add_scalar
func.func @add_zero_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = gpt.add_scalar %x, 0.0 : tensor<4xf32>
  return %a : tensor<4xf32>
}
