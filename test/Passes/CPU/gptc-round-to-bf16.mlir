// RUN: gptc-opt %s --pass-pipeline='builtin.module(gptc-round-to-bf16)' | FileCheck %s

// f32 -> bf16 becomes rounding on the bits (NaN test, 0x7fff + lowest kept
// bit, the high half), and the store stores the i16 bits: no bf16 value is
// left for LLVM to carry as f32 and round with a libcall.
// CHECK-LABEL: llvm.func @store
// CHECK-DAG:     %[[NAN_BITS:.*]] = llvm.mlir.constant(2139095040 : i32) : i32
// CHECK-DAG:     %[[HALF_ULP:.*]] = llvm.mlir.constant(32767 : i32) : i32
// CHECK:         %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK:         %[[ISNAN:.*]] = llvm.icmp "ugt" %{{.*}}, %[[NAN_BITS]]
// CHECK:         %[[BIAS:.*]] = llvm.add %{{.*}}, %[[HALF_ULP]]
// CHECK:         %[[ROUNDED:.*]] = llvm.add %[[BITS]], %[[BIAS]]
// CHECK:         %[[CHOSEN:.*]] = llvm.select %[[ISNAN]], %{{.*}}, %[[ROUNDED]]
// CHECK:         %[[HIGH:.*]] = llvm.lshr %[[CHOSEN]]
// CHECK:         %[[HALF:.*]] = llvm.trunc %[[HIGH]] : i32 to i16
// CHECK:         llvm.store %[[HALF]], %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
// CHECK-NOT:     bf16
// CHECK:         llvm.return
llvm.func @store(%x: f32, %p: !llvm.ptr) {
  %y = llvm.fptrunc %x : f32 to bf16
  llvm.store %y, %p {alignment = 2 : i64} : bf16, !llvm.ptr
  llvm.return
}

// Vectors the same way, with splat constants; widening back to f32 (a
// rounding of an f32 value to bf16 precision) shifts the bits.
// CHECK-LABEL: llvm.func @vector_round_trip
// CHECK:         llvm.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK:         %[[HALF:.*]] = llvm.trunc %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK:         %[[WIDE:.*]] = llvm.zext %[[HALF]] : vector<8xi16> to vector<8xi32>
// CHECK:         %[[SHIFTED:.*]] = llvm.shl %[[WIDE]], %{{.*}} : vector<8xi32>
// CHECK:         %[[F32:.*]] = llvm.bitcast %[[SHIFTED]] : vector<8xi32> to vector<8xf32>
// CHECK-NOT:     bf16
// CHECK:         llvm.return %[[F32]]
llvm.func @vector_round_trip(%x: vector<8xf32>) -> vector<8xf32> {
  %y = llvm.fptrunc %x : vector<8xf32> to vector<8xbf16>
  %z = llvm.fpext %y : vector<8xbf16> to vector<8xf32>
  llvm.return %z : vector<8xf32>
}

// A widened bf16 load: the bits shifted into the high half, so LLVM
// cannot narrow the f32 max back to bf16 arithmetic.
// CHECK-LABEL: llvm.func @widened_load
// CHECK:         %[[LOADED:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK:         %[[BITS:.*]] = llvm.bitcast %[[LOADED]] : bf16 to i16
// CHECK:         %[[WIDE:.*]] = llvm.zext %[[BITS]] : i16 to i32
// CHECK:         %[[SHIFTED:.*]] = llvm.shl %[[WIDE]], %{{.*}} : i32
// CHECK:         %[[F32:.*]] = llvm.bitcast %[[SHIFTED]] : i32 to f32
// CHECK-NOT:     llvm.fpext
// CHECK:         llvm.intr.maximum(%{{.*}}, %[[F32]])
llvm.func @widened_load(%p: !llvm.ptr, %m: f32) -> f32 {
  %0 = llvm.load %p : !llvm.ptr -> bf16
  %1 = llvm.fpext %0 : bf16 to f32
  %2 = llvm.intr.maximum(%m, %1) : (f32, f32) -> f32
  llvm.return %2 : f32
}

// Another user (here a return) takes the bits as bf16.
// CHECK-LABEL: llvm.func @returned
// CHECK:         %[[HALF:.*]] = llvm.trunc %{{.*}} : i32 to i16
// CHECK:         %[[BF16:.*]] = llvm.bitcast %[[HALF]] : i16 to bf16
// CHECK-NOT:     llvm.fptrunc
// CHECK:         llvm.return %[[BF16]] : bf16
llvm.func @returned(%x: f32) -> bf16 {
  %y = llvm.fptrunc %x : f32 to bf16
  llvm.return %y : bf16
}

// Must not fire: other conversions, and stores of loaded bf16 values.
// CHECK-LABEL: llvm.func @others
// CHECK:         llvm.fptrunc %{{.*}} : f64 to f32
// CHECK:         llvm.fptrunc %{{.*}} : f32 to f16
// CHECK:         llvm.fptrunc %{{.*}} : f64 to bf16
// CHECK:         llvm.fpext %{{.*}} : f16 to f32
// CHECK:         %[[LOADED:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK:         llvm.store %[[LOADED]], %{{.*}} : bf16, !llvm.ptr
llvm.func @others(%d: f64, %x: f32, %p: !llvm.ptr) -> !llvm.struct<(f32, f16, bf16)> {
  %0 = llvm.fptrunc %d : f64 to f32
  %1 = llvm.fptrunc %x : f32 to f16
  %2 = llvm.fptrunc %d : f64 to bf16
  %h = llvm.fpext %1 : f16 to f32
  llvm.store %h, %p : f32, !llvm.ptr
  %3 = llvm.load %p : !llvm.ptr -> bf16
  llvm.store %3, %p : bf16, !llvm.ptr
  %u = llvm.mlir.undef : !llvm.struct<(f32, f16, bf16)>
  %s0 = llvm.insertvalue %0, %u[0] : !llvm.struct<(f32, f16, bf16)>
  %s1 = llvm.insertvalue %1, %s0[1] : !llvm.struct<(f32, f16, bf16)>
  %s2 = llvm.insertvalue %2, %s1[2] : !llvm.struct<(f32, f16, bf16)>
  llvm.return %s2 : !llvm.struct<(f32, f16, bf16)>
}
