// Ordinary CUDA C++ kernels, compiled by `nvcc -ptx -arch=sm_90` at build
// time; NvccKernelsTest.cpp runs them on the emulated device and checks
// them against the host.
#include <cuda_bf16.h>

// Block-wide sum: warp shuffles, then shared memory across warps, then one
// atomicAdd per block.
extern "C" __global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += in[i];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0)
      atomicAdd(out, v);
  }
}

// RMSNorm of rows with dynamic shared memory for the row and a bf16 copy.
extern "C" __global__ void rmsnorm_bf16(const float *x, float *y,
                                        __nv_bfloat16 *ybf, int cols) {
  extern __shared__ float row[];
  __shared__ float total;
  const float *xr = x + (size_t)blockIdx.x * cols;
  float ss = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    row[j] = xr[j];
    ss += row[j] * row[j];
  }
  if (threadIdx.x == 0)
    total = 0;
  __syncthreads();
  for (int o = 16; o > 0; o >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(&total, ss);
  __syncthreads();
  float scale = rsqrtf(total / cols + 1e-6f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float v = row[j] * scale;
    y[(size_t)blockIdx.x * cols + j] = v;
    ybf[(size_t)blockIdx.x * cols + j] = __float2bfloat16_rn(v);
  }
}

__device__ __noinline__ unsigned mix(unsigned a, unsigned b) {
  return __funnelshift_l(a, b, a & 31) ^ __byte_perm(a, b, 0x5140);
}

// Integer and bit operations, a 64-bit high product and a non-inlined
// call, with a data-dependent loop per thread.
extern "C" __global__ void int_ops(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned a = in[i], b = in[(i + 1) % n];
  unsigned long long w = (unsigned long long)a * b;
  unsigned r[8];
  r[0] = __popc(a) + __clz(b);
  r[1] = __brev(a);
  r[2] = mix(a, b);
  r[3] = (unsigned)(__umul64hi(w, 0x9e3779b97f4a7c15ull) >> 7);
  r[4] = (int)a >> (b & 31);
  r[5] = a / (b | 1) + a % (b | 1);
  unsigned s = 0;
  for (unsigned k = a & 63; k != 0; k = k & (k - 1))
    s += k;
  r[6] = s;
  r[7] = __ffs(a) + (__any_sync(0xffffffffu, a & 1) ? 0 : 0);
  for (int k = 0; k < 8; ++k)
    out[8 * i + k] = r[k];
}
