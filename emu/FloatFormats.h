//===- FloatFormats.h - f16/bf16/f32 rounding of the emulator ---*- C++ -*-===//
//
// Narrowing conversions with PTX's rounding modifiers (.rn ties-to-even,
// .rz, .rm, .rp, .rna), subnormals and overflow handled per mode, NaNs
// canonical as NVIDIA GPUs produce them.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_FLOATFORMATS_H
#define GPTC_EMU_FLOATFORMATS_H

#include "emu/PtxModule.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gptc::emu {

template <class T> inline T fromBits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
template <class T> inline uint64_t toBits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

/// A binary float format: `mant` stored mantissa bits, exponent range of
/// normal numbers [emin, emax].
struct FloatFormat {
  int mant, emin, emax;
};
constexpr FloatFormat kHalf{10, -14, 15}, kBf16{7, -126, 127},
    kSingle{23, -126, 127};

/// Rounds `x` (any double) to `fmt` with mode `r`; returns the bit pattern
/// (sign, exponent, mantissa) of the narrow format.
inline uint64_t roundToFormat(double x, FloatFormat fmt, Rnd r) {
  int expBits = fmt.emax == 15 ? 5 : 8;
  uint64_t signBit = 1ull << (fmt.mant + expBits);
  uint64_t expMask = ((1ull << expBits) - 1) << fmt.mant;
  bool neg = std::signbit(x);
  uint64_t sign = neg ? signBit : 0;
  if (std::isnan(x))
    return expMask | ((1ull << fmt.mant) - 1); // canonical NaN, sign clear
  if (std::isinf(x))
    return sign | expMask;
  double a = std::fabs(x);
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e);
  int E = e - 1;
  int ulpExp = (E < fmt.emin ? fmt.emin : E) - fmt.mant;
  double q = std::ldexp(a, -ulpExp);
  double n = std::floor(q), frac = q - n;
  bool up = false;
  switch (r) {
  case Rnd::Rz:
    break;
  case Rnd::Rm:
    up = neg && frac > 0;
    break;
  case Rnd::Rp:
    up = !neg && frac > 0;
    break;
  case Rnd::Rna:
    up = frac >= 0.5;
    break;
  default: // .rn
    up = frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0);
    break;
  }
  if (up)
    n += 1;
  uint64_t maxFinite = expMask - (1ull << fmt.mant) + ((1ull << fmt.mant) - 1);
  double value = std::ldexp(n, ulpExp);
  if (value >= std::ldexp(2.0, fmt.emax)) {
    bool toInf = r == Rnd::Rn || r == Rnd::None || r == Rnd::Rna ||
                 (r == Rnd::Rp && !neg) || (r == Rnd::Rm && neg);
    return sign | (toInf ? expMask : maxFinite);
  }
  uint64_t in = (uint64_t)n;
  if (E < fmt.emin)
    return sign | in; // subnormal (a carry into 1<<mant is the smallest normal)
  return sign | (((uint64_t)(E - fmt.emin + 1) << fmt.mant) +
                 (in - (1ull << fmt.mant)));
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, mant = h & 1023;
  float v;
  if (exp == 0)
    v = std::ldexp((float)mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp((float)(mant | 1024), (int)exp - 25);
  return sign ? -v : v;
}
inline float bf16ToFloat(uint16_t h) {
  return fromBits<float>((uint64_t)h << 16);
}
inline uint16_t floatToHalf(double x, Rnd r) {
  return (uint16_t)roundToFormat(x, kHalf, r);
}
inline uint16_t floatToBf16(double x, Rnd r) {
  return (uint16_t)roundToFormat(x, kBf16, r);
}
/// f64 -> f32 with a rounding mode.
inline float doubleToFloat(double x, Rnd r) {
  if (r == Rnd::Rn || r == Rnd::None)
    return (float)x;
  return fromBits<float>(roundToFormat(x, kSingle, r));
}

/// Flushes an f32 subnormal to a zero of the same sign (.ftz).
inline float flushF32(float f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f;
}

} // namespace gptc::emu

#endif
