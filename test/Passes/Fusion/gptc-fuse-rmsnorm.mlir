// RUN: gptc-opt %s --gptc-fuse-rmsnorm --split-input-file | FileCheck %s

// The block norm as the frontend writes it.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT:    %[[Y:.*]] = gpt.rms_norm %arg0 eps = 7.812500e-03 : tensor<2x8x64xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @plain(%x: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %1 = gpt.square %x : tensor<2x8x64xf32>
  %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %3 = gpt.add_scalar %2, 7.812500e-03 : tensor<2x8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %y = gpt.mul %x, %5 : tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// QK-norm: rank 4, the scale on the left of the product.
// CHECK-LABEL: func.func @qk_norm
// CHECK-NEXT:    gpt.rms_norm %arg0 eps = 7.812500e-03 : tensor<2x8x4x16xf32>
// CHECK-NOT:     gpt.rsqrt
func.func @qk_norm(%x: tensor<2x8x4x16xf32>) -> tensor<2x8x4x16xf32> {
  %1 = gpt.square %x : tensor<2x8x4x16xf32>
  %2 = gpt.reduce mean %1 dims = [3] : tensor<2x8x4x16xf32> -> tensor<2x8x4x1xf32>
  %3 = gpt.add_scalar %2, 7.812500e-03 : tensor<2x8x4x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x4x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x4x1xf32> to tensor<2x8x4x16xf32>
  %y = gpt.mul %5, %x : tensor<2x8x4x16xf32>
  return %y : tensor<2x8x4x16xf32>
}

// -----

// A weight vector after the norm becomes its `weight`.
// CHECK-LABEL: func.func @weighted
// CHECK-NEXT:    %[[Y:.*]] = gpt.rms_norm %arg0 weight %arg1 : tensor<64xf32> eps = 1.000000e-05 : tensor<2x8x64xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @weighted(%x: tensor<2x8x64xf32>, %w: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %1 = gpt.square %x : tensor<2x8x64xf32>
  %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<2x8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %6 = gpt.mul %x, %5 : tensor<2x8x64xf32>
  %7 = gpt.reshape %w : tensor<64xf32> to tensor<1x1x64xf32>
  %8 = gpt.broadcast %7 : tensor<1x1x64xf32> to tensor<2x8x64xf32>
  %y = gpt.mul %6, %8 : tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// A residual add used only by the norm becomes its `residual`, with the
// weight too.
// CHECK-LABEL: func.func @residual_weighted
// CHECK-NEXT:    gpt.rms_norm %arg0 residual %arg1 : tensor<2x8x64xf32> weight %arg2 : tensor<64xf32> eps = 1.000000e-05
// CHECK-NOT:     gpt.add
func.func @residual_weighted(%a: tensor<2x8x64xf32>, %r: tensor<2x8x64xf32>, %w: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %x = gpt.add %a, %r : tensor<2x8x64xf32>
  %1 = gpt.square %x : tensor<2x8x64xf32>
  %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<2x8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %6 = gpt.mul %x, %5 : tensor<2x8x64xf32>
  %7 = gpt.reshape %w : tensor<64xf32> to tensor<1x1x64xf32>
  %8 = gpt.broadcast %7 : tensor<1x1x64xf32> to tensor<2x8x64xf32>
  %y = gpt.mul %6, %8 : tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// The pre-norm residual stream: the sum is also returned, so the add stays
// and the norm takes its result (no `residual`).
// CHECK-LABEL: func.func @residual_with_second_user
// CHECK:         %[[X:.*]] = gpt.add %arg0, %arg1
// CHECK-NEXT:    %[[Y:.*]] = gpt.rms_norm %[[X]] eps
// CHECK-NEXT:    return %[[X]], %[[Y]]
func.func @residual_with_second_user(%a: tensor<2x8x64xf32>, %r: tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>) {
  %x = gpt.add %a, %r : tensor<2x8x64xf32>
  %1 = gpt.square %x : tensor<2x8x64xf32>
  %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<2x8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %y = gpt.mul %x, %5 : tensor<2x8x64xf32>
  return %x, %y : tensor<2x8x64xf32>, tensor<2x8x64xf32>
}

// -----

// Must not fire: the inverse norm has a second user.
// CHECK-LABEL: func.func @intermediate_with_second_user
// CHECK-NOT:     gpt.rms_norm
// CHECK:         gpt.rsqrt
func.func @intermediate_with_second_user(%x: tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x1xf32>) {
  %1 = gpt.square %x : tensor<2x8x64xf32>
  %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<2x8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
  %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %y = gpt.mul %x, %5 : tensor<2x8x64xf32>
  return %y, %4 : tensor<2x8x64xf32>, tensor<2x8x1xf32>
}

// -----

// Must not fire: the mean is over another dimension.
// CHECK-LABEL: func.func @not_the_last_dimension
// CHECK-NOT:     gpt.rms_norm
func.func @not_the_last_dimension(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %1 = gpt.square %x : tensor<8x64xf32>
  %2 = gpt.reduce mean %1 dims = [0] : tensor<8x64xf32> -> tensor<1x64xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<1x64xf32>
  %4 = gpt.rsqrt %3 : tensor<1x64xf32>
  %5 = gpt.broadcast %4 : tensor<1x64xf32> to tensor<8x64xf32>
  %y = gpt.mul %x, %5 : tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Must not fire: the norm of one tensor applied to another.
// CHECK-LABEL: func.func @other_tensor
// CHECK-NOT:     gpt.rms_norm
func.func @other_tensor(%x: tensor<8x64xf32>, %z: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %1 = gpt.square %x : tensor<8x64xf32>
  %2 = gpt.reduce mean %1 dims = [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %3 = gpt.add_scalar %2, 1.000000e-05 : tensor<8x1xf32>
  %4 = gpt.rsqrt %3 : tensor<8x1xf32>
  %5 = gpt.broadcast %4 : tensor<8x1xf32> to tensor<8x64xf32>
  %y = gpt.mul %z, %5 : tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
