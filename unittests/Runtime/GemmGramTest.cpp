//===- GemmGramTest.cpp - Gram products: one triangle, the full bits ------===//
//
// Newton-Schulz's X X^T reaches gptc_gemm_f32 / gptc_gemm_bf16 with A and B
// the same buffer (and b A + c A A^T with A itself as a symmetric C), and
// the runtime computes only the lower triangle: in
// blocks of rows (f32) or by skipping the register tiles above the
// diagonal (bf16). On gptc's AVX-512 kernels every element is summed in k
// order whatever the split, so the triangle must be bit for bit the full
// product that the same call with B a copy of A computes (OpenBLAS's bits
// depend on the split, and these tests skip there). Shapes cross the f32
// row blocks (192 rows; 500 = 192 + 308) and the bf16 kernel's row block
// (144) and tiles (12 x 32), one item or a batch, one thread or two.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/GemmAMX.h"
#include "runtime/cpu/GemmAVX512.h"
#include "runtime/gptrt.h"

#include "gtest/gtest.h"

#include <omp.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

/// Gram (B is A) against the full product (B a copy of A): the same bytes,
/// for X m x k row-major (X X^T) and stored transposed (X^T X); with no C,
/// with a symmetric C (beta C joins the triangle, as Newton-Schulz's
/// b A + c A A^T), and with a C that is not symmetric (so no triangle).
template <typename T, typename Gemm, typename Random>
void checkTriangleIsFullProduct(Gemm gemm, Random random) {
  std::mt19937 gen(7);
  enum class WithC { None, Symmetric, Asymmetric };
  for (int threads : {1, 2})
    for (int64_t m : {16, 37, 300, 500})
      for (int64_t k : {95, 640})
        for (int64_t batch : {1, 3})
          for (int trans = 0; trans < 2; ++trans)
            for (WithC withC :
                 {WithC::None, WithC::Symmetric, WithC::Asymmetric}) {
              SCOPED_TRACE(::testing::Message()
                           << "threads " << threads << " m " << m << " k " << k
                           << " batch " << batch << " trans " << trans << " C "
                           << int(withC));
              const int64_t item = m * k;
              std::vector<T> a(size_t(batch * item));
              for (T &x : a)
                x = random(gen);
              std::vector<T> copy = a;
              std::vector<T> c(size_t(batch * m * m));
              for (int64_t bi = 0; bi < batch; ++bi)
                for (int64_t i = 0; i < m; ++i)
                  for (int64_t j = 0; j <= i; ++j) {
                    T &lower = c[size_t(bi * m * m + i * m + j)];
                    lower = random(gen);
                    c[size_t(bi * m * m + j * m + i)] = lower;
                  }
              if (withC == WithC::Asymmetric) // the last item's corner only
                c[size_t((batch - 1) * m * m + m - 1)] = random(gen);
              const float beta = withC == WithC::None ? 0.0f : -0.5f;
              const uintptr_t cp =
                  withC == WithC::None ? 0 : uintptr_t(c.data());
              std::vector<T> gram(size_t(batch * m * m)),
                  full(size_t(batch * m * m));
              // X row-major (m x k, row stride k) as op(A) = X, op(B) = X^T;
              // or stored as X^T (k x m) with the transposes swapped.
              const int64_t rs = trans ? m : k;
              omp_set_num_threads(threads);
              for (auto [b, d] : {std::pair{a.data(), gram.data()},
                                  std::pair{copy.data(), full.data()}})
                gemm(trans, !trans, m, m, k, uintptr_t(a.data()), rs, 1, item,
                     uintptr_t(b), rs, 1, item, 0.75f, beta, cp, m, 1, m * m,
                     uintptr_t(d), m, 1, m * m, batch);
              omp_set_num_threads(2);
              int64_t differ = 0;
              for (size_t i = 0; i < gram.size(); ++i)
                differ += std::memcmp(&gram[i], &full[i], sizeof(T)) != 0;
              EXPECT_EQ(differ, 0);
            }
}

/// Newton-Schulz's b A + c A A^T: a symmetric A is A, B and C at once;
/// and the same with C in place in D. The bytes of the full product (B a
/// copy of A, and D a copy of C for the in-place case).
template <typename T, typename Gemm, typename Random>
void checkSymmetricOperandAsC(Gemm gemm, Random random) {
  std::mt19937 gen(11);
  for (int64_t m : {16, 300})
    for (int64_t batch : {1, 3})
      for (bool inPlace : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "m " << m << " batch " << batch
                                          << " C in D " << inPlace);
        const int64_t item = m * m;
        std::vector<T> a(size_t(batch * item)), other(size_t(batch * item));
        for (std::vector<T> *v : {&a, &other})
          for (int64_t bi = 0; bi < batch; ++bi)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j <= i; ++j) {
                T &lower = (*v)[size_t(bi * item + i * m + j)];
                lower = random(gen);
                (*v)[size_t(bi * item + j * m + i)] = lower;
              }
        std::vector<T> copy = a;
        // In place, C is D's starting contents; else A itself.
        std::vector<T> gram = other, full = other;
        for (auto [b, d] : {std::pair{a.data(), gram.data()},
                            std::pair{copy.data(), full.data()}})
          gemm(0, 1, m, m, m, uintptr_t(a.data()), m, 1, item, uintptr_t(b), m,
               1, item, 2.0315f, -4.775f,
               inPlace ? uintptr_t(d) : uintptr_t(a.data()), m, 1, item,
               uintptr_t(d), m, 1, item, batch);
        int64_t differ = 0;
        for (size_t i = 0; i < gram.size(); ++i)
          differ += std::memcmp(&gram[i], &full[i], sizeof(T)) != 0;
        EXPECT_EQ(differ, 0);
      }
}

TEST(GemmGram, F32TriangleIsTheFullProductBitForBit) {
  if (!gptc::runtime::avx512SgemmAvailable())
    GTEST_SKIP() << "f32 runs on OpenBLAS here, whose bits depend on the split";
  auto random = [](std::mt19937 &gen) {
    return std::uniform_real_distribution<float>(-1.0f, 1.0f)(gen);
  };
  auto gemm = [](auto... args) { gptc_gemm_f32(args...); };
  checkTriangleIsFullProduct<float>(gemm, random);
  checkSymmetricOperandAsC<float>(gemm, random);
}

TEST(GemmGram, Bf16TriangleIsTheFullProductBitForBit) {
  if (!gptc::runtime::avx512Bf16Available() ||
      gptc::runtime::amxBf16Available())
    GTEST_SKIP() << "bf16 does not run on the AVX512_BF16 kernel here";
  auto random = [](std::mt19937 &gen) {
    // A bf16 in (-2, 2): sign, exponent 126 or 127, 7 mantissa bits.
    return uint16_t((gen() & 0x807f) | 0x3f00 | ((gen() & 1) << 7));
  };
  auto gemm = [](auto... args) { gptc_gemm_bf16(args...); };
  checkTriangleIsFullProduct<uint16_t>(gemm, random);
  checkSymmetricOperandAsC<uint16_t>(gemm, random);
}

} // namespace
