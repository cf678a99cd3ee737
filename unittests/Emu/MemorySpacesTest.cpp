//===- MemorySpacesTest.cpp - Module variables, local and generic memory --===//
//
// .global and .const module variables with initialisers (read by kernels,
// found by cuModuleGetGlobal), a thread's .local frame, generic addresses
// of local and shared memory through cvta, and cvt .satfinite.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

using namespace gptc::emu::test;

namespace {

const char *kSpaces = R"(
.global .align 4 .u32 counter = 5;
.const .align 4 .b32 table[4] = {10, 20, 30, 40};
.shared .align 4 .b8 sh[256];
.visible .entry spaces(.param .u64 pout)
{
  .local .align 4 .b8 frame[16];
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<4>;
  .reg .b16 %h<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shl.b32 %r3, %r2, 2;
  cvt.u64.u32 %rd3, %r3;
  mov.u64 %rd2, table;
  add.s64 %rd4, %rd2, %rd3;
  ld.const.u32 %r4, [%rd4];
  mov.u64 %rd5, frame;
  add.s64 %rd6, %rd5, %rd3;
  st.local.u32 [%rd6], %r4;
  cvta.local.u64 %rd7, %rd6;
  ld.u32 %r5, [%rd7];
  atom.global.add.u32 %r6, [counter], %r5;
  mov.u64 %rd8, sh;
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd10, %rd8, %rd9;
  cvta.shared.u64 %rd11, %rd10;
  st.u32 [%rd11], %r1;
  ld.shared.u32 %r7, [%rd10];
  add.u32 %r8, %r5, %r7;
  mov.f32 %f1, 0f7F800000;
  mov.f32 %f2, 0fC7C35000;
  cvt.rn.satfinite.bf16.f32 %h1, %f1;
  cvt.rn.satfinite.f16.f32 %h2, %f2;
  mov.b32 %r9, {%h1, %h2};
  add.s64 %rd12, %rd1, %rd9;
  st.global.u32 [%rd12], %r8;
  st.global.u32 [%rd12+256], %r9;
  ret;
}
)";

TEST(EmuMemorySpaces, ModuleVariablesLocalAndGenericMemory) {
  PtxModule m(ptx(kSpaces));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(128);
  ASSERT_EQ(launch(m.function("spaces"), 1, 64, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(o[t], 10 * (t % 4 + 1) + t) << "thread " << t;
    // bf16(+inf) saturates to 0x7f7f, f16(-100000) to -65504 (0xfbff).
    EXPECT_EQ(o[64 + t], 0xfbff7f7fu);
  }
  CUdeviceptr counter;
  size_t bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal(&counter, &bytes, m.module, "counter"),
            CUDA_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  uint32_t value = 0;
  ASSERT_EQ(cuMemcpyDtoH(&value, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(value, 5u + 16 * (10 + 20 + 30 + 40));
  CUdeviceptr table;
  ASSERT_EQ(cuModuleGetGlobal(&table, &bytes, m.module, "table"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 16u);
  EXPECT_EQ(cuModuleGetGlobal(&table, &bytes, m.module, "frame"),
            CUDA_ERROR_NOT_FOUND);
}

TEST(EmuMemorySpaces, LocalFrameIsBoundsChecked) {
  PtxModule m(ptx(R"(
.visible .entry overrun()
{
  .local .align 4 .b8 frame[16];
  .reg .b64 %rd<4>;
  mov.u64 %rd1, frame;
  st.local.u32 [%rd1+16], 1;
  ret;
}
)"));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  testing::internal::CaptureStderr();
  CUresult r = launch(m.function("overrun"), 1, 1, {});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_NE(err.find("out-of-bounds local store of 4 bytes"), std::string::npos)
      << err;
  cuCtxSynchronize();
}

} // namespace
