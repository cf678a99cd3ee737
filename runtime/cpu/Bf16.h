//===- Bf16.h - bf16 values and matrices of the CPU runtime -----*- C++ -*-===//

#ifndef GPTC_RUNTIME_CPU_BF16_H
#define GPTC_RUNTIME_CPU_BF16_H

#include <cstdint>
#include <cstring>

namespace gptc::runtime {

inline float bf16ToF32(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// Round to nearest even; NaNs stay (quiet) NaNs. Without a branch, so
/// that a loop of these vectorises.
inline uint16_t f32ToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  const uint32_t quietNaN = (bits >> 16) | 0x40u;
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  return uint16_t((bits & 0x7fffffffu) > 0x7f800000u ? quietNaN : rounded);
}

/// Round to nearest even from f64 in one rounding (TruncDfBf2.cpp, which
/// also defines the libcall __truncdfbf2 that step.so may need).
uint16_t f64ToBf16(double d);

/// A strided bf16 matrix: X[i][j] = ptr[i * rs + j * cs] (uint16 storage).
struct Bf16Matrix {
  uint16_t *ptr;
  int64_t rows, cols, rs, cs;
};

/// What joins the f32 sums before the one rounding to bf16:
/// D = alpha sums + beta C, C (bf16, its own strides) not read when beta
/// is 0. C may be D itself.
struct Bf16Epilogue {
  float alpha = 1.0f, beta = 0.0f;
  const uint16_t *c = nullptr;
  int64_t rs = 0, cs = 0;
};

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_CPU_BF16_H
