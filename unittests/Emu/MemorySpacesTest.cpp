//===- MemorySpacesTest.cpp - Module variables, local and generic memory --===//
//
// .global and .const module variables with initialisers (read by kernels,
// found by cuModuleGetGlobal), a thread's .local frame, generic addresses
// of local and shared memory through cvta (one warp's generic accesses in
// two spaces), cvt .satfinite, and the counters of a launch
// (gptcEmuGetLaunchCounters).
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"
#include "emu/gptc_emu.h"

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

// Generic addresses of one warp in two spaces: even lanes in shared memory,
// odd lanes in global memory. Each lane stores its thread index through its
// generic address, loads it back, and writes it (plus 1000 for a shared
// lane) to out[tid]; a warp's access spans both spaces.
TEST(EmuMemorySpaces, OneWarpsGenericAccessesInTwoSpaces) {
  PtxModule m(ptx(R"(
.shared .align 4 .b8 sh[256];
.visible .entry mixed(.param .u64 pout, .param .u64 pscratch)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pscratch];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  mov.u64 %rd4, sh;
  add.s64 %rd5, %rd4, %rd3;
  cvta.shared.u64 %rd6, %rd5;
  add.s64 %rd7, %rd2, %rd3;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  selp.b64 %rd8, %rd6, %rd7, %p1;
  selp.b32 %r3, 1000, 0, %p1;
  st.u32 [%rd8], %r1;
  ld.u32 %r4, [%rd8];
  add.u32 %r5, %r4, %r3;
  add.s64 %rd9, %rd1, %rd3;
  st.global.u32 [%rd9], %r5;
  ret;
}
)"));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(64), scratch(64);
  ASSERT_EQ(launch(m.function("mixed"), 1, 64, {&out.ptr, &scratch.ptr}),
            CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read(), g = scratch.read();
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(o[t], t + (t % 2 ? 0 : 1000)) << "thread " << t;
    if (t % 2)
      EXPECT_EQ(g[t], t) << "thread " << t;
  }
}

} // namespace

namespace {

// One warp: a store with a 128-byte stride (every lane in bank 0: 31 extra
// wavefronts), a conflict-free load, a branch half the warp takes, 4 bytes
// loaded and stored per lane.
const char *kCounters = R"(
.shared .align 4 .b8 tile[4096];
.visible .entry counters(.param .u64 pio)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pio];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  mov.u32 %r3, tile;
  mad.lo.u32 %r4, %r1, 128, %r3;
  st.shared.u32 [%r4], %r2;
  mad.lo.u32 %r5, %r1, 4, %r3;
  ld.shared.u32 %r6, [%r5];
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  add.u32 %r6, %r6, 1;
SKIP:
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

TEST(EmuCounters, OneLaunch) {
  PtxModule m(ptx(kCounters));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> io(32);
  ASSERT_EQ(launch(m.function("counters"), 1, 32, {&io.ptr}), CUDA_SUCCESS);
  gptcEmuLaunchCounters c;
  ASSERT_EQ(gptcEmuGetLaunchCounters(&c), 0);
  EXPECT_EQ(c.globalBytesLoaded, 128u);
  EXPECT_EQ(c.globalBytesStored, 128u);
  EXPECT_EQ(c.sharedBankConflicts, 31u);
  EXPECT_EQ(c.divergentBranches, 1u);
  // 15 issues: 11 before the branch, the bra, the add (lanes 16-31 only),
  // the store and the ret; lanes count where their guard held (the bra:
  // lanes 0-15).
  EXPECT_EQ(c.warpInstructions, 15u);
  EXPECT_EQ(c.threadInstructions, 11u * 32 + 16 + 16 + 32 + 32);
  EXPECT_GT(c.seconds, 0.0);
  EXPECT_EQ(gptcEmuGetLaunchCounters(nullptr), 1);
}

} // namespace

// Vector stores and packs whose elements are immediates (LLVM stores a
// constant vector so: st.global.v4.b32 [a], {0f00000000, ...}), beside
// registers; a vector load of what they wrote.
const char *kVectorImmediates = R"(
.visible .entry vecimm(.param .u64 pout)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.b32 [%rd3], {0f3F800000, %r1, -2, 0x7};
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd3];
  mov.b64 %rd4, {%r3, 0x11};
  add.s64 %rd5, %rd3, 512;
  st.global.v2.b32 [%rd5], {%r2, %r5};
  st.global.b64 [%rd5+8], %rd4;
  ret;
}
)";

TEST(EmuMemorySpaces, VectorElementsThatAreImmediates) {
  PtxModule m(ptx(kVectorImmediates));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(256);
  ASSERT_EQ(launch(m.function("vecimm"), 1, 32, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(o[4 * t + 0], 0x3f800000u) << "thread " << t;
    EXPECT_EQ(o[4 * t + 1], t);
    EXPECT_EQ(o[4 * t + 2], 0xfffffffeu);
    EXPECT_EQ(o[4 * t + 3], 7u);
    EXPECT_EQ(o[128 + 4 * t + 0], 0x3f800000u);
    EXPECT_EQ(o[128 + 4 * t + 1], 7u);
    EXPECT_EQ(o[128 + 4 * t + 2], t);
    EXPECT_EQ(o[128 + 4 * t + 3], 0x11u);
  }
}
