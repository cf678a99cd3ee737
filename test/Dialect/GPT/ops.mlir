// RUN: gptc-opt %s | gptc-opt | FileCheck %s
// RUN: gptc-opt %s --mlir-print-op-generic | gptc-opt | FileCheck %s

// Round trip of every gpt op, through the custom and the generic form.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x8xi32>, %[[J:.*]]: tensor<4x8xi64>, %[[H:.*]]: tensor<4x8xbf16>)
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<4x8xi32>,
                  %j: tensor<4x8xi64>, %h: tensor<4x8xbf16>) {
  // CHECK: gpt.add %[[A]], %[[B]] : tensor<4x8xf32>
  %0 = gpt.add %a, %b : tensor<4x8xf32>
  // CHECK: gpt.sub %[[A]], %[[B]] : tensor<4x8xf32>
  %1 = gpt.sub %a, %b : tensor<4x8xf32>
  // CHECK: gpt.mul %[[A]], %[[B]] : tensor<4x8xf32>
  %2 = gpt.mul %a, %b : tensor<4x8xf32>
  // CHECK: gpt.div %[[A]], %[[B]] : tensor<4x8xf32>
  %3 = gpt.div %a, %b : tensor<4x8xf32>
  // CHECK: gpt.max %[[A]], %[[B]] : tensor<4x8xf32>
  %4 = gpt.max %a, %b : tensor<4x8xf32>
  // CHECK: gpt.add %[[I]], %[[I]] : tensor<4x8xi32>
  %5 = gpt.add %i, %i : tensor<4x8xi32>
  // CHECK: gpt.sub %[[J]], %[[J]] : tensor<4x8xi64>
  %6 = gpt.sub %j, %j : tensor<4x8xi64>
  // CHECK: gpt.mul %[[H]], %[[H]] : tensor<4x8xbf16>
  %7 = gpt.mul %h, %h : tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[D:.*]]: tensor<4x8xf64>, %[[H:.*]]: tensor<4x8xbf16>)
func.func @unary(%x: tensor<4x8xf32>, %d: tensor<4x8xf64>, %h: tensor<4x8xbf16>) {
  // CHECK: gpt.neg %[[X]] : tensor<4x8xf32>
  %0 = gpt.neg %x : tensor<4x8xf32>
  // CHECK: gpt.exp %[[X]] : tensor<4x8xf32>
  %1 = gpt.exp %x : tensor<4x8xf32>
  // CHECK: gpt.log %[[X]] : tensor<4x8xf32>
  %2 = gpt.log %x : tensor<4x8xf32>
  // CHECK: gpt.sqrt %[[X]] : tensor<4x8xf32>
  %3 = gpt.sqrt %x : tensor<4x8xf32>
  // CHECK: gpt.rsqrt %[[X]] : tensor<4x8xf32>
  %4 = gpt.rsqrt %x : tensor<4x8xf32>
  // CHECK: gpt.tanh %[[X]] : tensor<4x8xf32>
  %5 = gpt.tanh %x : tensor<4x8xf32>
  // CHECK: gpt.sigmoid %[[X]] : tensor<4x8xf32>
  %6 = gpt.sigmoid %x : tensor<4x8xf32>
  // CHECK: gpt.square %[[X]] : tensor<4x8xf32>
  %7 = gpt.square %x : tensor<4x8xf32>
  // CHECK: gpt.relu %[[X]] : tensor<4x8xf32>
  %8 = gpt.relu %x : tensor<4x8xf32>
  // CHECK: gpt.gelu %[[X]] : tensor<4x8xf32>
  %9 = gpt.gelu %x : tensor<4x8xf32>
  // CHECK: gpt.erf %[[X]] : tensor<4x8xf32>
  %14 = gpt.erf %x : tensor<4x8xf32>
  // CHECK: gpt.cos %[[X]] : tensor<4x8xf32>
  %10 = gpt.cos %x : tensor<4x8xf32>
  // CHECK: gpt.sin %[[X]] : tensor<4x8xf32>
  %11 = gpt.sin %x : tensor<4x8xf32>
  // CHECK: gpt.exp %[[D]] : tensor<4x8xf64>
  %12 = gpt.exp %d : tensor<4x8xf64>
  // CHECK: gpt.rsqrt %[[H]] : tensor<4x8xbf16>
  %13 = gpt.rsqrt %h : tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @scalar(%x: tensor<4x8xf32>) {
  // CHECK: gpt.mul_scalar %[[X]], 5.000000e-01 : tensor<4x8xf32>
  %0 = gpt.mul_scalar %x, 5.000000e-01 : tensor<4x8xf32>
  // CHECK: gpt.add_scalar %[[X]], -2.500000e+00 : tensor<4x8xf32>
  %1 = gpt.add_scalar %x, -2.500000e+00 : tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[K:.*]]: tensor<8x8xi32>, %[[Q:.*]]: tensor<8x8xi32>, %[[X:.*]]: tensor<8x8xf32>)
func.func @compare(%k: tensor<8x8xi32>, %q: tensor<8x8xi32>, %x: tensor<8x8xf32>) {
  // CHECK: gpt.compare eq, %[[K]], %[[Q]] : tensor<8x8xi32> -> tensor<8x8xi1>
  %0 = gpt.compare eq, %k, %q : tensor<8x8xi32> -> tensor<8x8xi1>
  // CHECK: gpt.compare ne, %[[K]], %[[Q]] : tensor<8x8xi32> -> tensor<8x8xi1>
  %1 = gpt.compare ne, %k, %q : tensor<8x8xi32> -> tensor<8x8xi1>
  // CHECK: gpt.compare lt, %[[K]], %[[Q]] : tensor<8x8xi32> -> tensor<8x8xi1>
  %2 = gpt.compare lt, %k, %q : tensor<8x8xi32> -> tensor<8x8xi1>
  // CHECK: gpt.compare le, %[[K]], %[[Q]] : tensor<8x8xi32> -> tensor<8x8xi1>
  %3 = gpt.compare le, %k, %q : tensor<8x8xi32> -> tensor<8x8xi1>
  // CHECK: gpt.compare gt, %[[X]], %[[X]] : tensor<8x8xf32> -> tensor<8x8xi1>
  %4 = gpt.compare gt, %x, %x : tensor<8x8xf32> -> tensor<8x8xi1>
  // CHECK: gpt.compare ge, %[[X]], %[[X]] : tensor<8x8xf32> -> tensor<8x8xi1>
  %5 = gpt.compare ge, %x, %x : tensor<8x8xf32> -> tensor<8x8xi1>
  return
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[M:.*]]: tensor<8x8xi1>, %[[S:.*]]: tensor<8x8xf32>, %[[N:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8x8xi1>)
func.func @select(%m: tensor<8x8xi1>, %s: tensor<8x8xf32>, %n: tensor<8x8xf32>,
                  %b: tensor<8x8xi1>) {
  // CHECK: gpt.select %[[M]], %[[S]], %[[N]] : tensor<8x8xi1>, tensor<8x8xf32>
  %0 = gpt.select %m, %s, %n : tensor<8x8xi1>, tensor<8x8xf32>
  // CHECK: gpt.select %[[M]], %[[B]], %[[M]] : tensor<8x8xi1>, tensor<8x8xi1>
  %1 = gpt.select %m, %b, %m : tensor<8x8xi1>, tensor<8x8xi1>
  return
}

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x8xi32>, %[[M:.*]]: tensor<4x8xi1>)
func.func @cast(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>, %m: tensor<4x8xi1>) {
  // CHECK: gpt.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
  %0 = gpt.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: gpt.cast %[[I]] : tensor<4x8xi32> to tensor<4x8xf32>
  %1 = gpt.cast %i : tensor<4x8xi32> to tensor<4x8xf32>
  // CHECK: gpt.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xi64>
  %2 = gpt.cast %x : tensor<4x8xf32> to tensor<4x8xi64>
  // CHECK: gpt.cast %[[M]] : tensor<4x8xi1> to tensor<4x8xf32>
  %3 = gpt.cast %m : tensor<4x8xi1> to tensor<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Constants and index generators
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant
func.func @constant() {
  // CHECK: gpt.constant dense<1.000000e+00> : tensor<4xf32>
  %0 = gpt.constant dense<1.000000e+00> : tensor<4xf32>
  // CHECK: gpt.constant dense<0xFF800000> : tensor<8x8xf32>
  %1 = gpt.constant dense<0xFF800000> : tensor<8x8xf32>
  // CHECK: gpt.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = gpt.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: gpt.constant dense<true> : tensor<2x2xi1>
  %3 = gpt.constant dense<true> : tensor<2x2xi1>
  // CHECK: gpt.constant dense<5.000000e-01> : tensor<bf16>
  %4 = gpt.constant dense<5.000000e-01> : tensor<bf16>
  return
}

// CHECK-LABEL: func.func @iota
func.func @iota() {
  // CHECK: gpt.iota dim = 0 : tensor<8x8xi32>
  %0 = gpt.iota dim = 0 : tensor<8x8xi32>
  // CHECK: gpt.iota dim = 1 : tensor<8x8xi64>
  %1 = gpt.iota dim = 1 : tensor<8x8xi64>
  // CHECK: gpt.iota dim = 0 : tensor<16xf32>
  %2 = gpt.iota dim = 0 : tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xi32>, %[[F:.*]]: tensor<2x64xf32>)
func.func @cumsum(%x: tensor<2x64xi32>, %f: tensor<2x64xf32>) {
  // CHECK: gpt.cumsum %[[X]] dim = 1 : tensor<2x64xi32>
  %0 = gpt.cumsum %x dim = 1 : tensor<2x64xi32>
  // CHECK: gpt.cumsum %[[F]] dim = 0 : tensor<2x64xf32>
  %1 = gpt.cumsum %f dim = 0 : tensor<2x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and contraction
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>)
func.func @reduce(%x: tensor<2x8x64xf32>) {
  // CHECK: gpt.reduce sum %[[X]] dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %0 = gpt.reduce sum %x dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  // CHECK: gpt.reduce mean %[[X]] dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %1 = gpt.reduce mean %x dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  // CHECK: gpt.reduce max %[[X]] dims = [1, 2] : tensor<2x8x64xf32> -> tensor<2x1x1xf32>
  %2 = gpt.reduce max %x dims = [1, 2] : tensor<2x8x64xf32> -> tensor<2x1x1xf32>
  // CHECK: gpt.reduce sum %[[X]] dims = [0, 1, 2] : tensor<2x8x64xf32> -> tensor<1x1x1xf32>
  %3 = gpt.reduce sum %x dims = [0, 1, 2] : tensor<2x8x64xf32> -> tensor<1x1x1xf32>
  return
}

// CHECK-LABEL: func.func @matmul_add
// CHECK-SAME: (%[[A:.*]]: tensor<4x64x64xbf16>, %[[X:.*]]: tensor<4x64x256xbf16>, %[[P:.*]]: tensor<8x16xf32>, %[[Q:.*]]: tensor<12x16xf32>, %[[C:.*]]: tensor<8x12xf32>)
func.func @matmul_add(%a: tensor<4x64x64xbf16>, %x: tensor<4x64x256xbf16>,
                      %p: tensor<8x16xf32>, %q: tensor<12x16xf32>,
                      %c: tensor<8x12xf32>) {
  // CHECK: gpt.matmul_add %[[A]], %[[A]], %[[A]] alpha = -4.775000e+00 beta = 2.031500e+00 : tensor<4x64x64xbf16>, tensor<4x64x64xbf16> -> tensor<4x64x64xbf16>
  %0 = gpt.matmul_add %a, %a, %a alpha = -4.775 beta = 2.0315
      : tensor<4x64x64xbf16>, tensor<4x64x64xbf16> -> tensor<4x64x64xbf16>
  // CHECK: gpt.matmul_add %{{.*}}, %[[X]], %[[X]] alpha = 1.000000e+00 beta = 3.444500e+00 : tensor<4x64x64xbf16>, tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
  %1 = gpt.matmul_add %0, %x, %x alpha = 1.0 beta = 3.4445
      : tensor<4x64x64xbf16>, tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
  // CHECK: gpt.matmul_add %[[P]], %[[Q]], %[[C]] transpose_rhs alpha = 5.000000e-01 beta = 0.000000e+00 : tensor<8x16xf32>, tensor<12x16xf32> -> tensor<8x12xf32>
  %2 = gpt.matmul_add %p, %q, %c transpose_rhs alpha = 0.5 beta = 0.0
      : tensor<8x16xf32>, tensor<12x16xf32> -> tensor<8x12xf32>
  return
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>, %[[W:.*]]: tensor<256x64xf32>, %[[V:.*]]: tensor<64x256xf32>, %[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x4x8x16xf32>, %[[A:.*]]: tensor<8x64xbf16>, %[[B:.*]]: tensor<64x32xbf16>)
func.func @matmul(%x: tensor<2x8x64xf32>, %w: tensor<256x64xf32>,
                  %v: tensor<64x256xf32>, %q: tensor<2x4x8x16xf32>,
                  %k: tensor<2x4x8x16xf32>, %a: tensor<8x64xbf16>,
                  %b: tensor<64x32xbf16>) {
  // CHECK: gpt.matmul %[[A]], %[[B]] : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  %0 = gpt.matmul %a, %b : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  // CHECK: gpt.matmul %[[X]], %[[W]] transpose_rhs : tensor<2x8x64xf32>, tensor<256x64xf32> -> tensor<2x8x256xf32>
  %1 = gpt.matmul %x, %w transpose_rhs
      : tensor<2x8x64xf32>, tensor<256x64xf32> -> tensor<2x8x256xf32>
  // CHECK: gpt.matmul %[[X]], %[[V]] : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  %2 = gpt.matmul %x, %v : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  // CHECK: gpt.matmul %[[Q]], %[[K]] transpose_rhs : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
  %3 = gpt.matmul %q, %k transpose_rhs
      : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
  // CHECK: gpt.matmul %[[Q]], %[[K]] transpose_lhs : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x16x16xf32>
  %4 = gpt.matmul %q, %k transpose_lhs
      : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x16x16xf32>
  // CHECK: gpt.matmul %[[B]], %[[A]] transpose_lhs transpose_rhs : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<32x8xbf16>
  %5 = gpt.matmul %b, %a transpose_lhs transpose_rhs
      : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<32x8xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<512x64xf32>, %[[I:.*]]: tensor<2x8xi32>, %[[J:.*]]: tensor<16xi64>)
func.func @embedding(%t: tensor<512x64xf32>, %i: tensor<2x8xi32>, %j: tensor<16xi64>) {
  // CHECK: gpt.embedding %[[T]][%[[I]]] : tensor<512x64xf32>, tensor<2x8xi32> -> tensor<2x8x64xf32>
  %0 = gpt.embedding %t[%i] : tensor<512x64xf32>, tensor<2x8xi32> -> tensor<2x8x64xf32>
  // CHECK: gpt.embedding %[[T]][%[[J]]] : tensor<512x64xf32>, tensor<16xi64> -> tensor<16x64xf32>
  %1 = gpt.embedding %t[%j] : tensor<512x64xf32>, tensor<16xi64> -> tensor<16x64xf32>
  return
}

// CHECK-LABEL: func.func @gather_last
// CHECK-SAME: (%[[L:.*]]: tensor<2x8x512xf32>, %[[T:.*]]: tensor<2x8xi32>)
func.func @gather_last(%l: tensor<2x8x512xf32>, %t: tensor<2x8xi32>) {
  // CHECK: gpt.gather_last %[[L]][%[[T]]] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  %0 = gpt.gather_last %l[%t] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  return
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x1xf32>, %[[M:.*]]: tensor<1x1x8x8xi1>)
func.func @broadcast(%x: tensor<2x8x1xf32>, %m: tensor<1x1x8x8xi1>) {
  // CHECK: gpt.broadcast %[[X]] : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  %0 = gpt.broadcast %x : tensor<2x8x1xf32> to tensor<2x8x64xf32>
  // CHECK: gpt.broadcast %[[M]] : tensor<1x1x8x8xi1> to tensor<2x4x8x8xi1>
  %1 = gpt.broadcast %m : tensor<1x1x8x8xi1> to tensor<2x4x8x8xi1>
  return
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>)
func.func @reshape(%x: tensor<2x8x64xf32>) {
  // CHECK: gpt.reshape %[[X]] : tensor<2x8x64xf32> to tensor<2x8x4x16xf32>
  %0 = gpt.reshape %x : tensor<2x8x64xf32> to tensor<2x8x4x16xf32>
  // CHECK: gpt.reshape %[[X]] : tensor<2x8x64xf32> to tensor<1024xf32>
  %1 = gpt.reshape %x : tensor<2x8x64xf32> to tensor<1024xf32>
  return
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x4x16xf32>)
func.func @transpose(%x: tensor<2x8x4x16xf32>) {
  // CHECK: gpt.transpose %[[X]] permutation = [0, 2, 1, 3] : tensor<2x8x4x16xf32> to tensor<2x4x8x16xf32>
  %0 = gpt.transpose %x permutation = [0, 2, 1, 3]
      : tensor<2x8x4x16xf32> to tensor<2x4x8x16xf32>
  // CHECK: gpt.transpose %[[X]] permutation = [3, 2, 1, 0] : tensor<2x8x4x16xf32> to tensor<16x4x8x2xf32>
  %1 = gpt.transpose %x permutation = [3, 2, 1, 0]
      : tensor<2x8x4x16xf32> to tensor<16x4x8x2xf32>
  return
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>)
func.func @slice(%x: tensor<2x8x64xf32>) {
  // CHECK: gpt.slice %[[X]] offsets = [0, 0, 32] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
  %0 = gpt.slice %x offsets = [0, 0, 32] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
  // CHECK: gpt.slice %[[X]] offsets = [1, 7, 0] : tensor<2x8x64xf32> to tensor<1x1x64xf32>
  %1 = gpt.slice %x offsets = [1, 7, 0] : tensor<2x8x64xf32> to tensor<1x1x64xf32>
  return
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x32xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
func.func @concat(%a: tensor<2x8x32xf32>, %b: tensor<2x8x16xf32>) {
  // CHECK: gpt.concat %[[A]], %[[B]] dim = 2 : (tensor<2x8x32xf32>, tensor<2x8x16xf32>) -> tensor<2x8x48xf32>
  %0 = gpt.concat %a, %b dim = 2
      : (tensor<2x8x32xf32>, tensor<2x8x16xf32>) -> tensor<2x8x48xf32>
  // CHECK: gpt.concat %[[A]], %[[A]], %[[A]] dim = 0 : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<6x8x32xf32>
  %1 = gpt.concat %a, %a, %a dim = 0
      : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<6x8x32xf32>
  // CHECK: gpt.concat %[[A]] dim = 1 : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %2 = gpt.concat %a dim = 1 : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return
}

// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x192xf32>)
func.func @split(%x: tensor<2x8x192xf32>) {
  // CHECK: %{{.*}}:3 = gpt.split %[[X]] dim = 2 : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  %q, %k, %v = gpt.split %x dim = 2
      : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  // CHECK: %{{.*}}:2 = gpt.split %[[X]] dim = 0 : tensor<2x8x192xf32> -> tensor<1x8x192xf32>, tensor<1x8x192xf32>
  %a:2 = gpt.split %x dim = 0
      : tensor<2x8x192xf32> -> tensor<1x8x192xf32>, tensor<1x8x192xf32>
  // CHECK: gpt.split %[[X]] dim = 1 : tensor<2x8x192xf32> -> tensor<2x8x192xf32>
  %b = gpt.split %x dim = 1 : tensor<2x8x192xf32> -> tensor<2x8x192xf32>
  return
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>, %[[R:.*]]: tensor<2x8x64xf32>, %[[W:.*]]: tensor<64xf32>)
func.func @rms_norm(%x: tensor<2x8x64xf32>, %r: tensor<2x8x64xf32>, %w: tensor<64xf32>) {
  // CHECK: gpt.rms_norm %[[X]] eps = 9.9999999999999995E-7 : tensor<2x8x64xf32>
  %0 = gpt.rms_norm %x eps = 1.000000e-06 : tensor<2x8x64xf32>
  // CHECK: gpt.rms_norm %[[X]] weight %[[W]] : tensor<64xf32> eps = 9.9999999999999995E-7 : tensor<2x8x64xf32>
  %1 = gpt.rms_norm %x weight %w : tensor<64xf32> eps = 1.000000e-06
      : tensor<2x8x64xf32>
  // CHECK: gpt.rms_norm %[[X]] residual %[[R]] : tensor<2x8x64xf32> eps = 1.000000e-05 : tensor<2x8x64xf32>
  %2 = gpt.rms_norm %x residual %r : tensor<2x8x64xf32> eps = 1.000000e-05
      : tensor<2x8x64xf32>
  // CHECK: gpt.rms_norm %[[X]] residual %[[R]] : tensor<2x8x64xf32> weight %[[W]] : tensor<64xf32> eps = 1.000000e-05 : tensor<2x8x64xf32>
  %3 = gpt.rms_norm %x residual %r : tensor<2x8x64xf32> weight %w : tensor<64xf32>
      eps = 1.000000e-05 : tensor<2x8x64xf32>
  return
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[L:.*]]: tensor<2x8x512xf32>, %[[T:.*]]: tensor<2x8xi32>, %[[G:.*]]: tensor<2x8xf32>)
func.func @cross_entropy(%l: tensor<2x8x512xf32>, %t: tensor<2x8xi32>,
                         %g: tensor<2x8xf32>) {
  // CHECK: gpt.cross_entropy %[[L]][%[[T]]] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  %0 = gpt.cross_entropy %l[%t] : tensor<2x8x512xf32>, tensor<2x8xi32>
      -> tensor<2x8xf32>
  // CHECK: gpt.cross_entropy_grad %[[L]][%[[T]]], %[[G]] : tensor<2x8x512xf32>, tensor<2x8xi32>, tensor<2x8xf32>
  %1 = gpt.cross_entropy_grad %l[%t], %g : tensor<2x8x512xf32>,
      tensor<2x8xi32>, tensor<2x8xf32>
  return
}

// Softcapped, over bf16 logits with an f32 loss.
// CHECK-LABEL: func.func @cross_entropy_softcap
func.func @cross_entropy_softcap(%l: tensor<16x512xbf16>, %t: tensor<16xi32>,
                                 %g: tensor<16xf32>) {
  // CHECK: gpt.cross_entropy %{{.*}}[%{{.*}}] softcap <kind = tanh, cap = 3.000000e+01 : f64, scale = 0.033333333333333333 : f64> : tensor<16x512xbf16>, tensor<16xi32> -> tensor<16xf32>
  %0 = gpt.cross_entropy %l[%t] softcap <kind = tanh,
      cap = 3.0e+01 : f64, scale = 0.033333333333333333 : f64>
      : tensor<16x512xbf16>, tensor<16xi32> -> tensor<16xf32>
  // CHECK: gpt.cross_entropy_grad %{{.*}}[%{{.*}}], %{{.*}} softcap <kind = sigmoid, cap = 3.000000e+01 : f64, scale = 1.250000e-01 : f64> : tensor<16x512xbf16>, tensor<16xi32>, tensor<16xf32>
  %1 = gpt.cross_entropy_grad %l[%t], %g softcap <kind = sigmoid,
      cap = 3.0e+01 : f64, scale = 0.125 : f64>
      : tensor<16x512xbf16>, tensor<16xi32>, tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x256x32xf32>, %[[K:.*]]: tensor<1x2x256x32xf32>, %[[V:.*]]: tensor<1x2x256x32xf32>, %[[T:.*]]: tensor<1x256xi32>, %[[W:.*]]: tensor<i64>)
func.func @attention(%q: tensor<1x2x256x32xf32>, %k: tensor<1x2x256x32xf32>,
                     %v: tensor<1x2x256x32xf32>, %t: tensor<1x256xi32>,
                     %w: tensor<i64>) {
  // Causal only.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] mask = <causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %0:2 = gpt.attention %q, %k, %v
      mask = #gpt.mask<causal = true, window = none, bos = -1>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // Causal with a sliding window in tokens.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] window %[[W]] : tensor<i64> mask = <causal = true, window = tokens, bos = -1> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %1:2 = gpt.attention %q, %k, %v window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = tokens, bos = -1>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // Causal with a sliding window in 128-token blocks.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] window %[[W]] : tensor<i64> mask = <causal = true, window = blocks, bos = -1> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %2:2 = gpt.attention %q, %k, %v window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = blocks, bos = -1>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // Causal document mask.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] tokens %[[T]] : tensor<1x256xi32> mask = <causal = true, window = none, bos = 50256> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %3:2 = gpt.attention %q, %k, %v tokens %t : tensor<1x256xi32>
      mask = #gpt.mask<causal = true, window = none, bos = 50256>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // Causal, block window and document: both optional operands.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] tokens %[[T]] : tensor<1x256xi32> window %[[W]] : tensor<i64> mask = <causal = true, window = blocks, bos = 50256> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %4:2 = gpt.attention %q, %k, %v tokens %t : tensor<1x256xi32>
      window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = blocks, bos = 50256>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // Causal, token window and document; bos = 0 is a valid token id.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] tokens %[[T]] : tensor<1x256xi32> window %[[W]] : tensor<i64> mask = <causal = true, window = tokens, bos = 0> scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  %5:2 = gpt.attention %q, %k, %v tokens %t : tensor<1x256xi32>
      window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = tokens, bos = 0>
      scale = 1.250000e-01 : tensor<1x2x256x32xf32>
  // The records' precision: bf16 operands of both products.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] mask = <causal = true, window = none, bos = -1> scale = 1.250000e-01 products = bf16 : tensor<1x2x256x32xf32>
  %p:2 = gpt.attention %q, %k, %v
      mask = #gpt.mask<causal = true, window = none, bos = -1>
      scale = 1.250000e-01 products = bf16 : tensor<1x2x256x32xf32>
  // Non-causal (bidirectional).
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] mask = <causal = false, window = none, bos = -1> scale = 1.000000e+00 : tensor<1x2x256x32xf32>
  %6:2 = gpt.attention %q, %k, %v
      mask = #gpt.mask<causal = false, window = none, bos = -1>
      scale = 1.000000e+00 : tensor<1x2x256x32xf32>
  // Non-causal document mask.
  // CHECK: gpt.attention %[[Q]], %[[K]], %[[V]] tokens %[[T]] : tensor<1x256xi32> mask = <causal = false, window = none, bos = 1> scale = 1.000000e+00 : tensor<1x2x256x32xf32>
  %7:2 = gpt.attention %q, %k, %v tokens %t : tensor<1x256xi32>
      mask = #gpt.mask<causal = false, window = none, bos = 1>
      scale = 1.000000e+00 : tensor<1x2x256x32xf32>
  return
}

// A token window does not constrain the sequence length; i64 tokens.
// CHECK-LABEL: func.func @attention_short
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xbf16>, %[[T:.*]]: tensor<2x8xi64>, %[[W:.*]]: tensor<i64>)
func.func @attention_short(%q: tensor<2x4x8x16xbf16>, %t: tensor<2x8xi64>,
                           %w: tensor<i64>) {
  // CHECK: gpt.attention %[[Q]], %[[Q]], %[[Q]] tokens %[[T]] : tensor<2x8xi64> window %[[W]] : tensor<i64> mask = <causal = true, window = tokens, bos = 3> scale = 2.500000e-01 : tensor<2x4x8x16xbf16>
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<2x8xi64> window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = tokens, bos = 3>
      scale = 2.500000e-01 : tensor<2x4x8x16xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Backward-graph ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME: (%[[G:.*]]: tensor<2x8x64xf32>, %[[I:.*]]: tensor<2x8xi32>, %[[J:.*]]: tensor<16xi64>, %[[H:.*]]: tensor<16x64xf32>)
func.func @embedding_grad(%g: tensor<2x8x64xf32>, %i: tensor<2x8xi32>,
                          %j: tensor<16xi64>, %h: tensor<16x64xf32>) {
  // CHECK: gpt.embedding_grad %[[G]][%[[I]]] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512x64xf32>
  %0 = gpt.embedding_grad %g[%i] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512x64xf32>
  // CHECK: gpt.embedding_grad %[[H]][%[[J]]] : tensor<16x64xf32>, tensor<16xi64> -> tensor<50304x64xf32>
  %1 = gpt.embedding_grad %h[%j] : tensor<16x64xf32>, tensor<16xi64> -> tensor<50304x64xf32>
  return
}

// CHECK-LABEL: func.func @scatter_last
// CHECK-SAME: (%[[G:.*]]: tensor<2x8xf32>, %[[T:.*]]: tensor<2x8xi32>)
func.func @scatter_last(%g: tensor<2x8xf32>, %t: tensor<2x8xi32>) {
  // CHECK: gpt.scatter_last %[[G]][%[[T]]] : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x8x512xf32>
  %0 = gpt.scatter_last %g[%t] : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x8x512xf32>
  return
}

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xf32>)
func.func @pad(%x: tensor<2x8x32xf32>) {
  // CHECK: gpt.pad %[[X]] offsets = [0, 0, 32] : tensor<2x8x32xf32> to tensor<2x8x64xf32>
  %0 = gpt.pad %x offsets = [0, 0, 32] : tensor<2x8x32xf32> to tensor<2x8x64xf32>
  // CHECK: gpt.pad %[[X]] offsets = [1, 0, 0] : tensor<2x8x32xf32> to tensor<3x8x32xf32>
  %1 = gpt.pad %x offsets = [1, 0, 0] : tensor<2x8x32xf32> to tensor<3x8x32xf32>
  return
}

// The mask attribute on its own, outside an op.
// CHECK-LABEL: func.func @mask_attr
// CHECK-SAME: gpt.m = #gpt.mask<causal = true, window = blocks, bos = 50256>
func.func @mask_attr() attributes {gpt.m = #gpt.mask<causal = true, window = blocks, bos = 50256>} {
  return
}

// CHECK-LABEL: func.func @rotary
// CHECK: gpt.rotary %arg0, %arg1, %arg2 : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
// CHECK: gpt.rotary %arg0, %arg1, %arg2 inverse : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
func.func @rotary(%x: tensor<2x8x2x16xf32>, %c: tensor<1x8x1x8xf32>, %s: tensor<1x8x1x8xf32>) -> (tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>) {
  %y = gpt.rotary %x, %c, %s : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
  %z = gpt.rotary %x, %c, %s inverse : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
  return %y, %z : tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>
}
