// RUN: gptc-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(gptc-nvgpu-to-nvvm))' \
// RUN:   | FileCheck %s

// In a module of 32-bit index, ldmatrix's and cp.async's addresses are
// computed in i32: the row times the row length plus the column, one
// getelementptr with an i32 offset.
// CHECK-LABEL: gpu.module @narrow
// CHECK:         %[[ROW:.*]] = builtin.unrealized_conversion_cast %arg1 : index to i32
// CHECK:         %[[STRIDE:.*]] = llvm.mlir.constant(136 : index) : i32
// CHECK:         llvm.mul %[[ROW]], %[[STRIDE]] : i32
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// CHECK:         nvvm.ldmatrix
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, bf16
// CHECK:         nvvm.cp.async.shared.global
// CHECK-NOT:     nvgpu.
module attributes {gpu.container_module} {
  gpu.module @narrow attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>} {
    gpu.func @f(%g: memref<64x128xbf16>, %row: index, %col: index) kernel {
      %t = memref.alloca() : memref<32x136xbf16, #gpu.address_space<workgroup>>
      %a = nvgpu.ldmatrix %t[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<32x136xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
      %token = nvgpu.device_async_copy %g[%row, %col], %t[%row, %col], 8 {bypassL1} : memref<64x128xbf16> to memref<32x136xbf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Without a data layout the module keeps the host's 64-bit index, as
// upstream's convert-nvgpu-to-nvvm lowers it.
// CHECK-LABEL: gpu.module @wide
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : index to i64
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, bf16
// CHECK:         nvvm.ldmatrix
module attributes {gpu.container_module} {
  gpu.module @wide {
    gpu.func @f(%row: index, %col: index) kernel {
      %t = memref.alloca() : memref<32x136xbf16, #gpu.address_space<workgroup>>
      %a = nvgpu.ldmatrix %t[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<32x136xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
      gpu.return
    }
  }
}
