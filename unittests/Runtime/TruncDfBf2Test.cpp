//===- TruncDfBf2Test.cpp - f64 -> bf16 in one rounding -------------------===//

#include "runtime/cpu/Bf16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

extern "C" float __truncdfbf2(double d);
extern "C" float __truncsfbf2(float x);

using namespace gptc::runtime;

namespace {

uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

/// Nearest-even bf16 of a double whose result is a normal bf16, on the
/// integers of its encoding: 8 significant bits kept of 53.
uint16_t exactBf16(double d) {
  uint64_t b = bitsOf(d);
  uint16_t sign = uint16_t((b >> 48) & 0x8000u);
  int64_t e = int64_t((b >> 52) & 0x7ff) - 1023 + 127;
  uint64_t m = (b & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
  uint64_t q = m >> 45, rem = m & ((uint64_t(1) << 45) - 1);
  uint64_t half = uint64_t(1) << 44;
  if (rem > half || (rem == half && (q & 1)))
    ++q;
  if (q == 256) {
    q = 128;
    ++e;
  }
  return uint16_t(sign | (uint16_t(e) << 7) | uint16_t(q & 0x7f));
}

TEST(TruncDfBf2, RandomNormalsRoundToNearestEven) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exponent(-120, 120);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    ASSERT_EQ(f64ToBf16(d), exactBf16(d)) << d;
  }
}

TEST(TruncDfBf2, OneRoundingWhereTwoWouldBeWrong) {
  // 1 + 2^-8 is a tie between the bf16s 1 and 1 + 2^-7; a hair above it
  // (2^-30) rounds up. Through f32 to nearest the hair is lost (f32 keeps
  // 24 bits), the tie goes to even: 1. One rounding gives 1 + 2^-7.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(f32ToBf16(float(d)), 0x3f80u); // two roundings: 1.0
  EXPECT_EQ(f64ToBf16(d), 0x3f81u);        // one: 1 + 2^-7
  EXPECT_EQ(f64ToBf16(d), exactBf16(d));
  // Exact ties go to even both ways.
  EXPECT_EQ(f64ToBf16(1.0 + std::ldexp(1.0, -8)), 0x3f80u);
  EXPECT_EQ(f64ToBf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82u);
}

TEST(TruncDfBf2, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(f64ToBf16(0.0), 0x0000u);
  EXPECT_EQ(f64ToBf16(-0.0), 0x8000u);
  EXPECT_EQ(f64ToBf16(inf), 0x7f80u);
  EXPECT_EQ(f64ToBf16(-inf), 0xff80u);
  EXPECT_EQ(f64ToBf16(1e300), 0x7f80u);  // overflow: inf
  EXPECT_EQ(f64ToBf16(-1e300), 0xff80u); // and -inf
  EXPECT_EQ(f64ToBf16(std::nan("")) & 0x7fc0u, 0x7fc0u);
  EXPECT_EQ(f64ToBf16(-std::nan("")) & 0x8000u, 0x8000u);
  // The largest bf16 and the first value that rounds past it.
  double maxBf16 = std::ldexp(255.0, 120);
  EXPECT_EQ(f64ToBf16(maxBf16), 0x7f7fu);
  EXPECT_EQ(f64ToBf16(std::ldexp(255.5, 120)), 0x7f80u); // tie to even: inf
  // The smallest subnormal bf16 (2^-133), and half of it (a tie: 0).
  EXPECT_EQ(f64ToBf16(std::ldexp(1.0, -133)), 0x0001u);
  EXPECT_EQ(f64ToBf16(std::ldexp(1.0, -134)), 0x0000u);
  EXPECT_EQ(f64ToBf16(std::ldexp(1.0, -134) + std::ldexp(1.0, -160)), 0x0001u);
}

TEST(TruncDfBf2, TheLibcallReturnsTheBitsInAFloatRegister) {
  float f = __truncdfbf2(1.0 + std::ldexp(1.0, -7));
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  EXPECT_EQ(bits & 0xffffu, 0x3f81u);
}

TEST(TruncDfBf2, TheF32LibcallRoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: ties to even (1);
  // 1 + 3 * 2^-8 ties up to 1 + 2^-6.
  auto bitsOf = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof(b));
    return b & 0xffffu;
  };
  EXPECT_EQ(bitsOf(__truncsfbf2(1.0f + std::ldexp(1.0f, -8))), 0x3f80u);
  EXPECT_EQ(bitsOf(__truncsfbf2(1.0f + 3 * std::ldexp(1.0f, -8))), 0x3f82u);
  EXPECT_EQ(bitsOf(__truncsfbf2(-2.0f)), 0xc000u);
  EXPECT_EQ(bitsOf(__truncsfbf2(std::nanf(""))) & 0x7fc0u, 0x7fc0u);
}

} // namespace
