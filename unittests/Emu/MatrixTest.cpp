//===- MatrixTest.cpp - mma.sync, ldmatrix and cp.async on the emulator ---===//
//
// Each instruction against results computed here from its definition in
// the PTX ISA: the fragments of mma.m16n8k16 are packed and unpacked on
// the host with the ISA's thread-to-element maps (written out below, not
// taken from the emulator), ldmatrix against the rows each lane must
// receive, cp.async against the copied bytes and its groups' completion
// order; and the errors: an .aligned instruction reached by part of a warp,
// and (racecheck) shared memory read before its cp.async completed.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cmath>
#include <cstdlib>

using namespace gptc::emu::test;

namespace {

uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16); // the tests' values are exact in bf16
}

float fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The PTX ISA's fragment maps for mma.m16n8k16 (.bf16/.f16, f32
// accumulators); groupID = lane >> 2, threadID_in_group = lane % 4.
// A (16 x 16, row): a_i, i < 8, in register i / 2 (i odd: high half):
//   row = groupID + 8 for i in {2, 3, 6, 7}, else groupID
//   col = 2 threadID_in_group + (i & 1) + 8 for i >= 4
// B (16 x 8, col): b_i, i < 4, in register i / 2:
//   row = 2 threadID_in_group + (i & 1) + 8 for i >= 2;  col = groupID
// C, D (16 x 8): c_i, i < 4:
//   row = groupID + 8 for i >= 2;  col = 2 threadID_in_group + (i & 1)
struct Tile {
  float a[16][16], b[16][8], c[16][8];
};

void packA(const Tile &t, unsigned lane, uint32_t regs[4]) {
  unsigned g = lane >> 2, q = lane & 3;
  for (unsigned i = 0; i < 8; ++i) {
    unsigned row = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
    unsigned col = 2 * q + (i & 1) + (i >= 4 ? 8 : 0);
    uint32_t h = toBf16(t.a[row][col]);
    regs[i / 2] |= (i & 1) ? h << 16 : h;
  }
}

void packB(const Tile &t, unsigned lane, uint32_t regs[2]) {
  unsigned g = lane >> 2, q = lane & 3;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned row = 2 * q + (i & 1) + (i >= 2 ? 8 : 0);
    uint32_t h = toBf16(t.b[row][g]);
    regs[i / 2] |= (i & 1) ? h << 16 : h;
  }
}

void accumulatorPosition(unsigned lane, unsigned i, unsigned &row,
                         unsigned &col) {
  row = (lane >> 2) + (i >= 2 ? 8 : 0);
  col = 2 * (lane & 3) + (i & 1);
}

// Each lane loads its 10 fragment registers (a0..a3, b0, b1, c0..c3) from
// in[lane * 12 ...] (48 bytes: 16-byte aligned), runs one mma and stores d0..d3
// to out[lane * 4 ...].
const char *kMma = R"(
.visible .entry mma(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 48;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd4];
  ld.global.v2.b32 {%r6, %r7}, [%rd4+16];
  ld.global.v2.f32 {%f0, %f1}, [%rd4+24];
  ld.global.v2.f32 {%f2, %f3}, [%rd4+32];
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f4, %f5, %f6, %f7}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f0, %f1, %f2, %f3};
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.f32 [%rd6], {%f4, %f5, %f6, %f7};
  ret;
}
)";

/// Runs kMma on `t` for one warp; d[row][col].
void runMma(const Tile &t, float d[16][8]) {
  PtxModule m(ptx(kMma));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::vector<uint32_t> in(32 * 12, 0);
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint32_t *r = &in[lane * 12];
    packA(t, lane, r);
    packB(t, lane, r + 4);
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row, col;
      accumulatorPosition(lane, i, row, col);
      r[6 + i] = bits(t.c[row][col]);
    }
  }
  DeviceBuffer<uint32_t> din(in);
  DeviceBuffer<float> dout(32 * 4);
  ASSERT_EQ(launch(m.function("mma"), 1, 32, {&din.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<float> out = dout.read();
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row, col;
      accumulatorPosition(lane, i, row, col);
      d[row][col] = out[lane * 4 + i];
    }
}

TEST(EmuMatrix, MmaIdentityPicksBPlusC) {
  // A = I: D = B's top 16 x 8 + C; a wrong A or B map moves elements.
  Tile t{};
  for (unsigned i = 0; i < 16; ++i)
    t.a[i][i] = 1;
  for (unsigned k = 0; k < 16; ++k)
    for (unsigned j = 0; j < 8; ++j) {
      t.b[k][j] = (float)(k * 8 + j);
      t.c[k][j] = 0.25f * (float)j;
    }
  float d[16][8];
  runMma(t, d);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 8; ++j)
      EXPECT_EQ(d[i][j], (float)(i * 8 + j) + 0.25f * (float)j)
          << "row " << i << " col " << j;
}

TEST(EmuMatrix, MmaIntegerTileExact) {
  // Small integers: every product and sum is exact, so D = A B + C
  // element by element whatever the order of the additions.
  Tile t{};
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned k = 0; k < 16; ++k)
      t.a[i][k] = (float)((int)i - (int)k);
  for (unsigned k = 0; k < 16; ++k)
    for (unsigned j = 0; j < 8; ++j)
      t.b[k][j] = (float)((int)k + 2 * (int)j - 7);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 8; ++j)
      t.c[i][j] = (float)i * 0.5f + (float)j;
  float d[16][8];
  runMma(t, d);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 8; ++j) {
      double want = t.c[i][j];
      for (unsigned k = 0; k < 16; ++k)
        want += (double)t.a[i][k] * t.b[k][j];
      EXPECT_EQ(d[i][j], (float)want) << "row " << i << " col " << j;
    }
}

TEST(EmuMatrix, MmaRoundsOnceToF32) {
  // The documented order: exact products, summed with the accumulator
  // exactly, rounded once. C = 1 and 16 products of 2^-24 give
  // 1 + 2^-20; adding them to 1 one by one in f32 would give 1.
  Tile t{};
  for (unsigned k = 0; k < 16; ++k) {
    t.a[0][k] = std::ldexp(1.0f, -12);
    t.b[k][0] = std::ldexp(1.0f, -12);
  }
  t.c[0][0] = 1;
  t.a[1][0] = fromBf16(toBf16(3.0f));
  t.b[0][1] = -2;
  float d[16][8];
  runMma(t, d);
  EXPECT_EQ(d[0][0], 1.0f + std::ldexp(1.0f, -20));
  EXPECT_EQ(d[1][1], -6.0f);
  EXPECT_EQ(d[1][0], 3 * std::ldexp(1.0f, -12));
  EXPECT_EQ(d[2][0], 0.0f);
}

// Four 8 x 8 matrices of b16 in shared memory, M_m[r][c] = 64 m + 8 r + c;
// lane 8 m + r gives the address of row r of matrix m. out[lane * 8 + k]:
// k < 4 the x4 load, k >= 4 the x4.trans load.
const char *kLdmatrix = R"(
.visible .entry ldm(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b16 %h<2>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tiles[512];
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, tiles;
  // Fill: lane t writes elements 8 t .. 8 t + 7 (one row) of the tiles.
  mov.u32 %r3, 0;
FILL:
  shl.b32 %r4, %r1, 3;
  add.u32 %r5, %r4, %r3;
  cvt.u16.u32 %h1, %r5;
  shl.b32 %r6, %r5, 1;
  add.u32 %r7, %r2, %r6;
  st.shared.b16 [%r7], %h1;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 8;
  @%p1 bra FILL;
  bar.sync 0;
  shl.b32 %r8, %r1, 4;
  add.u32 %r9, %r2, %r8;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r9];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r14, %r15, %r16, %r17}, [%r9];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.b32 [%rd3], {%r10, %r11, %r12, %r13};
  st.global.v4.b32 [%rd3+16], {%r14, %r15, %r16, %r17};
  ret;
}
)";

TEST(EmuMatrix, LdmatrixFragmentsAndTranspose) {
  PtxModule m(ptx(kLdmatrix));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(32 * 8);
  ASSERT_EQ(launch(m.function("ldm"), 1, 32, {&out.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = out.read();
  auto element = [](unsigned m, unsigned r, unsigned c) {
    return 64 * m + 8 * r + c;
  };
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned m = 0; m < 4; ++m) {
      unsigned r = lane / 4, c = 2 * (lane % 4);
      uint32_t plain = element(m, r, c) | element(m, r, c + 1) << 16;
      uint32_t trans = element(m, c, r) | element(m, c + 1, r) << 16;
      EXPECT_EQ(o[lane * 8 + m], plain) << "lane " << lane << " matrix " << m;
      EXPECT_EQ(o[lane * 8 + 4 + m], trans)
          << "lane " << lane << " matrix " << m << " .trans";
    }
}

// cp.async: each of 32 threads copies 16 bytes of `in` into shared memory
// in two groups (bytes 0-7 of its chunk in group 0, 8-15 in group 1: two
// 8-byte copies), waits for group 0 only (wait_group 1) and reads its
// whole chunk: the first half arrived, the second not yet (zeros here: a
// copy completes when waited for); after wait_all both have.
const char *kCpAsync = R"(
.visible .entry cpa(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  cp.async.ca.shared.global [%r4], [%rd4], 8;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+8], [%rd4+8], 8;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ld.shared.v4.b32 {%r5, %r6, %r7, %r8}, [%r4];
  cp.async.wait_all;
  ld.shared.v4.b32 {%r9, %r10, %r11, %r12}, [%r4];
  mul.wide.u32 %rd5, %r1, 32;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.b32 [%rd6], {%r5, %r6, %r7, %r8};
  st.global.v4.b32 [%rd6+16], {%r9, %r10, %r11, %r12};
  ret;
}
)";

TEST(EmuMatrix, CpAsyncGroupsCompleteWhenWaitedFor) {
  PtxModule m(ptx(kCpAsync));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::vector<uint32_t> in(32 * 4);
  for (unsigned i = 0; i < in.size(); ++i)
    in[i] = 1000 + i;
  DeviceBuffer<uint32_t> din(in);
  DeviceBuffer<uint32_t> dout(32 * 8);
  ASSERT_EQ(launch(m.function("cpa"), 1, 32, {&din.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<uint32_t> o = dout.read();
  for (unsigned t = 0; t < 32; ++t) {
    const uint32_t *r = &o[t * 8];
    EXPECT_EQ(r[0], in[4 * t]) << t;
    EXPECT_EQ(r[1], in[4 * t + 1]) << t;
    EXPECT_EQ(r[2], 0u) << t;
    EXPECT_EQ(r[3], 0u) << t;
    for (unsigned k = 0; k < 4; ++k)
      EXPECT_EQ(r[4 + k], in[4 * t + k]) << t;
  }
}

/// Runs `fn` with stderr captured; returns the CUresult and the text.
template <class F> std::pair<CUresult, std::string> captured(F fn) {
  testing::internal::CaptureStderr();
  CUresult r = fn();
  return {r, testing::internal::GetCapturedStderr()};
}

TEST(EmuMatrix, RacecheckSeesAReadBeforeTheWait) {
  // The same kernel reads its chunk before waiting for group 1.
  PtxModule m(ptx(kCpAsync));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> din(32 * 4);
  DeviceBuffer<uint32_t> dout(32 * 8);
  setenv("GPTC_EMU_RACECHECK", "1", 1);
  auto [r, err] = captured(
      [&] { return launch(m.function("cpa"), 1, 32, {&din.ptr, &dout.ptr}); });
  unsetenv("GPTC_EMU_RACECHECK");
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_NE(err.find("racecheck: shared-memory read of bytes a cp.async has "
                     "not completed"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("in kernel cpa"), std::string::npos) << err;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST(EmuMatrix, AlignedMmaInADivergedWarpIsAnError) {
  // Lanes 0-15 branch around the mma: the warp reaches it diverged.
  std::string body = kMma;
  body.insert(body.find("  mma.sync"),
              "  setp.lt.u32 %p1, %r1, 16;\n  @%p1 bra SKIP;\n");
  body.insert(body.find("  mul.wide.u32 %rd5"), "SKIP:\n");
  body.insert(body.find("  .reg .b32"), "  .reg .pred %p<2>;\n");
  PtxModule m(ptx(body));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> din(32 * 12);
  DeviceBuffer<float> dout(32 * 4);
  auto [r, err] = captured(
      [&] { return launch(m.function("mma"), 1, 32, {&din.ptr, &dout.ptr}); });
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_INSTRUCTION);
  EXPECT_NE(err.find("mma.sync.aligned needs every thread of the warp to "
                     "execute it together (diverged warp"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("in kernel mma"), std::string::npos) << err;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_INSTRUCTION);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST(EmuMatrix, AlignedLdmatrixInAPartialWarpIsAnError) {
  // A block of 16 threads: half a warp cannot execute ldmatrix.
  PtxModule m(ptx(kLdmatrix));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(32 * 8);
  auto [r, err] =
      captured([&] { return launch(m.function("ldm"), 1, 16, {&out.ptr}); });
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_INSTRUCTION);
  EXPECT_NE(err.find("ldmatrix.sync.aligned needs every thread of the warp "
                     "to execute it together (partial warp"),
            std::string::npos)
      << err;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_INSTRUCTION);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

} // namespace
