// RUN: gptc-opt %s --split-input-file --gptc-count-step-flops | FileCheck %s

// Two micro-steps (gpt.grad_accum = 2): the grad step's products count
// twice, the update's once, the eval step's not at all.
//   matmul 4x8 . (16x8)^T          2 * 4*16 * 8            =  1,024
//   matmul_add (8x4)^T . 8x16      2 * 4*16 * 8            =  1,024
//   attention [1, 2, 16, 8] causal: 16*17/2 = 136 pairs a head,
//     QK^T and PV                  2 * 2 * 2 * 136 * 8     =  8,704
//   attention_grad, 4 products     2 * 4 * 2 * 136 * 8     = 17,408
//   update: matmul 16x16 . 16x16   2 * 256 * 16            =  8,192
//   2 * (1,024 + 1,024 + 8,704 + 17,408) + 8,192           = 64,512
// CHECK-LABEL: module attributes
// CHECK-SAME: gptc.step_flops = 64512 : i64
module attributes {gpt.grad_accum = 2 : i64} {
  func.func @gptc_grad_step(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>,
                            %a: tensor<8x4xf32>, %b: tensor<8x16xf32>,
                            %c: tensor<4x16xf32>, %q: tensor<1x2x16x8xf32>,
                            %lse: tensor<1x2x16xf32>)
      -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x16x8xf32>,
          tensor<1x2x16x8xf32>) {
    %0 = gpt.matmul %x, %w transpose_rhs : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    %1 = gpt.matmul_add %a, %b, %c transpose_lhs alpha = 1.0 beta = 1.0 : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %o:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x16x8xf32>
    %g:3 = gpt.attention_grad %q, %q, %q, %o#0, %o#1, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x16x8xf32>
    return %0, %1, %o#0, %g#0 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  }
  func.func @gptc_update_step(%p: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = gpt.matmul %p, %p : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
  func.func @gptc_eval_step(%p: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = gpt.matmul %p, %p : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}

// -----

// Without a causal mask every query-key pair counts (16 * 16 a head); no
// gpt.grad_accum: one micro-step; no update step.
//   2 * 2 * 2 * 256 * 8 = 16,384
// CHECK-LABEL: module attributes
// CHECK-SAME: gptc.step_flops = 16384 : i64
module {
  func.func @gptc_grad_step(%q: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
    %o:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = false, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x16x8xf32>
    return %o#0 : tensor<1x2x16x8xf32>
  }
}

// -----

// Must not fire: before gptc-build-step there is no grad step to count.
// CHECK-NOT: gptc.step_flops
// CHECK: func.func @forward
module {
  func.func @forward(%p: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = gpt.matmul %p, %p : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}
