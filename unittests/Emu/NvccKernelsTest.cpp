//===- NvccKernelsTest.cpp - nvcc-compiled kernels on the emulated device -===//
//
// The PTX that `nvcc -ptx` emits for ordinary CUDA C++ kernels
// (Inputs/conformance_kernels.cu, compiled at build time when nvcc exists)
// runs on the emulator and matches the host.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace gptc::emu::test;

namespace {

std::string nvccPtx() {
#ifdef GPTC_EMU_NVCC_PTX
  std::ifstream in(GPTC_EMU_NVCC_PTX);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
#else
  return "";
#endif
}

#define REQUIRE_NVCC_PTX(text)                                                 \
  std::string text = nvccPtx();                                                \
  if (text.empty())                                                            \
    GTEST_SKIP() << "nvcc was not found at configure time";

TEST(EmuNvcc, BlockSumWithShufflesSharedAndAtomics) {
  REQUIRE_NVCC_PTX(text);
  PtxModule m(text);
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  int n = 100000;
  std::vector<float> x(n);
  double want = 0;
  for (int i = 0; i < n; ++i) {
    x[i] = (float)((i * 37) % 101) / 16.f; // exact sums in f32
    want += x[i];
  }
  DeviceBuffer<float> dx(x), dout(1);
  ASSERT_EQ(launch(m.function("block_sum"), 40, 256, {&dx.ptr, &dout.ptr, &n}),
            CUDA_SUCCESS);
  EXPECT_EQ(dout.read()[0], (float)want);
}

TEST(EmuNvcc, RmsNormWithDynamicSharedMemoryAndBf16) {
  REQUIRE_NVCC_PTX(text);
  PtxModule m(text);
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  int rows = 6, cols = 300;
  std::vector<float> x(rows * cols);
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  for (float &v : x)
    v = dist(rng);
  DeviceBuffer<float> dx(x), dy(x.size());
  DeviceBuffer<uint16_t> dbf(x.size());
  CUfunction f = m.function("rmsnorm_bf16");
  void *args[] = {&dx.ptr, &dy.ptr, &dbf.ptr, &cols};
  ASSERT_EQ(cuLaunchKernel(f, rows, 1, 1, 128, 1, 1, cols * 4, nullptr, args,
                           nullptr),
            CUDA_SUCCESS);
  std::vector<float> y = dy.read();
  std::vector<uint16_t> bf = dbf.read();
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int j = 0; j < cols; ++j)
      ss += (double)x[r * cols + j] * x[r * cols + j];
    double scale = 1 / std::sqrt(ss / cols + 1e-6);
    for (int j = 0; j < cols; ++j) {
      float got = y[r * cols + j];
      EXPECT_NEAR(got, x[r * cols + j] * scale, 1e-5 * (1 + std::fabs(got)));
      uint32_t b = bitsOf(got);
      uint16_t want = (b + 0x7fff + ((b >> 16) & 1)) >> 16;
      EXPECT_EQ(bf[r * cols + j], want);
    }
  }
}

unsigned hostMix(unsigned a, unsigned b) {
  unsigned sh = a & 31;
  // __funnelshift_l(lo = a, hi = b, sh): the high word of (b:a) << sh.
  unsigned long long v = ((unsigned long long)b << 32) | a;
  unsigned funnel = (unsigned)((v << sh) >> 32);
  // __byte_perm(a, b, 0x5140): bytes {a0, b0, a1, b1} from low to high.
  unsigned char bytes[8];
  for (int i = 0; i < 4; ++i) {
    bytes[i] = (a >> (8 * i)) & 0xff;
    bytes[4 + i] = (b >> (8 * i)) & 0xff;
  }
  unsigned perm = 0, sel = 0x5140;
  for (int i = 0; i < 4; ++i)
    perm |= (unsigned)bytes[(sel >> (4 * i)) & 7] << (8 * i);
  return funnel ^ perm;
}

TEST(EmuNvcc, IntegerAndBitOperationsWithACall) {
  REQUIRE_NVCC_PTX(text);
  PtxModule m(text);
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  int n = 777;
  std::vector<unsigned> in(n);
  std::mt19937 rng(9);
  for (unsigned &v : in)
    v = rng();
  in[0] = 0;
  in[1] = 0x80000000u;
  DeviceBuffer<unsigned> din(in), dout(8 * n);
  ASSERT_EQ(launch(m.function("int_ops"), (n + 127) / 128, 128,
                   {&din.ptr, &dout.ptr, &n}),
            CUDA_SUCCESS);
  std::vector<unsigned> o = dout.read();
  for (int i = 0; i < n; ++i) {
    unsigned a = in[i], b = in[(i + 1) % n];
    unsigned long long w = (unsigned long long)a * b;
    unsigned rev = 0;
    for (int k = 0; k < 32; ++k)
      rev |= ((a >> k) & 1) << (31 - k);
    unsigned s = 0;
    for (unsigned k = a & 63; k != 0; k = k & (k - 1))
      s += k;
    unsigned want[8] = {
        (unsigned)__builtin_popcount(a) + (b ? __builtin_clz(b) : 32),
        rev,
        hostMix(a, b),
        (unsigned)((unsigned long long)(((unsigned __int128)w *
                                         0x9e3779b97f4a7c15ull) >>
                                        64) >>
                   7),
        (unsigned)((int)a >> (b & 31)),
        a / (b | 1) + a % (b | 1),
        s,
        (unsigned)(a ? __builtin_ctz(a) + 1 : 0)};
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(o[8 * i + k], want[k]) << "element " << i << " result " << k;
  }
}

} // namespace
