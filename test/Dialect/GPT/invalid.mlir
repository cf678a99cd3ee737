// RUN: gptc-opt %s -split-input-file -verify-diagnostics

// One case per error the gpt verifiers (GPTOps.cpp, GPTShapeOps.cpp,
// GPTGradOps.cpp, MaskAttr::verify) can emit, then ODS constraint errors.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @compare_shape(%a: tensor<8x8xi32>) {
  // expected-error @+1 {{'gpt.compare' op result shape must match the operand shape}}
  %0 = gpt.compare lt, %a, %a : tensor<8x8xi32> -> tensor<8x4xi1>
  return
}

// -----

func.func @select_shape(%m: tensor<8x4xi1>, %x: tensor<8x8xf32>) {
  // expected-error @+1 {{'gpt.select' op condition shape must match the value shape}}
  %0 = gpt.select %m, %x, %x : tensor<8x4xi1>, tensor<8x8xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'gpt.cast' op result shape must match the input shape}}
  %0 = gpt.cast %x : tensor<4x8xf32> to tensor<8x4xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Index generators
//===----------------------------------------------------------------------===//

// -----

func.func @iota_negative_dim() {
  // expected-error @+1 {{'gpt.iota' op dim -1 is out of range for rank 2}}
  %0 = gpt.iota dim = -1 : tensor<8x8xi32>
  return
}

// -----

func.func @iota_scalar() {
  // expected-error @+1 {{'gpt.iota' op dim 0 is out of range for rank 0}}
  %0 = gpt.iota dim = 0 : tensor<i32>
  return
}

// -----

func.func @cumsum_dim(%x: tensor<2x64xi32>) {
  // expected-error @+1 {{'gpt.cumsum' op dim 2 is out of range for rank 2}}
  %0 = gpt.cumsum %x dim = 2 : tensor<2x64xi32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op result element type must match the input}}
  %0 = gpt.reduce sum %x dims = [1] : tensor<2x8xf32> -> tensor<2x1xbf16>
  return
}

// -----

func.func @reduce_rank(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op result must keep the input rank (reduced dimensions become size 1)}}
  %0 = gpt.reduce sum %x dims = [1] : tensor<2x8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_no_dims(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op dims must name at least one dimension}}
  %0 = gpt.reduce sum %x dims = [] : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @reduce_dim_range(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op dim 2 is out of range for rank 2}}
  %0 = gpt.reduce max %x dims = [2] : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @reduce_negative_dim(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op dim -1 is out of range for rank 2}}
  %0 = gpt.reduce max %x dims = [-1] : tensor<2x8xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @reduce_duplicate_dims(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op dims must be strictly increasing}}
  %0 = gpt.reduce mean %x dims = [1, 1] : tensor<2x8xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @reduce_decreasing_dims(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op dims must be strictly increasing}}
  %0 = gpt.reduce mean %x dims = [1, 0] : tensor<2x8xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @reduce_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.reduce' op result shape must be the input shape with the reduced dimensions set to 1}}
  %0 = gpt.reduce sum %x dims = [1] : tensor<2x8xf32> -> tensor<1x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'gpt.matmul' op operands must have rank >= 2}}
  %0 = gpt.matmul %a, %b : tensor<8xf32>, tensor<8x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xf32>, %b: tensor<8x4xbf16>) {
  // expected-error @+1 {{'gpt.matmul' op operand element types must match}}
  %0 = gpt.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xbf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.matmul' op rhs must have the rank of lhs, or be a rank-2 matrix}}
  %0 = gpt.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'gpt.matmul' op batch dimensions of lhs and rhs must match}}
  %0 = gpt.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_contraction(%x: tensor<2x8x64xf32>, %w: tensor<256x64xf32>) {
  // Without transpose_rhs, W (256x64) contracts over 256.
  // expected-error @+1 {{'gpt.matmul' op contraction sizes differ: lhs has 64, rhs has 256}}
  %0 = gpt.matmul %x, %w : tensor<2x8x64xf32>, tensor<256x64xf32> -> tensor<2x8x64xf32>
  return
}

// -----

func.func @matmul_add_contraction(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) {
  // The shape rules are gpt.matmul's.
  // expected-error @+1 {{'gpt.matmul_add' op contraction sizes differ: lhs has 8, rhs has 4}}
  %0 = gpt.matmul_add %a, %b, %c alpha = 1.0 beta = 1.0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_add_addend(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x8xf32>) {
  // expected-error @+1 {{'gpt.matmul_add' op result type must be 'tensor<4x4xf32>'}}
  %0 = gpt.matmul_add %a, %b, %c alpha = 1.0 beta = 1.0 : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_add_alpha(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) {
  // alpha = +inf
  // expected-error @+1 {{'gpt.matmul_add' op alpha must be finite}}
  %0 = gpt.matmul_add %a, %b, %c alpha = 0x7FF0000000000000 beta = 1.0 : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{'gpt.matmul' op result type must be 'tensor<8x8xf32>'}}
  %0 = gpt.matmul %a, %b transpose_lhs : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_result_element_type(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) {
  // expected-error @+1 {{'gpt.matmul' op result type must be 'tensor<4x4xbf16>'}}
  %0 = gpt.matmul %a, %b : tensor<4x8xbf16>, tensor<8x4xbf16> -> tensor<4x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

// -----

func.func @rms_norm_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'gpt.rms_norm' op input must have rank >= 1 (it is normalised over its last dimension)}}
  %0 = gpt.rms_norm %x eps = 1.000000e-06 : tensor<f32>
  return
}

// -----

func.func @rms_norm_scalar_weight(%x: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op input must have rank >= 1}}
  %0 = gpt.rms_norm %x weight %w : tensor<1xf32> eps = 1.000000e-06 : tensor<f32>
  return
}

// -----

func.func @rms_norm_eps_zero(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op eps must be positive and finite, got 0}}
  %0 = gpt.rms_norm %x eps = 0.000000e+00 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_eps_negative(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op eps must be positive and finite}}
  %0 = gpt.rms_norm %x eps = -1.000000e-06 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_eps_nan(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op eps must be positive and finite, got nan}}
  %0 = gpt.rms_norm %x eps = 0x7FF8000000000000 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_eps_inf(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op eps must be positive and finite, got INF}}
  %0 = gpt.rms_norm %x eps = 0x7FF0000000000000 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_weight_size(%x: tensor<2x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op weight must be a vector of the last dimension (64) with the input's element type}}
  %0 = gpt.rms_norm %x weight %w : tensor<32xf32> eps = 1.000000e-06 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_weight_rank(%x: tensor<2x64xf32>, %w: tensor<1x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op weight must be a vector of the last dimension (64)}}
  %0 = gpt.rms_norm %x weight %w : tensor<1x64xf32> eps = 1.000000e-06 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_weight_type(%x: tensor<2x64xf32>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{'gpt.rms_norm' op weight must be a vector of the last dimension (64) with the input's element type}}
  %0 = gpt.rms_norm %x weight %w : tensor<64xbf16> eps = 1.000000e-06 : tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_residual(%x: tensor<2x64xf32>, %r: tensor<2x64xbf16>) {
  // expected-error @+1 {{'gpt.rms_norm' op residual must have the input's type}}
  %0 = gpt.rms_norm %x residual %r : tensor<2x64xbf16> eps = 1.000000e-06 : tensor<2x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// attention and #gpt.mask
//===----------------------------------------------------------------------===//

// -----

func.func @attention_rank(%q: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op query, key and value must be [batch, heads, seq, head_dim]}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_products_f32(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op products must be bf16, narrower than the element type 'f32'}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 products = f32 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_products_of_bf16(%q: tensor<1x2x8x16xbf16>) {
  // expected-error @+1 {{'gpt.attention' op products must be bf16, narrower than the element type 'bf16'}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 products = bf16 : tensor<1x2x8x16xbf16>
  return
}

// -----

func.func @attention_scale_zero(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op scale must be positive and finite, got 0}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.000000e+00 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_scale_negative(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op scale must be positive and finite}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = -2.500000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_scale_nan(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op scale must be positive and finite, got nan}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0x7FF8000000000000 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_document_without_tokens(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op a document mask needs the tokens operand, and only a document mask takes it}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = 50256> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_tokens_without_document(%q: tensor<1x2x8x16xf32>, %t: tensor<1x8xi32>) {
  // expected-error @+1 {{'gpt.attention' op a document mask needs the tokens operand, and only a document mask takes it}}
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<1x8xi32> mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_window_without_operand(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op a sliding window needs the window operand, and only a windowed mask takes it}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = tokens, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_operand_without_window(%q: tensor<1x2x8x16xf32>, %w: tensor<i64>) {
  // expected-error @+1 {{'gpt.attention' op a sliding window needs the window operand, and only a windowed mask takes it}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<i64> mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_tokens_shape(%q: tensor<2x2x8x16xf32>, %t: tensor<2x16xi32>) {
  // expected-error @+1 {{'gpt.attention' op tokens must be [batch, seq] = [2, 8]}}
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<2x16xi32> mask = #gpt.mask<causal = true, window = none, bos = 0> scale = 1.250000e-01 : tensor<2x2x8x16xf32>
  return
}

// -----

func.func @attention_tokens_rank(%q: tensor<2x2x8x16xf32>, %t: tensor<16xi32>) {
  // expected-error @+1 {{'gpt.attention' op tokens must be [batch, seq] = [2, 8]}}
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<16xi32> mask = #gpt.mask<causal = true, window = none, bos = 0> scale = 1.250000e-01 : tensor<2x2x8x16xf32>
  return
}

// -----

func.func @attention_window_rank(%q: tensor<1x2x8x16xf32>, %w: tensor<1xi64>) {
  // expected-error @+1 {{'gpt.attention' op window must be a 0-d tensor}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<1xi64> mask = #gpt.mask<causal = true, window = tokens, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_block_window_length(%q: tensor<1x2x192x16xf32>, %w: tensor<i64>) {
  // expected-error @+1 {{'gpt.attention' op a block window needs a sequence length that is a multiple of 128}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<i64> mask = #gpt.mask<causal = true, window = blocks, bos = -1> scale = 1.250000e-01 : tensor<1x2x192x16xf32>
  return
}

// -----

// A dynamic length (kDynamic) is not known to be a multiple of 128.
func.func @attention_block_window_dynamic(%q: tensor<1x2x?x16xf32>, %w: tensor<i64>) {
  // expected-error @+1 {{'gpt.attention' op a block window needs a sequence length that is a multiple of 128}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<i64> mask = #gpt.mask<causal = true, window = blocks, bos = -1> scale = 1.250000e-01 : tensor<1x2x?x16xf32>
  return
}

// -----

func.func @mask_window_not_causal(%q: tensor<1x2x8x16xf32>, %w: tensor<i64>) {
  // expected-error @+1 {{a sliding window requires a causal mask}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<i64> mask = #gpt.mask<causal = false, window = tokens, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @mask_bos(%q: tensor<1x2x8x16xf32>, %t: tensor<1x8xi32>) {
  // expected-error @+1 {{bos must be a token id or -1 (no document mask), got -2}}
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<1x8xi32> mask = #gpt.mask<causal = true, window = none, bos = -2> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

// The attribute verifier also runs outside an op.
// expected-error @+1 {{a sliding window requires a causal mask}}
func.func @mask_attr() attributes {gpt.m = #gpt.mask<causal = false, window = blocks, bos = -1>} {
  return
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_table_rank(%t: tensor<512xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding' op table must be [vocab, dim]}}
  %0 = gpt.embedding %t[%i] : tensor<512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  return
}

// -----

func.func @embedding_result_shape(%t: tensor<512x64xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding' op result must be the ids' shape followed by the table row size, with the table's element type}}
  %0 = gpt.embedding %t[%i] : tensor<512x64xf32>, tensor<2x8xi32> -> tensor<2x8x512xf32>
  return
}

// -----

func.func @embedding_result_type(%t: tensor<512x64xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding' op result must be the ids' shape followed by the table row size, with the table's element type}}
  %0 = gpt.embedding %t[%i] : tensor<512x64xf32>, tensor<2x8xi32> -> tensor<2x8x64xbf16>
  return
}

// -----

func.func @gather_last_index(%l: tensor<2x8x512xf32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'gpt.gather_last' op index must have the input's shape without its last dimension}}
  %0 = gpt.gather_last %l[%t] : tensor<2x8x512xf32>, tensor<2x4xi32> -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_last_index_rank(%l: tensor<2x8x512xf32>, %t: tensor<2x8x512xi32>) {
  // expected-error @+1 {{'gpt.gather_last' op index must have the input's shape without its last dimension}}
  %0 = gpt.gather_last %l[%t] : tensor<2x8x512xf32>, tensor<2x8x512xi32> -> tensor<2x8x512xf32>
  return
}

// -----

func.func @gather_last_result(%l: tensor<2x8x512xf32>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.gather_last' op result must have the index's shape and the input's element type}}
  %0 = gpt.gather_last %l[%t] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf64>
  return
}

//===----------------------------------------------------------------------===//
// Shape changes
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_dynamic(%x: tensor<?x1xf32>) {
  // expected-error @+1 {{'gpt.broadcast' op requires static shapes, got 'tensor<?x1xf32>'}}
  %0 = gpt.broadcast %x : tensor<?x1xf32> to tensor<8x64xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'gpt.broadcast' op result must have the input's rank and element type}}
  %0 = gpt.broadcast %x : tensor<8xf32> to tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<8x1xf32>) {
  // expected-error @+1 {{'gpt.broadcast' op result must have the input's rank and element type}}
  %0 = gpt.broadcast %x : tensor<8x1xf32> to tensor<8x4xbf16>
  return
}

// -----

func.func @broadcast_size(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{'gpt.broadcast' op dimension 1 of size 2 cannot broadcast to 4}}
  %0 = gpt.broadcast %x : tensor<8x2xf32> to tensor<8x4xf32>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'gpt.reshape' op requires static shapes, got 'tensor<?x4xf32>'}}
  %0 = gpt.reshape %x : tensor<?x4xf32> to tensor<8xf32>
  return
}

// -----

func.func @reshape_dynamic_result(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.reshape' op requires static shapes, got 'tensor<?xf32>'}}
  %0 = gpt.reshape %x : tensor<2x4xf32> to tensor<?xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.reshape' op element type must not change}}
  %0 = gpt.reshape %x : tensor<2x4xf32> to tensor<8xi32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.reshape' op element count must not change ('tensor<2x4xf32>' has 8, 'tensor<9xf32>' has 9)}}
  %0 = gpt.reshape %x : tensor<2x4xf32> to tensor<9xf32>
  return
}

// -----

func.func @transpose_length(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op permutation must have one entry per dimension}}
  %0 = gpt.transpose %x permutation = [1, 0] : tensor<2x8x4xf32> to tensor<8x2x4xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op permutation must be a permutation of 0..rank-1}}
  %0 = gpt.transpose %x permutation = [0, 3, 1] : tensor<2x8x4xf32> to tensor<2x4x8xf32>
  return
}

// -----

func.func @transpose_negative(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op permutation must be a permutation of 0..rank-1}}
  %0 = gpt.transpose %x permutation = [0, -1, 1] : tensor<2x8x4xf32> to tensor<2x4x8xf32>
  return
}

// -----

func.func @transpose_repeat(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op permutation must be a permutation of 0..rank-1}}
  %0 = gpt.transpose %x permutation = [0, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x8xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op result shape must be the permuted input shape}}
  %0 = gpt.transpose %x permutation = [0, 2, 1] : tensor<2x8x4xf32> to tensor<2x8x4xf32>
  return
}

// -----

func.func @transpose_element_type(%x: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'gpt.transpose' op result shape must be the permuted input shape}}
  %0 = gpt.transpose %x permutation = [0, 2, 1] : tensor<2x8x4xf32> to tensor<2x4x8xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

// -----

func.func @slice_dynamic(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op requires static shapes, got 'tensor<?x8xf32>'}}
  %0 = gpt.slice %x offsets = [0, 0] : tensor<2x8xf32> to tensor<?x8xf32>
  return
}

// -----

func.func @slice_offsets_rank(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op offsets and result must have the input's rank}}
  %0 = gpt.slice %x offsets = [0] : tensor<2x8xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @slice_result_rank(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op offsets and result must have the input's rank}}
  %0 = gpt.slice %x offsets = [0, 0] : tensor<2x8xf32> to tensor<8xf32>
  return
}

// -----

func.func @slice_element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op element type must not change}}
  %0 = gpt.slice %x offsets = [0, 0] : tensor<2x8xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @slice_bounds(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op slice of size 4 at offset 6 is out of bounds of dimension 1 (size 8)}}
  %0 = gpt.slice %x offsets = [0, 6] : tensor<2x8xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @slice_negative_offset(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op slice of size 4 at offset -1 is out of bounds of dimension 1 (size 8)}}
  %0 = gpt.slice %x offsets = [0, -1] : tensor<2x8xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @slice_larger_than_input(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.slice' op slice of size 3 at offset 0 is out of bounds of dimension 0 (size 2)}}
  %0 = gpt.slice %x offsets = [0, 0] : tensor<2x8xf32> to tensor<3x8xf32>
  return
}

// -----

// offset + size overflows int64; the bound check must not wrap around.
func.func @slice_offset_overflow(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'gpt.slice' op slice of size 2 at offset 9223372036854775807 is out of bounds of dimension 0 (size 8)}}
  %0 = gpt.slice %x offsets = [9223372036854775807, 0] : tensor<8x4xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{'gpt.concat' op needs at least one input}}
  %0 = "gpt.concat"() <{dim = 0 : i64}> : () -> tensor<8xf32>
  return
}

// -----

func.func @concat_dynamic(%a: tensor<2x?xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.concat' op requires static shapes, got 'tensor<2x?xf32>'}}
  %0 = gpt.concat %a, %b dim = 1 : (tensor<2x?xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.concat' op dim 2 is out of range}}
  %0 = gpt.concat %a, %a dim = 2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_negative_dim(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.concat' op dim -1 is out of range}}
  %0 = gpt.concat %a, %a dim = -1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_input_type(%a: tensor<2x4xf32>, %b: tensor<2x4xbf16>) {
  // expected-error @+1 {{'gpt.concat' op inputs must have the result's rank and element type}}
  %0 = gpt.concat %a, %b dim = 1 : (tensor<2x4xf32>, tensor<2x4xbf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_input_rank(%a: tensor<2x4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'gpt.concat' op inputs must have the result's rank and element type}}
  %0 = gpt.concat %a, %b dim = 1 : (tensor<2x4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'gpt.concat' op inputs differ from the result in dimension 0}}
  %0 = gpt.concat %a, %b dim = 1 : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_total(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'gpt.concat' op result dimension 1 must be 8}}
  %0 = gpt.concat %a, %a dim = 1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @split_no_results(%x: tensor<8xf32>) {
  // expected-error @+1 {{'gpt.split' op needs at least one result}}
  "gpt.split"(%x) <{dim = 0 : i64}> : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @split_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'gpt.split' op requires static shapes, got 'tensor<?x4xf32>'}}
  %0:2 = gpt.split %x dim = 0 : tensor<?x4xf32> -> tensor<?x4xf32>, tensor<?x4xf32>
  return
}

// -----

func.func @split_dim(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.split' op dim 2 is out of range}}
  %0:2 = gpt.split %x dim = 2 : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @split_negative_dim(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.split' op dim -1 is out of range}}
  %0:2 = gpt.split %x dim = -1 : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @split_uneven(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.split' op dimension 1 (size 8) does not split into 3 equal parts}}
  %0:3 = gpt.split %x dim = 1 : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>
  return
}

// -----

func.func @split_result(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.split' op every result must be 'tensor<2x4xf32>'}}
  %0:2 = gpt.split %x dim = 1 : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x4xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Backward-graph ops
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_grad_result_rank(%g: tensor<2x8x64xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding_grad' op result must be a [vocab, dim] table}}
  %0 = gpt.embedding_grad %g[%i] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512xf32>
  return
}

// -----

func.func @embedding_grad_shape(%g: tensor<2x8x64xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding_grad' op grad must be the ids' shape followed by the table row size}}
  %0 = gpt.embedding_grad %g[%i] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512x32xf32>
  return
}

// -----

func.func @embedding_grad_ids(%g: tensor<2x8x64xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{'gpt.embedding_grad' op grad must be the ids' shape followed by the table row size}}
  %0 = gpt.embedding_grad %g[%i] : tensor<2x8x64xf32>, tensor<16xi32> -> tensor<512x64xf32>
  return
}

// -----

func.func @embedding_grad_element_type(%g: tensor<2x8x64xf32>, %i: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.embedding_grad' op grad and result element types must match}}
  %0 = gpt.embedding_grad %g[%i] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scatter_last_index(%g: tensor<2x8xf32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'gpt.scatter_last' op grad and index must have the same shape}}
  %0 = gpt.scatter_last %g[%t] : tensor<2x8xf32>, tensor<2x4xi32> -> tensor<2x8x512xf32>
  return
}

// -----

func.func @scatter_last_result(%g: tensor<2x8xf32>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.scatter_last' op result must be the grad's shape plus one trailing dimension, with the grad's element type}}
  %0 = gpt.scatter_last %g[%t] : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x4x512xf32>
  return
}

// -----

func.func @scatter_last_result_type(%g: tensor<2x8xf32>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.scatter_last' op result must be the grad's shape plus one trailing dimension, with the grad's element type}}
  %0 = gpt.scatter_last %g[%t] : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x8x512xbf16>
  return
}

// -----

func.func @pad_rank(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.pad' op offsets and result must have the input's rank}}
  %0 = gpt.pad %x offsets = [0] : tensor<2x8xf32> to tensor<2x16xf32>
  return
}

// -----

func.func @pad_element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.pad' op element type must not change}}
  %0 = gpt.pad %x offsets = [0, 0] : tensor<2x8xf32> to tensor<2x16xbf16>
  return
}

// -----

func.func @pad_bounds(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.pad' op input does not fit in dimension 1 at offset 12}}
  %0 = gpt.pad %x offsets = [0, 12] : tensor<2x8xf32> to tensor<2x16xf32>
  return
}

// -----

func.func @pad_negative_offset(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'gpt.pad' op input does not fit in dimension 0 at offset -1}}
  %0 = gpt.pad %x offsets = [-1, 0] : tensor<2x8xf32> to tensor<2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// ODS constraints
//===----------------------------------------------------------------------===//

// -----

func.func @exp_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'gpt.exp' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = gpt.exp %x : tensor<4xi32>
  return
}

// -----

func.func @add_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'gpt.add' op requires the same type for all operands and results}}
  %0 = "gpt.add"(%a, %b) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @add_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'gpt.add' op operand #0 must be ranked tensor of}}
  %0 = gpt.add %a, %a : tensor<4xi1>
  return
}

// -----

func.func @matmul_integer(%a: tensor<4x4xi32>) {
  // expected-error @+1 {{'gpt.matmul' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 64-bit float values}}
  %0 = gpt.matmul %a, %a : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
  return
}

// -----

func.func @compare_types(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'gpt.compare' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "gpt.compare"(%a, %b) <{predicate = #gpt<compare_kind lt>}> : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result(%a: tensor<4xi32>) {
  // expected-error @+1 {{'gpt.compare' op result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = gpt.compare lt, %a, %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @select_types(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'gpt.select' op failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "gpt.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_to_bool(%x: tensor<4xf32>) {
  // expected-error @+1 {{'gpt.cast' op result #0 must be ranked tensor of}}
  %0 = gpt.cast %x : tensor<4xf32> to tensor<4xi1>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'gpt.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "gpt.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<8xf32>
  return
}

// -----

func.func @rms_norm_result_type(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'gpt.rms_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "gpt.rms_norm"(%x) <{eps = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x64xf32>) -> tensor<2x64xbf16>
  return
}

// -----

func.func @attention_key_type(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x16x16xf32>) {
  // expected-error @+1 {{'gpt.attention' op failed to verify that all of {query, key, value, result} have same type}}
  %0:2 = "gpt.attention"(%q, %k, %k) <{mask = #gpt.mask<causal = true, window = none, bos = -1>, scale = 1.250000e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<1x2x8x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
  return
}

// -----

func.func @attention_window_type(%q: tensor<1x2x8x16xf32>, %w: tensor<i32>) {
  // expected-error @+1 {{'gpt.attention' op operand #3 must be ranked tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %0:2 = gpt.attention %q, %q, %q window %w : tensor<i32> mask = #gpt.mask<causal = true, window = tokens, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_tokens_type(%q: tensor<1x2x8x16xf32>, %t: tensor<1x8xf32>) {
  // expected-error @+1 {{'gpt.attention' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0:2 = gpt.attention %q, %q, %q tokens %t : tensor<1x8xf32> mask = #gpt.mask<causal = true, window = none, bos = 0> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'gpt.neg' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "gpt.neg"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @mask_unknown_window(%q: tensor<1x2x8x16xf32>) {
  // expected-error @+2 {{expected one of [none, tokens, blocks, record_blocks] for unit of a sliding window, got: sliding}}
  // expected-error @+1 {{failed to parse GPT_MaskAttr parameter 'window'}}
  %0:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = sliding, bos = -1> scale = 1.250000e-01 : tensor<1x2x8x16xf32>
  return
}

// -----

func.func @pad_offset_overflow(%x: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{input does not fit in dimension 0 at offset 9223372036854775807}}
  %0 = gpt.pad %x offsets = [9223372036854775807, 0] : tensor<2x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @pad_dynamic(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires static shapes}}
  %0 = gpt.pad %x offsets = [0, 0] : tensor<?x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @cross_entropy_rank1(%l: tensor<8xf32>, %t: tensor<i32>) {
  // expected-error @+1 {{'gpt.cross_entropy' op logits must have positions and a vocabulary dimension}}
  %0 = gpt.cross_entropy %l[%t] : tensor<8xf32>, tensor<i32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_targets(%l: tensor<2x8x64xf32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{'gpt.cross_entropy' op targets must have the logits' shape without the vocabulary dimension}}
  %0 = gpt.cross_entropy %l[%t] : tensor<2x8x64xf32>, tensor<2x4xi32> -> tensor<2x4xf32>
  return
}

// -----

func.func @cross_entropy_result(%l: tensor<2x8x64xf32>, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{'gpt.cross_entropy' op the per-position values must have the targets' shape and the logits' element type}}
  %0 = gpt.cross_entropy %l[%t] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<2x8xbf16>
  return
}

// -----

func.func @cross_entropy_narrower(%l: tensor<8x64xf32>, %t: tensor<8xi32>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{'gpt.cross_entropy_grad' op the per-position values must have the targets' shape and the logits' element type or a wider float type}}
  %0 = gpt.cross_entropy_grad %l[%t], %g : tensor<8x64xf32>, tensor<8xi32>, tensor<8xbf16>
  return
}

// -----

func.func @softcap_cap(%l: tensor<8x64xf32>, %t: tensor<8xi32>) {
  // expected-error @+1 {{softcap cap and scale must be positive and finite, got cap -3.000000e+01, scale 5.000000e-01}}
  %0 = gpt.cross_entropy %l[%t] softcap <kind = tanh, cap = -3.0e+01 : f64, scale = 0.5 : f64> : tensor<8x64xf32>, tensor<8xi32> -> tensor<8xf32>
  return
}

// -----

func.func @softcap_type(%l: tensor<8x64xf32>, %t: tensor<8xi32>) {
  // expected-error @+1 {{softcap cap and scale must be f64 attributes}}
  %0 = gpt.cross_entropy %l[%t] softcap <kind = tanh, cap = 3.0e+01 : f32, scale = 0.5 : f64> : tensor<8x64xf32>, tensor<8xi32> -> tensor<8xf32>
  return
}

// -----

func.func @cross_entropy_grad_shape(%l: tensor<2x8x64xf32>, %t: tensor<2x8xi32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'gpt.cross_entropy_grad' op the per-position values must have the targets' shape and the logits' element type}}
  %0 = gpt.cross_entropy_grad %l[%t], %g : tensor<2x8x64xf32>, tensor<2x8xi32>, tensor<16xf32>
  return
}

// -----

func.func @rotary_odd(%x: tensor<2x8x2x15xf32>, %c: tensor<1x8x1x7xf32>) {
  // expected-error @+1 {{'gpt.rotary' op the input's last dimension must be even (two halves), got 'tensor<2x8x2x15xf32>'}}
  %0 = gpt.rotary %x, %c, %c : tensor<2x8x2x15xf32>, tensor<1x8x1x7xf32>
  return
}

// -----

func.func @rotary_table(%x: tensor<2x8x2x16xf32>, %c: tensor<1x4x1x8xf32>) {
  // expected-error @+1 {{'gpt.rotary' op cos and sin dimension 1 is 4: it must be 8 or 1 (broadcast)}}
  %0 = gpt.rotary %x, %c, %c : tensor<2x8x2x16xf32>, tensor<1x4x1x8xf32>
  return
}

// -----

func.func @rotary_half(%x: tensor<2x8x2x16xf32>, %c: tensor<1x8x1x16xf32>) {
  // expected-error @+1 {{'gpt.rotary' op cos and sin dimension 3 is 16: it must be 8 (the half)}}
  %0 = gpt.rotary %x, %c, %c : tensor<2x8x2x16xf32>, tensor<1x8x1x16xf32>
  return
}
