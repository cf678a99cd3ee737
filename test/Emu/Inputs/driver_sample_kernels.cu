// Kernels of the driver-API sample (driver_sample.cpp), in the style of
// NVIDIA's vectorAdd_kernel.cu and matrixMul_kernel.cu samples. Compiled
// with `nvcc -ptx` at test time.

extern "C" __global__ void VecAdd_kernel(const float *A, const float *B,
                                         float *C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N)
    C[i] = A[i] + B[i];
}

// C = A * B with BLOCK_SIZE x BLOCK_SIZE tiles staged in shared memory.
#define BLOCK_SIZE 16
extern "C" __global__ void matrixMul_bs16(float *C, const float *A,
                                          const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE, bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k)
      Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}
