//===- TruncDfBf2.cpp - f64 -> bf16, the libcall step.so may need ---------===//
//
// LLVM lowers an f64 -> bf16 `fptrunc` (an f64 model whose Newton-Schulz
// runs in bf16, or a bf16 slot written from f64) to a call of compiler-rt's
// __truncdfbf2. GCC 12's libgcc, which the step library links, has no such
// function, so the step failed to load ("undefined symbol: __truncdfbf2").
// The runtime provides it and exports it to step.so like its callbacks.
// Likewise __truncsfbf2 (f32 -> bf16), GCC 13's: on a CPU without
// AVX512-BF16 (Zen 3) LLVM lowers an f32 -> bf16 `fptrunc` to that call
// (with AVX512-BF16 it is one vcvtneps2bf16), and a step of head_dim 128
// failed to load there ("undefined symbol: __truncsfbf2").
//
// Correctly rounded (to nearest, ties to even): the double is first
// rounded to f32 *to odd* (truncated, the last bit set when inexact), then
// to bf16 to nearest even. Round-to-odd into a format with at least two
// more bits than the target makes the two roundings one (f32 has 16 more
// than bf16, and the same exponent range, so subnormals and overflow round
// right too).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Bf16.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gptc::runtime {

uint16_t f64ToBf16(double d) {
  if (std::isnan(d)) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    return uint16_t(((bits >> 48) & 0x8000u) | 0x7fc0u);
  }
  float f = float(d); // to nearest even
  if (std::isinf(f) && !std::isinf(d))
    f = std::copysign(3.4028234663852886e38f, f); // toward zero: FLT_MAX
  else if (std::fabs(double(f)) > std::fabs(d))
    f = std::nextafter(f, 0.0f); // toward zero
  if (double(f) != d) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    bits |= 1u; // inexact: odd
    std::memcpy(&f, &bits, sizeof(bits));
  }
  return f32ToBf16(f);
}

} // namespace gptc::runtime

/// compiler-rt's signature: bf16 is returned in XMM0 (x86-64 psABI), as a
/// float is; the bf16 bits are the low 16 bits of the float's.
extern "C" float __truncdfbf2(double d) {
  uint32_t bits = gptc::runtime::f64ToBf16(d);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// f32 -> bf16 to nearest even (NaN kept quiet), in compiler-rt's
/// signature as above.
extern "C" float __truncsfbf2(float x) {
  uint32_t bits = gptc::runtime::f32ToBf16(x);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}
