// RUN: gptc-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the comm ops.

func.func @all_reduce_avg_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'comm.all_reduce' op avg needs a floating-point element type, got 'i32'}}
  %r = comm.all_reduce avg %x : tensor<4xi32>
  return
}

// -----

func.func @reduce_scatter_avg_int(%x: tensor<16xi64>) {
  // expected-error @+1 {{'comm.reduce_scatter' op avg needs a floating-point element type, got 'i64'}}
  %r = comm.reduce_scatter avg %x world_size = 8 : tensor<16xi64> -> tensor<2xi64>
  return
}

// -----

func.func @reduce_scatter_world_size(%x: tensor<16x4xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op world_size must be at least 1, got 0}}
  %r = comm.reduce_scatter sum %x world_size = 0
      : tensor<16x4xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @reduce_scatter_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op input must have rank >= 1 (ranks are sharded along dimension 0)}}
  %r = comm.reduce_scatter sum %x world_size = 8 : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @reduce_scatter_element_type(%x: tensor<16x4xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op result element type must match the input}}
  %r = comm.reduce_scatter sum %x world_size = 8
      : tensor<16x4xf32> -> tensor<2x4xbf16>
  return
}

// -----

func.func @reduce_scatter_divisible(%x: tensor<12x4xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op dimension 0 (12) must be divisible by world_size (8)}}
  %r = comm.reduce_scatter sum %x world_size = 8
      : tensor<12x4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @reduce_scatter_shape(%x: tensor<16x4xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op result type must be 'tensor<2x4xf32>'}}
  %r = comm.reduce_scatter sum %x world_size = 8
      : tensor<16x4xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @all_gather_world_size(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'comm.all_gather' op world_size must be at least 1, got -2}}
  %r = comm.all_gather %x world_size = -2 : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @all_gather_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'comm.all_gather' op input must have rank >= 1 (ranks are sharded along dimension 0)}}
  %r = comm.all_gather %x world_size = 8 : tensor<f32> -> tensor<8xf32>
  return
}

// -----

func.func @all_gather_element_type(%x: tensor<2x4xbf16>) {
  // expected-error @+1 {{'comm.all_gather' op result element type must match the input}}
  %r = comm.all_gather %x world_size = 8 : tensor<2x4xbf16> -> tensor<16x4xf32>
  return
}

// -----

func.func @all_gather_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'comm.all_gather' op result type must be 'tensor<16x4xf32>'}}
  %r = comm.all_gather %x world_size = 8 : tensor<2x4xf32> -> tensor<2x32xf32>
  return
}

// -----

func.func @shard_indivisible(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'comm.shard' op dimension 0 (3) must be divisible by world_size (2)}}
  %r = comm.shard %x world_size = 2 : tensor<3x4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @shard_shape(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'comm.shard' op result type must be 'tensor<2x4xf32>'}}
  %r = comm.shard %x world_size = 2 : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}
