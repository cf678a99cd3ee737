// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-lower-warp-mma))' --split-input-file | FileCheck %s

// One warp's bf16 product: nvvm.mma.sync m16n8k16, row-major A, column-major
// B, bf16 operands and f32 accumulators, the same registers; each result an
// extractvalue of the instruction's struct, in order.
// CHECK-LABEL: func.func @product
// CHECK-SAME:    (%[[A0:.*]]: i32, %[[A1:.*]]: i32, %[[A2:.*]]: i32, %[[A3:.*]]: i32, %[[B0:.*]]: i32, %[[B1:.*]]: i32, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[C2:.*]]: f32, %[[C3:.*]]: f32)
// CHECK:         %[[M:.*]] = nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[B0]], %[[B1]]] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK-SAME:      layoutA = #nvvm.mma_layout<row>
// CHECK-SAME:      layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:      multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:      shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         %[[D0:.*]] = llvm.extractvalue %[[M]][0]
// CHECK:         %[[D1:.*]] = llvm.extractvalue %[[M]][1]
// CHECK:         %[[D2:.*]] = llvm.extractvalue %[[M]][2]
// CHECK:         %[[D3:.*]] = llvm.extractvalue %[[M]][3]
// CHECK:         return %[[D3]], %[[D2]], %[[D1]], %[[D0]]
// CHECK-NOT:     gptgpu.warp_mma
func.func @product(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %b0: i32, %b1: i32,
                   %c0: f32, %c1: f32, %c2: f32, %c3: f32)
    -> (f32, f32, f32, f32) {
  %d:4 = gptgpu.warp_mma A[%a0, %a1, %a2, %a3] B[%b0, %b1]
      C[%c0, %c1, %c2, %c3]
  return %d#3, %d#2, %d#1, %d#0 : f32, f32, f32, f32
}

// -----

// Must not fire: a function without gptgpu.warp_mma is unchanged (its
// arithmetic is no product of a warp).
// CHECK-LABEL: func.func @no_product
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    return
// CHECK-NOT:     nvvm.mma.sync
func.func @no_product(%a: f32, %b: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  return %p : f32
}

// -----

// cp.async's groups: a commit and a wait for all but the 1 most recent
// group, in place, between the copy and the load they order.
// CHECK-LABEL: func.func @copy_groups
// CHECK:         nvgpu.device_async_copy
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 1
// CHECK-NEXT:    memref.load
// CHECK-NOT:     gptgpu.async_copy
func.func @copy_groups(%src: memref<64xbf16>,
                       %dst: memref<64xbf16, #gpu.address_space<workgroup>>,
                       %i: index) -> bf16 {
  %t = nvgpu.device_async_copy %src[%i], %dst[%i], 8 {bypassL1}
      : memref<64xbf16> to memref<64xbf16, #gpu.address_space<workgroup>>
  gptgpu.async_copy_commit
  gptgpu.async_copy_wait 1
  %v = memref.load %dst[%i] : memref<64xbf16, #gpu.address_space<workgroup>>
  return %v : bf16
}
