//===- SyncTest.cpp - Barriers, atomics, divergence and calls -------------===//
//
// Barrier ordering through shared memory across warps, contended atomics
// from many blocks of 1024 threads (global and shared), loops whose trip
// count differs per lane with early returns, and .func calls with
// parameters and return values.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cstdlib>

using namespace gptc::emu::test;

namespace {

// Each thread writes s[tid] = 3*tid, then (after the barrier) reads its
// neighbour of the next warp: correct only if the barrier orders the warps.
// Block b stores the value + 7b at out[b * ntid + tid].
const char *kBarrier = R"(
.shared .align 4 .b8 tile[4096];
.visible .entry barrier_order(.param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mul.lo.u32 %r3, %r1, 3;
  mov.u32 %r4, tile;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r4, %r5;
  st.shared.u32 [%r6], %r3;
  bar.sync 0;
  add.s32 %r7, %r1, 32;
  rem.u32 %r8, %r7, %r2;
  shl.b32 %r9, %r8, 2;
  add.s32 %r10, %r4, %r9;
  ld.shared.u32 %r11, [%r10];
  barrier.sync.aligned 0;
  st.shared.u32 [%r6], 0;
  mov.u32 %r12, %ctaid.x;
  mad.lo.u32 %r13, %r12, %r2, %r1;
  mad.lo.u32 %r11, %r12, 7, %r11;
  mul.wide.u32 %rd2, %r13, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";

TEST(EmuSync, BarrierOrdersWarpsThroughSharedMemory) {
  PtxModule m(ptx(kBarrier));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(1024);
  ASSERT_EQ(launch(m.function("barrier_order"), 1, 1024, {&out.ptr}),
            CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 1024; ++t)
    ASSERT_EQ(o[t], 3 * ((t + 32) % 1024)) << "thread " << t;
}

// Every thread adds 1 (u32) and its tid (f32, exact) to global counters and
// 1 to a shared counter; thread 0 adds the shared total to a third counter.
const char *kAtomics = R"(
.visible .entry atomics(.param .u64 pcount, .param .u64 pfsum, .param .u64 pblk)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<3>;
  .shared .align 4 .u32 counter;
  ld.param.u64 %rd1, [pcount];
  ld.param.u64 %rd2, [pfsum];
  ld.param.u64 %rd3, [pblk];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [counter], 0;
  bar.sync 0;
  atom.global.add.u32 %r2, [%rd1], 1;
  red.global.add.f32 [%rd2], 1.0;
  atom.shared.add.u32 %r3, [counter], 1;
  bar.sync 0;
  @!%p1 bra DONE;
  ld.shared.u32 %r4, [counter];
  atom.global.add.u32 %r5, [%rd3], %r4;
DONE:
  ret;
}
)";

TEST(EmuSync, ContendedAtomicsFromManyBlocks) {
  PtxModule m(ptx(kAtomics));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> count(1), blk(1);
  DeviceBuffer<float> fsum(1);
  const unsigned blocks = 48;
  ASSERT_EQ(launch(m.function("atomics"), blocks, 1024,
                   {&count.ptr, &fsum.ptr, &blk.ptr}),
            CUDA_SUCCESS);
  EXPECT_EQ(count.read()[0], blocks * 1024);
  EXPECT_EQ(fsum.read()[0], (float)(blocks * 1024));
  EXPECT_EQ(blk.read()[0], blocks * 1024);
  // Atomics on shared memory do not race with each other (racecheck), and
  // the barriers order the plain accesses.
  setenv("GPTC_EMU_RACECHECK", "1", 1);
  CUresult r =
      launch(m.function("atomics"), 2, 1024, {&count.ptr, &fsum.ptr, &blk.ptr});
  unsetenv("GPTC_EMU_RACECHECK");
  EXPECT_EQ(r, CUDA_SUCCESS);
}

// Blocks write their own parts of the output from many warps: the result
// must not depend on how many host threads run the blocks.
TEST(EmuSync, ResultsDoNotDependOnThePoolSize) {
  PtxModule m(ptx(kBarrier));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::vector<std::vector<uint32_t>> results;
  for (const char *threads : {"1", "2", "5"}) {
    setenv("GPTC_EMU_THREADS", threads, 1);
    DeviceBuffer<uint32_t> out(7 * 1024);
    EXPECT_EQ(launch(m.function("barrier_order"), 7, 1024, {&out.ptr}),
              CUDA_SUCCESS);
    results.push_back(out.read());
  }
  unsetenv("GPTC_EMU_THREADS");
  for (unsigned i = 0; i < 7 * 1024; ++i)
    ASSERT_EQ(results[0][i], 3 * ((i % 1024 + 32) % 1024) + 7 * (i / 1024));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

// Lane t loops t times (odd lanes stop after t/2 iterations through an
// early ret) summing i*i; divergent lanes reconverge for the final store.
const char *kDivergent = R"(
.visible .entry divergent(.param .u64 pout)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
  and.b32 %r4, %r1, 1;
  shr.u32 %r5, %r1, 1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  setp.ne.u32 %p2, %r4, 0;
  setp.eq.u32 %p3, %r2, %r5;
  and.pred %p2, %p2, %p3;
  @%p2 bra EARLY;
  mad.lo.u32 %r3, %r2, %r2, %r3;
  add.u32 %r2, %r2, 1;
  bra.uni LOOP;
EARLY:
  st.global.u32 [%rd3], %r3;
  ret;
DONE:
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

TEST(EmuSync, DivergentLoopsAndEarlyReturns) {
  PtxModule m(ptx(kDivergent));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(200);
  ASSERT_EQ(launch(m.function("divergent"), 1, 200, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 200; ++t) {
    unsigned n = (t & 1) ? std::min(t, t / 2) : t, want = 0;
    for (unsigned i = 0; i < n; ++i)
      want += i * i;
    ASSERT_EQ(o[t], want) << "thread " << t;
  }
}

// A .func with two parameters and a return value, called under divergence
// (even lanes only), and a nested call.
const char *kCall = R"(
.func (.param .b32 ret0) axpb(.param .b32 x, .param .b32 a)
{
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [a];
  mad.lo.u32 %r3, %r1, %r2, 7;
  st.param.b32 [ret0], %r3;
  ret;
}
.func (.param .b32 ret1) twice(.param .b32 y)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [y];
  {
  .param .b32 p0;
  .param .b32 p1;
  .param .b32 rv;
  st.param.b32 [p0], %r1;
  st.param.b32 [p1], 2;
  call.uni (rv), axpb, (p0, p1);
  ld.param.b32 %r2, [rv];
  }
  st.param.b32 [ret1], %r2;
  ret;
}
.visible .entry caller(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, 0;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  {
  .param .b32 q0;
  .param .b32 qr;
  st.param.b32 [q0], %r1;
  call (qr), twice, (q0);
  ld.param.b32 %r5, [qr];
  }
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST(EmuSync, CallsWithParametersUnderDivergence) {
  PtxModule m(ptx(kCall));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(96);
  ASSERT_EQ(launch(m.function("caller"), 1, 96, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 96; ++t)
    EXPECT_EQ(o[t], t & 1 ? 0u : 2 * t + 7) << "thread " << t;
}

} // namespace
