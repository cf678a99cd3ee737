//===- ApproxTest.cpp - .approx functions within the PTX ISA's bounds -----===//
//
// ex2, lg2, rsqrt, sqrt, rcp, sin, cos and tanh .approx.f32 against f64
// host values, with the maximum errors the PTX ISA states for each.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cmath>
#include <random>

using namespace gptc::emu::test;

namespace {

const char *kApprox = R"(
.visible .entry approx(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<12>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r1, 256, %r2;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  ex2.approx.f32 %f2, %f1;
  abs.f32 %f10, %f1;
  lg2.approx.f32 %f3, %f10;
  rsqrt.approx.f32 %f4, %f10;
  sqrt.approx.f32 %f5, %f10;
  rcp.approx.f32 %f6, %f1;
  sin.approx.f32 %f7, %f1;
  cos.approx.f32 %f8, %f1;
  tanh.approx.f32 %f9, %f1;
  mul.wide.u32 %rd5, %r3, 32;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.f32 [%rd6], {%f2, %f3, %f4, %f5};
  st.global.v4.f32 [%rd6+16], {%f6, %f7, %f8, %f9};
  ret;
}
)";

double relErr(double got, double want) {
  return want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want);
}

TEST(EmuApprox, WithinIsaBounds) {
  PtxModule m(ptx(kApprox));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-3.14159f, 3.14159f);
  std::vector<float> in(1024);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = i % 4 == 0 ? dist(rng) * 20 : dist(rng);
  DeviceBuffer<float> din(in);
  DeviceBuffer<float> dout(in.size() * 8);
  ASSERT_EQ(launch(m.function("approx"), 4, 256, {&din.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<float> out = dout.read();
  const double ulp22 = std::ldexp(1.0, -22), ulp23 = std::ldexp(1.0, -23);
  for (size_t i = 0; i < in.size(); ++i) {
    double x = in[i], ax = std::fabs(x);
    const float *o = &out[8 * i];
    EXPECT_LE(relErr(o[0], std::exp2(x)), 2 * ulp22) << "ex2 " << x;
    if (ax > 0.5 && ax < 2)
      EXPECT_LE(std::fabs(o[1] - std::log2(ax)), ulp22) << "lg2 " << x;
    else if (ax > 0)
      EXPECT_LE(relErr(o[1], std::log2(ax)), ulp22) << "lg2 " << x;
    if (ax > 0) {
      EXPECT_LE(relErr(o[2], 1 / std::sqrt(ax)), ulp23) << "rsqrt " << x;
      EXPECT_LE(relErr(o[3], std::sqrt(ax)), ulp23) << "sqrt " << x;
      EXPECT_LE(relErr(o[4], 1 / x), ulp23) << "rcp " << x;
    }
    if (ax <= M_PI) {
      EXPECT_LE(std::fabs(o[5] - std::sin(x)), std::ldexp(1.0, -20.5));
      EXPECT_LE(std::fabs(o[6] - std::cos(x)), std::ldexp(1.0, -20.5));
    }
    EXPECT_LE(relErr(o[7], std::tanh(x)), std::ldexp(1.0, -11)) << "tanh " << x;
  }
}

} // namespace
