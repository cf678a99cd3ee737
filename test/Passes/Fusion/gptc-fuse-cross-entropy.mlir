// RUN: gptc-opt %s --gptc-fuse-cross-entropy --split-input-file | FileCheck %s

// The loss as the frontend writes it (GraphBuilder::crossEntropy): the
// per-position nll becomes one op; the mean over positions stays.
// CHECK-LABEL: func.func @loss
// CHECK-NEXT:    %[[NLL:.*]] = gpt.cross_entropy %arg0[%arg1] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
// CHECK-NEXT:    %[[M:.*]] = gpt.reduce mean %[[NLL]] dims = [0, 1]
// CHECK-NOT:     gpt.exp
// CHECK-NOT:     gpt.gather_last
func.func @loss(%l: tensor<2x8x512xf32>, %t: tensor<2x8xi32>) -> tensor<1x1xf32> {
  %m = gpt.reduce max %l dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
  %b = gpt.broadcast %m : tensor<2x8x1xf32> to tensor<2x8x512xf32>
  %s = gpt.sub %l, %b : tensor<2x8x512xf32>
  %e = gpt.exp %s : tensor<2x8x512xf32>
  %z = gpt.reduce sum %e dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
  %g = gpt.log %z : tensor<2x8x1xf32>
  %lse = gpt.add %g, %m : tensor<2x8x1xf32>
  %r = gpt.reshape %lse : tensor<2x8x1xf32> to tensor<2x8xf32>
  %x = gpt.gather_last %l[%t] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  %nll = gpt.sub %r, %x : tensor<2x8xf32>
  %mean = gpt.reduce mean %nll dims = [0, 1] : tensor<2x8xf32> -> tensor<1x1xf32>
  return %mean : tensor<1x1xf32>
}

// -----

// Rank 2 logits (positions already flattened), max on the left of the add,
// i64 targets.
// CHECK-LABEL: func.func @flat
// CHECK-NEXT:    %[[NLL:.*]] = gpt.cross_entropy %arg0[%arg1] : tensor<16x64xf32>, tensor<16xi64> -> tensor<16xf32>
// CHECK-NEXT:    return %[[NLL]]
func.func @flat(%l: tensor<16x64xf32>, %t: tensor<16xi64>) -> tensor<16xf32> {
  %m = gpt.reduce max %l dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %b = gpt.broadcast %m : tensor<16x1xf32> to tensor<16x64xf32>
  %s = gpt.sub %l, %b : tensor<16x64xf32>
  %e = gpt.exp %s : tensor<16x64xf32>
  %z = gpt.reduce sum %e dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %g = gpt.log %z : tensor<16x1xf32>
  %lse = gpt.add %m, %g : tensor<16x1xf32>
  %r = gpt.reshape %lse : tensor<16x1xf32> to tensor<16xf32>
  %x = gpt.gather_last %l[%t] : tensor<16x64xf32>, tensor<16xi64> -> tensor<16xf32>
  %nll = gpt.sub %r, %x : tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// Must not fire: the probabilities' numerators have a second user (someone
// needs exp(l - m) itself).
// CHECK-LABEL: func.func @exp_used_twice
// CHECK-NOT:     gpt.cross_entropy
// CHECK:         gpt.gather_last
func.func @exp_used_twice(%l: tensor<16x64xf32>, %t: tensor<16xi32>) -> (tensor<16xf32>, tensor<16x64xf32>) {
  %m = gpt.reduce max %l dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %b = gpt.broadcast %m : tensor<16x1xf32> to tensor<16x64xf32>
  %s = gpt.sub %l, %b : tensor<16x64xf32>
  %e = gpt.exp %s : tensor<16x64xf32>
  %z = gpt.reduce sum %e dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %g = gpt.log %z : tensor<16x1xf32>
  %lse = gpt.add %g, %m : tensor<16x1xf32>
  %r = gpt.reshape %lse : tensor<16x1xf32> to tensor<16xf32>
  %x = gpt.gather_last %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %nll = gpt.sub %r, %x : tensor<16xf32>
  return %nll, %e : tensor<16xf32>, tensor<16x64xf32>
}

// -----

// Must not fire: the max has a third user.
// CHECK-LABEL: func.func @max_used_elsewhere
// CHECK-NOT:     gpt.cross_entropy
func.func @max_used_elsewhere(%l: tensor<16x64xf32>, %t: tensor<16xi32>) -> (tensor<16xf32>, tensor<16x1xf32>) {
  %m = gpt.reduce max %l dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %b = gpt.broadcast %m : tensor<16x1xf32> to tensor<16x64xf32>
  %s = gpt.sub %l, %b : tensor<16x64xf32>
  %e = gpt.exp %s : tensor<16x64xf32>
  %z = gpt.reduce sum %e dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %g = gpt.log %z : tensor<16x1xf32>
  %lse = gpt.add %g, %m : tensor<16x1xf32>
  %r = gpt.reshape %lse : tensor<16x1xf32> to tensor<16xf32>
  %x = gpt.gather_last %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %nll = gpt.sub %r, %x : tensor<16xf32>
  return %nll, %m : tensor<16xf32>, tensor<16x1xf32>
}

// -----

// Must not fire: the target is gathered from another tensor than the one
// normalised (a mismatched pair, not a cross-entropy).
// CHECK-LABEL: func.func @other_logits
// CHECK-NOT:     gpt.cross_entropy
func.func @other_logits(%l: tensor<16x64xf32>, %k: tensor<16x64xf32>, %t: tensor<16xi32>) -> tensor<16xf32> {
  %m = gpt.reduce max %l dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %b = gpt.broadcast %m : tensor<16x1xf32> to tensor<16x64xf32>
  %s = gpt.sub %l, %b : tensor<16x64xf32>
  %e = gpt.exp %s : tensor<16x64xf32>
  %z = gpt.reduce sum %e dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %g = gpt.log %z : tensor<16x1xf32>
  %lse = gpt.add %g, %m : tensor<16x1xf32>
  %r = gpt.reshape %lse : tensor<16x1xf32> to tensor<16xf32>
  %x = gpt.gather_last %k[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %nll = gpt.sub %r, %x : tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// Must not fire: a max over another dimension is not the row's log-sum-exp.
// CHECK-LABEL: func.func @max_over_rows
// CHECK-NOT:     gpt.cross_entropy
func.func @max_over_rows(%l: tensor<16x64xf32>, %t: tensor<16xi32>) -> tensor<16xf32> {
  %m = gpt.reduce max %l dims = [0, 1] : tensor<16x64xf32> -> tensor<1x1xf32>
  %b = gpt.broadcast %m : tensor<1x1xf32> to tensor<16x64xf32>
  %s = gpt.sub %l, %b : tensor<16x64xf32>
  %e = gpt.exp %s : tensor<16x64xf32>
  %z = gpt.reduce sum %e dims = [1] : tensor<16x64xf32> -> tensor<16x1xf32>
  %g = gpt.log %z : tensor<16x1xf32>
  %mb = gpt.broadcast %m : tensor<1x1xf32> to tensor<16x1xf32>
  %lse = gpt.add %g, %mb : tensor<16x1xf32>
  %r = gpt.reshape %lse : tensor<16x1xf32> to tensor<16xf32>
  %x = gpt.gather_last %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %nll = gpt.sub %r, %x : tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// The logits' producers fold in: the bf16 -> f32 cast and the tanh softcap
// 30 tanh(x / 30) (R9-R17), with the frontend's constants as they are.
// CHECK-LABEL: func.func @softcap_tanh
// CHECK-NEXT:    %[[NLL:.*]] = gpt.cross_entropy %arg0[%arg1] softcap <kind = tanh, cap = 3.000000e+01 : f64, scale = 0.033333333333333333 : f64> : tensor<16x64xbf16>, tensor<16xi32> -> tensor<16xf32>
// CHECK-NEXT:    return %[[NLL]]
func.func @softcap_tanh(%z: tensor<16x64xbf16>, %t: tensor<16xi32>) -> tensor<16xf32> {
  %w = gpt.cast %z : tensor<16x64xbf16> to tensor<16x64xf32>
  %a = gpt.mul_scalar %w, 0.033333333333333333 : tensor<16x64xf32>
  %h = gpt.tanh %a : tensor<16x64xf32>
  %l = gpt.mul_scalar %h, 3.000000e+01 : tensor<16x64xf32>
  %nll = gpt.cross_entropy %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// The sigmoid softcap 30 sigmoid(x / 7.5) (R21), f32 logits: nothing to
// widen.
// CHECK-LABEL: func.func @softcap_sigmoid
// CHECK-NEXT:    gpt.cross_entropy %arg0[%arg1] softcap <kind = sigmoid, cap = 3.000000e+01 : f64, scale = 0.13333333333333333 : f64> : tensor<16x64xf32>
// CHECK-NEXT:    return
func.func @softcap_sigmoid(%z: tensor<16x64xf32>, %t: tensor<16xi32>) -> tensor<16xf32> {
  %a = gpt.mul_scalar %z, 0.13333333333333333 : tensor<16x64xf32>
  %h = gpt.sigmoid %a : tensor<16x64xf32>
  %l = gpt.mul_scalar %h, 3.000000e+01 : tensor<16x64xf32>
  %nll = gpt.cross_entropy %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// Must not fire: the squashed logits have another user (they stay, and
// so does the cast under them); only the outer scaling's sole user is the
// op, which is not a softcap on its own.
// CHECK-LABEL: func.func @softcap_used_twice
// CHECK:         gpt.cast
// CHECK:         gpt.tanh
// CHECK:         gpt.mul_scalar
// CHECK:         gpt.cross_entropy %{{.*}}[%arg1] : tensor<16x64xf32>
// CHECK-NOT:     softcap
func.func @softcap_used_twice(%z: tensor<16x64xbf16>, %t: tensor<16xi32>) -> (tensor<16xf32>, tensor<16x64xf32>) {
  %w = gpt.cast %z : tensor<16x64xbf16> to tensor<16x64xf32>
  %a = gpt.mul_scalar %w, 0.033333333333333333 : tensor<16x64xf32>
  %h = gpt.tanh %a : tensor<16x64xf32>
  %l = gpt.mul_scalar %h, 3.000000e+01 : tensor<16x64xf32>
  %nll = gpt.cross_entropy %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return %nll, %h : tensor<16xf32>, tensor<16x64xf32>
}

// -----

// Must not fire: not a softcap (an exp between the scalings; a negative
// cap, which a softcap attribute refuses) and a narrowing cast.
// CHECK-LABEL: func.func @not_softcaps
// CHECK:         gpt.exp
// CHECK:         gpt.cross_entropy %{{.*}}[%arg1] : tensor<16x64xf32>
// CHECK:         gpt.tanh
// CHECK:         gpt.cross_entropy %{{.*}}[%arg1] : tensor<16x64xf32>
// CHECK:         gpt.cast %arg2 : tensor<16x64xf64> to tensor<16x64xf32>
// CHECK:         gpt.cross_entropy %{{.*}}[%arg1] : tensor<16x64xf32>
// CHECK-NOT:     softcap
func.func @not_softcaps(%z: tensor<16x64xf32>, %t: tensor<16xi32>, %d: tensor<16x64xf64>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a = gpt.mul_scalar %z, 0.5 : tensor<16x64xf32>
  %e = gpt.exp %a : tensor<16x64xf32>
  %l = gpt.mul_scalar %e, 3.000000e+01 : tensor<16x64xf32>
  %n1 = gpt.cross_entropy %l[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %b = gpt.mul_scalar %z, 0.5 : tensor<16x64xf32>
  %h = gpt.tanh %b : tensor<16x64xf32>
  %m = gpt.mul_scalar %h, -3.000000e+01 : tensor<16x64xf32>
  %n2 = gpt.cross_entropy %m[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  %w = gpt.cast %d : tensor<16x64xf64> to tensor<16x64xf32>
  %n3 = gpt.cross_entropy %w[%t] : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return %n1, %n2, %n3 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
