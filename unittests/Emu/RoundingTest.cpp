//===- RoundingTest.cpp - Conversions and rounding on the emulated device -===//
//
// Hand-written PTX kernels checked against values computed on the host:
// f32 -> bf16/f16 under every rounding modifier, float -> integer with the
// integer rounding modifiers, f64 -> f32 and f32 arithmetic under .rn/.rz/
// .rm/.rp, packed cvt.rn.bf16x2.f32, .sat and .ftz.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cfenv>
#include <cmath>
#include <random>

using namespace gptc::emu::test;

namespace {

/// Inputs covering ties, subnormals, overflow, infinities and random bits.
std::vector<float> interestingFloats(size_t randomCount) {
  std::vector<float> v = {0.0f,        -0.0f,       1.0f,         -1.0f,
                          1.00390625f, 1.01171875f, -1.00390625f, 3.4e38f,
                          -3.4e38f,    65504.0f,    65520.0f,     1e-40f,
                          -1e-40f,     5.96e-8f,    2.98e-8f,     INFINITY,
                          -INFINITY,   0.1f,        -0.1f};
  std::mt19937 rng(7);
  for (size_t i = 0; i < randomCount; ++i) {
    uint32_t b = rng();
    if (((b >> 23) & 0xff) == 0xff)
      b &= ~(1u << 23); // no NaNs among the random values
    v.push_back(floatOf(b));
  }
  return v;
}

/// bf16 from f32 by bit arithmetic: round the dropped 16 bits per mode.
uint16_t hostBf16(float f, int mode) {
  uint32_t b = bitsOf(f);
  if (std::isnan(f))
    return 0x7fff;
  uint32_t low = b & 0xffff, hi = b >> 16;
  bool neg = b >> 31;
  bool up;
  switch (mode) {
  case 0:
    up = low > 0x8000 || (low == 0x8000 && (hi & 1));
    break; // rn
  case 1:
    up = false;
    break; // rz
  case 2:
    up = neg && low;
    break; // rm
  default:
    up = !neg && low;
    break; // rp
  }
  if ((hi & 0x7f80) == 0x7f80) // infinities stay
    up = false;
  return (uint16_t)(hi + up);
}

const char *kCvtBf16 = R"(
.visible .entry cvt_bf16(.param .u64 pin, .param .u64 pout, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .reg .b16 %h<6>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.rn.bf16.f32 %h1, %f1;
  cvt.rz.bf16.f32 %h2, %f1;
  cvt.rm.bf16.f32 %h3, %f1;
  cvt.rp.bf16.f32 %h4, %f1;
  mul.wide.u32 %rd5, %r5, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.b16 [%rd6], {%h1, %h2, %h3, %h4};
DONE:
  ret;
}
)";

TEST(EmuRounding, Bf16EveryMode) {
  PtxModule m(ptx(kCvtBf16));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::vector<float> in = interestingFloats(4000);
  in.push_back(NAN);
  unsigned n = in.size();
  DeviceBuffer<float> din(in);
  DeviceBuffer<uint16_t> dout(4 * n);
  ASSERT_EQ(launch(m.function("cvt_bf16"), (n + 127) / 128, 128,
                   {&din.ptr, &dout.ptr, &n}),
            CUDA_SUCCESS);
  std::vector<uint16_t> out = dout.read();
  const char *modes[] = {"rn", "rz", "rm", "rp"};
  for (unsigned i = 0; i < n; ++i)
    for (int mode = 0; mode < 4; ++mode)
      ASSERT_EQ(out[4 * i + mode], hostBf16(in[i], mode))
          << "cvt." << modes[mode] << ".bf16.f32 of " << in[i] << " (0x"
          << std::hex << bitsOf(in[i]) << ")";
}

const char *kCvtMisc = R"(
.visible .entry cvt_misc(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<2>;
  .reg .b16 %h<2>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd5, %r1, 64;
  add.s64 %rd6, %rd2, %rd5;
  cvt.rni.s32.f32 %r2, %f1;
  cvt.rzi.s32.f32 %r3, %f1;
  cvt.rmi.s32.f32 %r4, %f1;
  cvt.rpi.s32.f32 %r5, %f1;
  st.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};
  cvt.rn.f16.f32 %h1, %f1;
  cvt.u32.u16 %r6, %h1;
  cvt.sat.f32.f32 %f2, %f1;
  cvt.rni.u32.f32 %r7, %f1;
  mov.b32 %r8, %f2;
  cvt.rn.bf16x2.f32 %r9, %f1, %f2;
  st.global.v4.u32 [%rd6+16], {%r6, %r8, %r7, %r9};
  cvt.f64.f32 %fd1, %f1;
  mul.f64 %fd1, %fd1, 0d3FF0000000000001;
  cvt.rn.f32.f64 %f3, %fd1;
  cvt.rz.f32.f64 %f4, %fd1;
  cvt.rm.f32.f64 %f5, %fd1;
  cvt.rp.f32.f64 %f6, %fd1;
  st.global.v4.f32 [%rd6+32], {%f3, %f4, %f5, %f6};
  ret;
}
)";

int hostCvtInt(float f, int mode, bool isUnsigned) {
  if (std::isnan(f))
    return 0;
  double v = mode == 0   ? std::nearbyint((double)f)
             : mode == 1 ? std::trunc((double)f)
             : mode == 2 ? std::floor((double)f)
                         : std::ceil((double)f);
  double lo = isUnsigned ? 0 : -2147483648.0,
         hi = isUnsigned ? 4294967295.0 : 2147483647.0;
  v = v < lo ? lo : v > hi ? hi : v;
  return isUnsigned ? (int)(uint32_t)v : (int)v;
}

float hostNarrow(double d, int mode) {
  const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  std::fesetround(modes[mode]);
  volatile double vd = d;
  volatile float f = (float)vd;
  std::fesetround(FE_TONEAREST);
  return f;
}

TEST(EmuRounding, IntegerHalfSaturateAndNarrowing) {
  PtxModule m(ptx(kCvtMisc));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::vector<float> in = {0.5f,          1.5f,   2.5f,  -0.5f,   -1.5f,
                           -2.5f,         0.49f,  -7.7f, 7.7f,    3e9f,
                           -3e9f,         NAN,    1e-3f, 65519.f, 65520.f,
                           1.0009765625f, 0.999f, -0.0f, 1.2f,    1e30f};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1e4f, 1e4f);
  while (in.size() < 256)
    in.push_back(dist(rng));
  DeviceBuffer<float> din(in);
  DeviceBuffer<uint32_t> dout(in.size() * 16);
  ASSERT_EQ(launch(m.function("cvt_misc"), 1, in.size(), {&din.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<uint32_t> out = dout.read();
  for (size_t i = 0; i < in.size(); ++i) {
    float f = in[i];
    const uint32_t *o = &out[16 * i];
    for (int mode = 0; mode < 4; ++mode)
      EXPECT_EQ((int)o[mode], hostCvtInt(f, mode, false))
          << "cvt mode " << mode << " of " << f;
    _Float16 h = (_Float16)f;
    uint16_t hb;
    std::memcpy(&hb, &h, 2);
    if (!std::isnan(f))
      EXPECT_EQ(o[4], hb) << "cvt.rn.f16.f32 of " << f;
    float sat = std::isnan(f) ? 0.f : std::fmin(std::fmax(f, 0.f), 1.f);
    EXPECT_EQ(o[5], bitsOf(sat)) << "cvt.sat of " << f;
    EXPECT_EQ((int)o[6], hostCvtInt(f, 0, true)) << "cvt.rni.u32 of " << f;
    EXPECT_EQ(o[7], (uint32_t)hostBf16(f, 0) << 16 | hostBf16(sat, 0))
        << "cvt.rn.bf16x2.f32 of " << f;
    double d = (double)f * 1.0000000000000002;
    for (int mode = 0; mode < 4; ++mode)
      if (!std::isnan(f))
        EXPECT_EQ(o[8 + mode], bitsOf(hostNarrow(d, mode)))
            << "cvt mode " << mode << ".f32.f64 of " << d;
  }
}

const char *kArith = R"(
.visible .entry arith(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<20>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.rn.f32 %f3, %f1, %f2;
  add.rz.f32 %f4, %f1, %f2;
  add.rm.f32 %f5, %f1, %f2;
  add.rp.f32 %f6, %f1, %f2;
  mul.rn.f32 %f7, %f1, %f2;
  mul.rz.f32 %f8, %f1, %f2;
  mul.rm.f32 %f9, %f1, %f2;
  mul.rp.f32 %f10, %f1, %f2;
  fma.rn.f32 %f11, %f1, %f2, %f1;
  fma.rz.f32 %f12, %f1, %f2, %f1;
  fma.rm.f32 %f13, %f1, %f2, %f1;
  fma.rp.f32 %f14, %f1, %f2, %f1;
  div.rn.f32 %f15, %f1, %f2;
  sqrt.rn.f32 %f16, %f2;
  mul.ftz.f32 %f17, %f1, 0f00800000;
  add.sat.f32 %f18, %f1, %f2;
  mul.wide.u32 %rd7, %r1, 64;
  add.s64 %rd8, %rd3, %rd7;
  st.global.v4.f32 [%rd8], {%f3, %f4, %f5, %f6};
  st.global.v4.f32 [%rd8+16], {%f7, %f8, %f9, %f10};
  st.global.v4.f32 [%rd8+32], {%f11, %f12, %f13, %f14};
  st.global.v4.f32 [%rd8+48], {%f15, %f16, %f17, %f18};
  ret;
}
)";

TEST(EmuRounding, ArithmeticEveryMode) {
  PtxModule m(ptx(kArith));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-10.f, 10.f);
  std::vector<float> a(512), b(512);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = dist(rng);
    b[i] = dist(rng) * (i % 3 ? 1.f : 1e-7f);
  }
  DeviceBuffer<float> da(a), db(b);
  DeviceBuffer<float> dout(a.size() * 16);
  ASSERT_EQ(launch(m.function("arith"), 1, 512, {&da.ptr, &db.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<float> out = dout.read();
  const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (size_t i = 0; i < a.size(); ++i) {
    const float *o = &out[16 * i];
    for (int k = 0; k < 4; ++k) {
      std::fesetround(modes[k]);
      volatile float x = a[i], y = b[i];
      float fused = std::fma(x, y, x);
      std::fesetround(FE_TONEAREST);
      // Sums and products of these inputs are exact in f64: round once.
      float sum = hostNarrow((double)a[i] + b[i], k);
      float prod = hostNarrow((double)a[i] * b[i], k);
      EXPECT_EQ(bitsOf(o[k]), bitsOf(sum)) << "add mode " << k;
      EXPECT_EQ(bitsOf(o[4 + k]), bitsOf(prod)) << "mul mode " << k;
      EXPECT_EQ(bitsOf(o[8 + k]), bitsOf(fused)) << "fma mode " << k;
    }
    EXPECT_EQ(bitsOf(o[12]), bitsOf(a[i] / b[i]));
    float s = std::sqrt(b[i]);
    EXPECT_EQ(bitsOf(o[13]), std::isnan(s) ? 0x7fffffffu : bitsOf(s));
    float t = a[i] * 1.17549435e-38f;
    if (std::fpclassify(t) == FP_SUBNORMAL)
      t = std::copysign(0.f, t);
    EXPECT_EQ(bitsOf(o[14]), bitsOf(t)) << "mul.ftz";
    EXPECT_EQ(o[15], std::fmin(std::fmax(a[i] + b[i], 0.f), 1.f));
  }
}

} // namespace
