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
