//===- WarpTest.cpp - Shuffles, votes and reductions within a warp --------===//
//
// shfl.sync in every mode with full and partial member masks (two halves
// of a warp shuffling in different branches) and with segment widths,
// vote.sync, redux.sync and activemask, against host-computed lanes.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

using namespace gptc::emu::test;

namespace {

// out[lane*8 + k]: k = 0 down 1, 1 up 3, 2 bfly with width 8 (c = 0x181f),
// 3 idx 5, 4 the down predicate, 5 a shuffle inside a half warp whose
// member mask is that half, 6 ballot of odd values, 7 redux.add.
const char *kShfl = R"(
.visible .entry shfl(.param .u64 pout)
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  mul.lo.u32 %r2, %r1, 10;
  shfl.sync.down.b32 %r3|%p1, %r2, 1, 31, -1;
  shfl.sync.up.b32 %r4, %r2, 3, 0, -1;
  shfl.sync.bfly.b32 %r5, %r2, 1, 6175, -1;
  shfl.sync.idx.b32 %r6, %r2, 5, 31, -1;
  selp.u32 %r7, 1, 0, %p1;
  setp.lt.u32 %p2, %r1, 16;
  @%p2 bra LOW;
  shfl.sync.idx.b32 %r8, %r2, 17, 31, -65536;
  bra.uni JOIN;
LOW:
  shfl.sync.bfly.b32 %r8, %r2, 2, 31, 65535;
JOIN:
  and.b32 %r9, %r1, 1;
  setp.ne.u32 %p3, %r9, 0;
  vote.sync.ballot.b32 %r10, %p3, -1;
  redux.sync.add.u32 %r11, %r1, -1;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
  st.global.v4.u32 [%rd3+16], {%r7, %r8, %r10, %r11};
  ret;
}
)";

TEST(EmuWarp, ShufflesVotesReductions) {
  PtxModule m(ptx(kShfl));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(32 * 8);
  ASSERT_EQ(launch(m.function("shfl"), 1, 32, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (int l = 0; l < 32; ++l) {
    const uint32_t *r = &o[8 * l];
    int down = l + 1 <= 31 ? l + 1 : l;
    EXPECT_EQ(r[0], 10u * down) << "lane " << l;
    EXPECT_EQ(r[4], l + 1 <= 31 ? 1u : 0u);
    EXPECT_EQ(r[1], 10u * (l >= 3 ? l - 3 : l)) << "lane " << l;
    // width 8: c = ((32-8) << 8) | 31, segments of 8 lanes.
    EXPECT_EQ(r[2], 10u * (l ^ 1)) << "lane " << l;
    EXPECT_EQ(r[3], 50u);
    EXPECT_EQ(r[5], l < 16 ? 10u * (l ^ 2) : 170u) << "lane " << l;
    EXPECT_EQ(r[6], 0xaaaaaaaau);
    EXPECT_EQ(r[7], 496u);
  }
}

const char *kSegmentIdx = R"(
.visible .entry seg(.param .u64 pout)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  shfl.sync.idx.b32 %r2, %r1, 3, 6175, -1;
  shfl.sync.up.b32 %r3, %r1, 2, 6144, -1;
  activemask.b32 %r4;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  st.global.u32 [%rd3+8], %r4;
  ret;
}
)";

TEST(EmuWarp, SegmentedShufflesInAPartialWarp) {
  PtxModule m(ptx(kSegmentIdx));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(32 * 3);
  // 24 threads: the last warp is partial; its member masks must not name
  // the missing lanes, so use a full-warp-sized block of 32.
  ASSERT_EQ(launch(m.function("seg"), 1, 32, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  for (unsigned l = 0; l < 32; ++l) {
    unsigned segBase = l & ~7u;
    EXPECT_EQ(o[3 * l], segBase + 3) << "idx in segments of 8, lane " << l;
    EXPECT_EQ(o[3 * l + 1], l - segBase >= 2 ? l - 2 : l) << "up, lane " << l;
    EXPECT_EQ(o[3 * l + 2], 0xffffffffu);
  }
}

TEST(EmuWarp, MemberMaskViolationFails) {
  // Both halves of a warp shuffle with a full member mask, but in different
  // branches: a GPU deadlocks or returns garbage; the emulator fails the
  // launch. (Lanes that exited before the shuffle would be fine.)
  PtxModule m(ptx(R"(
.visible .entry bad(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra OTHER;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
  bra.uni END;
OTHER:
  shfl.sync.bfly.b32 %r2, %r1, 2, 31, -1;
END:
  st.global.u32 [%rd1], %r2;
  ret;
}
)"));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(1);
  testing::internal::CaptureStderr();
  CUresult r = launch(m.function("bad"), 1, 32, {&out.ptr});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_INSTRUCTION);
  EXPECT_NE(err.find("member mask"), std::string::npos) << err;
}

} // namespace
