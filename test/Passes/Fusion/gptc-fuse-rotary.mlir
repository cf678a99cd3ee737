// RUN: gptc-opt %s --gptc-fuse-rotary --split-input-file | FileCheck %s

// Rotary as the frontend writes it (tables [1, T, 1, D/2] broadcast to the
// halves): one gpt.rotary.
// CHECK-LABEL: func.func @rotary
// CHECK-NEXT:    %[[Y:.*]] = gpt.rotary %arg0, %arg1, %arg2 : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @rotary(%x: tensor<2x8x2x16xf32>, %cos: tensor<1x8x1x8xf32>, %sin: tensor<1x8x1x8xf32>) -> tensor<2x8x2x16xf32> {
  %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %x2 = gpt.slice %x offsets = [0, 0, 0, 8] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %c = gpt.broadcast %cos : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %s = gpt.broadcast %sin : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %a = gpt.mul %x2, %s : tensor<2x8x2x8xf32>
  %b = gpt.mul %x1, %c : tensor<2x8x2x8xf32>
  %y1 = gpt.add %b, %a : tensor<2x8x2x8xf32>
  %d = gpt.mul %x1, %s : tensor<2x8x2x8xf32>
  %e = gpt.mul %x2, %c : tensor<2x8x2x8xf32>
  %y2 = gpt.sub %e, %d : tensor<2x8x2x8xf32>
  %y = gpt.concat %y1, %y2 dim = 3 : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x2x16xf32>
  return %y : tensor<2x8x2x16xf32>
}

// -----

// Products with the table on the left match too.
// CHECK-LABEL: func.func @table_first
// CHECK-NEXT:    gpt.rotary %arg0, %arg1, %arg2
// CHECK-NOT:     gpt.concat
func.func @table_first(%x: tensor<2x8x2x16xf32>, %cos: tensor<1x8x1x8xf32>, %sin: tensor<1x8x1x8xf32>) -> tensor<2x8x2x16xf32> {
  %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %x2 = gpt.slice %x offsets = [0, 0, 0, 8] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %c = gpt.broadcast %cos : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %s = gpt.broadcast %sin : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %b = gpt.mul %c, %x1 : tensor<2x8x2x8xf32>
  %a = gpt.mul %s, %x2 : tensor<2x8x2x8xf32>
  %y1 = gpt.add %b, %a : tensor<2x8x2x8xf32>
  %e = gpt.mul %c, %x2 : tensor<2x8x2x8xf32>
  %d = gpt.mul %s, %x1 : tensor<2x8x2x8xf32>
  %y2 = gpt.sub %e, %d : tensor<2x8x2x8xf32>
  %y = gpt.concat %y1, %y2 dim = 3 : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x2x16xf32>
  return %y : tensor<2x8x2x16xf32>
}

// -----

// Must not fire: a half is also returned (the slice is needed anyway).
// CHECK-LABEL: func.func @half_escapes
// CHECK-NOT:     gpt.rotary
// CHECK:         gpt.concat
func.func @half_escapes(%x: tensor<2x8x2x16xf32>, %cos: tensor<1x8x1x8xf32>, %sin: tensor<1x8x1x8xf32>) -> (tensor<2x8x2x16xf32>, tensor<2x8x2x8xf32>) {
  %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %x2 = gpt.slice %x offsets = [0, 0, 0, 8] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %c = gpt.broadcast %cos : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %s = gpt.broadcast %sin : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %a = gpt.mul %x2, %s : tensor<2x8x2x8xf32>
  %b = gpt.mul %x1, %c : tensor<2x8x2x8xf32>
  %y1 = gpt.add %b, %a : tensor<2x8x2x8xf32>
  %d = gpt.mul %x1, %s : tensor<2x8x2x8xf32>
  %e = gpt.mul %x2, %c : tensor<2x8x2x8xf32>
  %y2 = gpt.sub %e, %d : tensor<2x8x2x8xf32>
  %y = gpt.concat %y1, %y2 dim = 3 : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x2x16xf32>
  return %y, %x1 : tensor<2x8x2x16xf32>, tensor<2x8x2x8xf32>
}

// -----

// Must not fire: the second half subtracts the other way (not a rotation).
// CHECK-LABEL: func.func @not_a_rotation
// CHECK-NOT:     gpt.rotary
func.func @not_a_rotation(%x: tensor<2x8x2x16xf32>, %cos: tensor<1x8x1x8xf32>, %sin: tensor<1x8x1x8xf32>) -> tensor<2x8x2x16xf32> {
  %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %x2 = gpt.slice %x offsets = [0, 0, 0, 8] : tensor<2x8x2x16xf32> to tensor<2x8x2x8xf32>
  %c = gpt.broadcast %cos : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %s = gpt.broadcast %sin : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %a = gpt.mul %x2, %s : tensor<2x8x2x8xf32>
  %b = gpt.mul %x1, %c : tensor<2x8x2x8xf32>
  %y1 = gpt.add %b, %a : tensor<2x8x2x8xf32>
  %d = gpt.mul %x1, %s : tensor<2x8x2x8xf32>
  %e = gpt.mul %x2, %c : tensor<2x8x2x8xf32>
  %y2 = gpt.sub %d, %e : tensor<2x8x2x8xf32>
  %y = gpt.concat %y1, %y2 dim = 3 : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x2x16xf32>
  return %y : tensor<2x8x2x16xf32>
}

// -----

// Must not fire: halves of another dimension.
// CHECK-LABEL: func.func @other_dim
// CHECK-NOT:     gpt.rotary
func.func @other_dim(%x: tensor<2x8x4x8xf32>, %cos: tensor<1x8x1x8xf32>, %sin: tensor<1x8x1x8xf32>) -> tensor<2x8x4x8xf32> {
  %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<2x8x4x8xf32> to tensor<2x8x2x8xf32>
  %x2 = gpt.slice %x offsets = [0, 0, 2, 0] : tensor<2x8x4x8xf32> to tensor<2x8x2x8xf32>
  %c = gpt.broadcast %cos : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %s = gpt.broadcast %sin : tensor<1x8x1x8xf32> to tensor<2x8x2x8xf32>
  %a = gpt.mul %x2, %s : tensor<2x8x2x8xf32>
  %b = gpt.mul %x1, %c : tensor<2x8x2x8xf32>
  %y1 = gpt.add %b, %a : tensor<2x8x2x8xf32>
  %d = gpt.mul %x1, %s : tensor<2x8x2x8xf32>
  %e = gpt.mul %x2, %c : tensor<2x8x2x8xf32>
  %y2 = gpt.sub %e, %d : tensor<2x8x2x8xf32>
  %y = gpt.concat %y1, %y2 dim = 2 : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  return %y : tensor<2x8x4x8xf32>
}
