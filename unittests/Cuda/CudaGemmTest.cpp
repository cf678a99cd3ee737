//===- CudaGemmTest.cpp - gptc_cuda_gemm_* against the CPU ----------------===//
//
// gptc_cuda_gemm_f32 / _bf16 (cuBLASLt on the emulated device) against
// gptc_gemm_f32 / _bf16 (runtime/cpu) on the same random matrices: every
// op(A) / op(B), row- and column-major D (the two layout mappings),
// operands stored either way, a batch of 3 with padded batch strides,
// beta 0, beta != 0 with a separate C and with C == D.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"
#include "runtime/cuda/StepCallbacks.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <tuple>

using namespace gptc::runtime::cuda;
using namespace gptc::runtime::cuda::test;

namespace {

enum class BetaMode { Zero, SeparateC, CIsD };

void PrintTo(BetaMode mode, std::ostream *os) {
  *os << (mode == BetaMode::Zero        ? "beta 0"
          : mode == BetaMode::SeparateC ? "separate C"
                                        : "C == D");
}

/// A stored rows x cols matrix of a batch, with padding everywhere.
struct Matrix {
  int64_t rows, cols, rowStride, colStride, batchStride;

  static Matrix make(int64_t rows, int64_t cols, bool rowMajor) {
    Matrix x{rows, cols, 0, 0, 0};
    if (rowMajor) {
      x.rowStride = cols + 3;
      x.colStride = 1;
    } else {
      x.rowStride = 1;
      x.colStride = rows + 2;
    }
    x.batchStride = (rowMajor ? rows * x.rowStride : cols * x.colStride) + 5;
    return x;
  }
  size_t elements(int64_t batch) const { return batch * batchStride; }
};

uint16_t toBf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

float fromBf16(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// bf16 bits as integers ordered like the values.
int32_t orderedBf16(uint16_t h) {
  return (h & 0x8000) ? -(int32_t)(h & 0x7fff) : (int32_t)h;
}

template <class T> std::vector<T> randomValues(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<T> v(n);
  for (T &x : v) {
    float f = uniform(rng);
    if constexpr (sizeof(T) == 2)
      x = toBf16(f);
    else
      x = f;
  }
  return v;
}

using GemmParams = std::tuple<bool, bool, BetaMode, bool>;

class CudaGemm : public testing::TestWithParam<GemmParams> {
protected:
  /// T: A and B; R: C and D.
  template <class T, class R = T> void compareWithCpu();
};

template <class T, class R> void CudaGemm::compareWithCpu() {
  auto [transA, transB, betaMode, dRowMajor] = GetParam();
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  const int64_t m = 13, n = 7, k = 21, batch = 3;
  // Operands stored in both orders over the parameters.
  Matrix a = Matrix::make(transA ? k : m, transA ? m : k, transA != dRowMajor);
  Matrix b = Matrix::make(transB ? n : k, transB ? k : n, transB == dRowMajor);
  Matrix d = Matrix::make(m, n, dRowMajor);
  Matrix c =
      betaMode == BetaMode::SeparateC ? Matrix::make(m, n, dRowMajor) : d;
  std::mt19937 rng(1234 + transA + 2 * transB + 4 * (int)betaMode +
                   16 * dRowMajor);
  std::vector<T> hostA = randomValues<T>(a.elements(batch), rng);
  std::vector<T> hostB = randomValues<T>(b.elements(batch), rng);
  std::vector<R> hostC = randomValues<R>(c.elements(batch), rng);
  std::vector<R> hostD = randomValues<R>(d.elements(batch), rng);
  float alpha = 0.75f, beta = betaMode == BetaMode::Zero ? 0.f : -0.5f;

  DeviceBuffer<T> devA(*device, hostA), devB(*device, hostB);
  DeviceBuffer<R> devC(*device, hostC), devD(*device, hostD);
  uint64_t cPtr = betaMode == BetaMode::SeparateC ? devC.ptr
                  : betaMode == BetaMode::CIsD    ? devD.ptr
                                                  : 0;
  uintptr_t hostCPtr = betaMode == BetaMode::SeparateC ? (uintptr_t)hostC.data()
                       : betaMode == BetaMode::CIsD    ? (uintptr_t)hostD.data()
                                                       : 0;
  auto gpuGemm = sizeof(T) == 4   ? gptc_cuda_gemm_f32
                 : sizeof(R) == 2 ? gptc_cuda_gemm_bf16
                                  : gptc_cuda_gemm_bf16_f32;
  auto cpuGemm = sizeof(T) == 4   ? gptc_gemm_f32
                 : sizeof(R) == 2 ? gptc_gemm_bf16
                                  : gptc_gemm_bf16_f32;
  gpuGemm(transA, transB, m, n, k, devA.ptr, a.rowStride, a.colStride,
          a.batchStride, devB.ptr, b.rowStride, b.colStride, b.batchStride,
          alpha, beta, cPtr, c.rowStride, c.colStride, c.batchStride, devD.ptr,
          d.rowStride, d.colStride, d.batchStride, batch);
  ASSERT_EQ(device->takeError(), "");
  std::string error;
  ASSERT_TRUE(device->synchronize(error)) << error;
  std::vector<R> gpu = devD.download();
  cpuGemm(transA, transB, m, n, k, (uintptr_t)hostA.data(), a.rowStride,
          a.colStride, a.batchStride, (uintptr_t)hostB.data(), b.rowStride,
          b.colStride, b.batchStride, alpha, beta, hostCPtr, c.rowStride,
          c.colStride, c.batchStride, (uintptr_t)hostD.data(), d.rowStride,
          d.colStride, d.batchStride, batch);

  int mismatches = 0;
  for (size_t e = 0; e < gpu.size(); ++e) {
    bool close;
    if constexpr (sizeof(R) == 2)
      close = std::abs(orderedBf16(gpu[e]) - orderedBf16(hostD[e])) <= 1;
    else
      close = std::fabs(gpu[e] - hostD[e]) <=
              1e-5f * std::max(1.f, std::fabs(hostD[e]));
    if (!close && ++mismatches <= 5) {
      double g, want;
      if constexpr (sizeof(R) == 2) {
        g = fromBf16(gpu[e]);
        want = fromBf16(hostD[e]);
      } else {
        g = gpu[e];
        want = hostD[e];
      }
      ADD_FAILURE() << "element " << e << ": GPU " << g << ", CPU " << want;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(CudaGemm, F32MatchesTheCpu) { compareWithCpu<float>(); }
TEST_P(CudaGemm, Bf16MatchesTheCpu) { compareWithCpu<uint16_t>(); }
TEST_P(CudaGemm, Bf16IntoF32MatchesTheCpu) {
  compareWithCpu<uint16_t, float>();
}

std::string paramName(const testing::TestParamInfo<GemmParams> &info) {
  auto [transA, transB, betaMode, dRowMajor] = info.param;
  const char *beta = betaMode == BetaMode::Zero        ? "Beta0"
                     : betaMode == BetaMode::SeparateC ? "SeparateC"
                                                       : "CIsD";
  return std::string(transA ? "At" : "A") + (transB ? "Bt" : "B") + "_" + beta +
         "_" + (dRowMajor ? "DRowMajor" : "DColMajor");
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, CudaGemm,
                         testing::Combine(testing::Bool(), testing::Bool(),
                                          testing::Values(BetaMode::Zero,
                                                          BetaMode::SeparateC,
                                                          BetaMode::CIsD),
                                          testing::Bool()),
                         paramName);

TEST(CudaGemmErrors, StridedMatrixIsKeptAsAnError) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  DeviceBuffer<float> buffer(*device, 4096);
  // A with row stride 2 and column stride 40: neither order is contiguous.
  gptc_cuda_gemm_f32(0, 0, 4, 4, 4, buffer.ptr, 2, 40, 0, buffer.ptr + 1024, 4,
                     1, 0, 1.f, 0.f, 0, 4, 1, 0, buffer.ptr + 2048, 4, 1, 0, 1);
  std::string error = device->takeError();
  EXPECT_NE(error.find("gptc_cuda_gemm_f32: A (4 x 4, row stride 2, column "
                       "stride 40) is neither row- nor column-contiguous"),
            std::string::npos)
      << error;
  EXPECT_EQ(device->takeError(), ""); // taken
}

TEST(CudaGemmErrors, HostPointersAreKeptAsACublasLtError) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  std::vector<float> a(16, 1.f), b(16, 1.f), d(16);
  gptc_cuda_gemm_f32(0, 0, 4, 4, 4, (uintptr_t)a.data(), 4, 1, 0,
                     (uintptr_t)b.data(), 4, 1, 0, 1.f, 0.f, 0, 4, 1, 0,
                     (uintptr_t)d.data(), 4, 1, 0, 1);
  std::string error = device->takeError();
  EXPECT_EQ(
      error.rfind("gptc_cuda_gemm_f32: cublasLtMatmul: CUBLAS_STATUS_", 0), 0u)
      << error;
}

TEST(CudaGemmErrors, EmptyProductDoesNothing) {
  CudaDevice *device = openDevice();
  ASSERT_NE(device, nullptr);
  // m = 0: no element of D, so neither pointers nor strides matter.
  gptc_cuda_gemm_f32(0, 0, 0, 4, 4, 0, 7, 7, 0, 0, 7, 7, 0, 1.f, 1.f, 0, 7, 7,
                     0, 0, 7, 7, 0, 2);
  EXPECT_EQ(device->takeError(), "");
}

} // namespace
