// Kernels of bench/emu-throughput.sh, compiled with `nvcc -ptx -arch=sm_90`:
// an attention-like kernel (shared-memory K/V tiles, warp-shuffle dot
// products, online softmax), an RMSNorm and an elementwise SiLU.

// One warp per query row, head dim 64 (two elements per lane); the block's
// 4 warps share K/V tiles of 32 keys staged in shared memory.
extern "C" __global__ void attention(const float *q, const float *k,
                                     const float *v, float *o, int keys) {
  __shared__ float ks[32][64], vs[32][64];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = blockIdx.x * 4 + warp;
  float q0 = q[row * 64 + lane], q1 = q[row * 64 + 32 + lane];
  float m = -1e30f, l = 0, o0 = 0, o1 = 0;
  for (int t = 0; t < keys; t += 32) {
    __syncthreads();
    for (int i = threadIdx.x; i < 32 * 64; i += blockDim.x) {
      ks[i / 64][i % 64] = k[(size_t)t * 64 + i];
      vs[i / 64][i % 64] = v[(size_t)t * 64 + i];
    }
    __syncthreads();
    for (int j = 0; j < 32; ++j) {
      float s = q0 * ks[j][lane] + q1 * ks[j][32 + lane];
      for (int off = 16; off > 0; off >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, off);
      s *= 0.125f;
      float mNew = fmaxf(m, s);
      float scale = __expf(m - mNew), p = __expf(s - mNew);
      l = l * scale + p;
      o0 = o0 * scale + p * vs[j][lane];
      o1 = o1 * scale + p * vs[j][32 + lane];
      m = mNew;
    }
  }
  o[row * 64 + lane] = o0 / l;
  o[row * 64 + 32 + lane] = o1 / l;
}

// One block per row: sum of squares by warp shuffles and shared memory.
extern "C" __global__ void rmsnorm(const float *x, const float *w, float *y,
                                   int cols) {
  __shared__ float partial[32];
  const float *xr = x + (size_t)blockIdx.x * cols;
  float ss = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    ss += xr[j] * xr[j];
  for (int off = 16; off > 0; off >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, off);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = ss;
  __syncthreads();
  float total = 0;
  for (int i = 0; i < blockDim.x / 32; ++i)
    total += partial[i];
  float scale = rsqrtf(total / cols + 1e-6f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[(size_t)blockIdx.x * cols + j] = xr[j] * scale * w[j];
}

// y = x * sigmoid(x), grid-stride.
extern "C" __global__ void silu(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float v = x[i];
    y[i] = v / (1.0f + __expf(-v));
  }
}
