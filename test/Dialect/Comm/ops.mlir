// RUN: gptc-opt %s | gptc-opt | FileCheck %s
// RUN: gptc-opt %s --mlir-print-op-generic | gptc-opt | FileCheck %s

// Round trips of every comm op and every reduction kind.

// CHECK-LABEL: func.func @all_reduce
// CHECK: comm.all_reduce sum %{{.*}} : tensor<768x3072xf32>
// CHECK: comm.all_reduce avg %{{.*}} : tensor<768x3072xf32>
// CHECK: comm.all_reduce max %{{.*}} : tensor<4xi64>
// CHECK: comm.all_reduce min %{{.*}} : tensor<4xi64>
// CHECK: comm.all_reduce prod %{{.*}} : tensor<bf16>
func.func @all_reduce(%g: tensor<768x3072xf32>, %n: tensor<4xi64>,
                      %s: tensor<bf16>) {
  %sum = comm.all_reduce sum %g : tensor<768x3072xf32>
  %avg = comm.all_reduce avg %g : tensor<768x3072xf32>
  %max = comm.all_reduce max %n : tensor<4xi64>
  %min = comm.all_reduce min %n : tensor<4xi64>
  %prod = comm.all_reduce prod %s : tensor<bf16>
  return
}

// CHECK-LABEL: func.func @reduce_scatter
// CHECK: comm.reduce_scatter sum %{{.*}} world_size = 8 : tensor<16x4xf32> -> tensor<2x4xf32>
// CHECK: comm.reduce_scatter avg %{{.*}} world_size = 1 : tensor<16x4xf32> -> tensor<16x4xf32>
// CHECK: comm.reduce_scatter max %{{.*}} world_size = 4 : tensor<?x4xf32> -> tensor<?x4xf32>
func.func @reduce_scatter(%x: tensor<16x4xf32>, %d: tensor<?x4xf32>) {
  %s8 = comm.reduce_scatter sum %x world_size = 8
      : tensor<16x4xf32> -> tensor<2x4xf32>
  %s1 = comm.reduce_scatter avg %x world_size = 1
      : tensor<16x4xf32> -> tensor<16x4xf32>
  %sd = comm.reduce_scatter max %d world_size = 4
      : tensor<?x4xf32> -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func.func @all_gather
// CHECK: comm.all_gather %{{.*}} world_size = 8 : tensor<2x4xf32> -> tensor<16x4xf32>
// CHECK: comm.all_gather %{{.*}} world_size = 2 : tensor<3xi32> -> tensor<6xi32>
func.func @all_gather(%x: tensor<2x4xf32>, %i: tensor<3xi32>) {
  %g = comm.all_gather %x world_size = 8 : tensor<2x4xf32> -> tensor<16x4xf32>
  %gi = comm.all_gather %i world_size = 2 : tensor<3xi32> -> tensor<6xi32>
  return
}

// Reduce-scatter then all-gather is an all-reduce (ZeRO-style sharding).
// CHECK-LABEL: func.func @scatter_gather
// CHECK: %[[SHARD:.*]] = comm.reduce_scatter avg
// CHECK: comm.all_gather %[[SHARD]] world_size = 8
func.func @scatter_gather(%g: tensor<768x768xf32>) -> tensor<768x768xf32> {
  %shard = comm.reduce_scatter avg %g world_size = 8
      : tensor<768x768xf32> -> tensor<96x768xf32>
  %full = comm.all_gather %shard world_size = 8
      : tensor<96x768xf32> -> tensor<768x768xf32>
  return %full : tensor<768x768xf32>
}

// CHECK-LABEL: func.func @shard
// CHECK: comm.shard %{{.*}} world_size = 2 : tensor<4x8x8xf32> -> tensor<2x8x8xf32>
func.func @shard(%x: tensor<4x8x8xf32>) -> tensor<2x8x8xf32> {
  %mine = comm.shard %x world_size = 2 : tensor<4x8x8xf32> -> tensor<2x8x8xf32>
  return %mine : tensor<2x8x8xf32>
}
