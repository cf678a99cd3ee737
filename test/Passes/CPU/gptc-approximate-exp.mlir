// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-approximate-exp))' | FileCheck %s

// f32 exp becomes arith (clamp, range reduction, polynomial, 2^k through
// the exponent bits); NaN still propagates (unordered compares keep it).
// CHECK-LABEL: func.func @f32
// CHECK-NOT:     math.exp
// CHECK:         arith.cmpf uge
// CHECK:         math.fma
// CHECK:         arith.shli
// CHECK:         arith.bitcast
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// Must not fire: f64 stays with libm.
// CHECK-LABEL: func.func @f64
// CHECK:         math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
