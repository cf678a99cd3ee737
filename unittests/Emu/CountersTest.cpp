//===- CountersTest.cpp - What the memory system sees of a warp -----------===//
//
// The counters a profiler reads, on hand-written PTX with known answers:
// global requests and the 32-byte sectors they touch (coalesced, strided,
// a 2-byte column walk with its partial-sector stores), shared-memory
// wavefronts (a 32-way bank conflict and its padded fix, 8- and 16-byte
// accesses in half- and quarter-warp phases, ldmatrix), a divergent branch,
// instruction classes (a 64-bit division, f32, the tensor cores) and a
// value kept in memory across a loop's iterations.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"
#include "emu/gptc_emu.h"

using namespace gptc::emu::test;

namespace {

/// Tests allocate before their first module loads: the device first.
/// Launches are profiled (global requests and sectors are counted).
class EmuWarpCounters : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("GPTC_EMU_PROFILE", "1", 1);
    initDevice();
  }
  void TearDown() override { unsetenv("GPTC_EMU_PROFILE"); }
};

/// One warp of 32 threads: lane t accesses `base + t * stride` with an
/// access of the kernel's width; returns the launch's counters.
gptcEmuLaunchCounters runOneWarp(const std::string &body, const char *name,
                                 CUdeviceptr buffer, uint64_t stride) {
  PtxModule m(ptx(body));
  EXPECT_EQ(m.result, CUDA_SUCCESS);
  gptcEmuLaunchCounters c{};
  if (m.result != CUDA_SUCCESS)
    return c;
  EXPECT_EQ(launch(m.function(name), 1, 32, {&buffer, &stride}), CUDA_SUCCESS);
  EXPECT_EQ(gptcEmuGetLaunchCounters(&c), 0);
  return c;
}

/// ld.global.TYPE at base + tid * stride, then st.global of it at the same
/// address.
std::string strided(const char *type) {
  return std::string(R"(
.visible .entry strided(.param .u64 pbase, .param .u64 pstride)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pbase];
  ld.param.u64 %rd2, [pstride];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  mul.lo.u64 %rd4, %rd3, %rd2;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.)") +
         type + " " + (type[1] == '1' ? "%h1" : "%r2") +
         R"(, [%rd5];
  st.global.)" +
         type + " [%rd5], " + (type[1] == '1' ? "%h1" : "%r2") +
         R"(;
  ret;
}
)";
}

TEST_F(EmuWarpCounters, CoalescedFourByteLoadIsFourSectors) {
  DeviceBuffer<uint32_t> buf(32);
  gptcEmuLaunchCounters c = runOneWarp(strided("u32"), "strided", buf.ptr, 4);
  EXPECT_EQ(c.globalLoadRequests, 1u);
  EXPECT_EQ(c.globalLoadSectors, 4u);
  EXPECT_EQ(c.globalStoreRequests, 1u);
  EXPECT_EQ(c.globalStoreSectors, 4u);
  EXPECT_EQ(c.partialStoreSectors, 0u);
}

TEST_F(EmuWarpCounters, StrideOf128BytesIsASectorPerLane) {
  DeviceBuffer<uint32_t> buf(32 * 32);
  gptcEmuLaunchCounters c = runOneWarp(strided("u32"), "strided", buf.ptr, 128);
  EXPECT_EQ(c.globalLoadRequests, 1u);
  EXPECT_EQ(c.globalLoadSectors, 32u);
  EXPECT_EQ(c.globalStoreSectors, 32u);
  // Each lane writes 4 of its sector's 32 bytes.
  EXPECT_EQ(c.partialStoreSectors, 32u);
}

TEST_F(EmuWarpCounters, TwoByteColumnOfRowsIsPartialSectorStores) {
  // Lane t walks row t of a [32, 1000] bf16 matrix (one thread per row):
  // the lanes are 2,000 bytes apart, every 2-byte access its own sector.
  DeviceBuffer<uint16_t> buf(32 * 1000);
  gptcEmuLaunchCounters c =
      runOneWarp(strided("u16"), "strided", buf.ptr, 2000);
  EXPECT_EQ(c.globalLoadSectors, 32u);
  EXPECT_EQ(c.globalStoreSectors, 32u);
  EXPECT_EQ(c.partialStoreSectors, 32u);
  // The same bytes along a row (lane t at 2t): 64 bytes, two full sectors.
  gptcEmuLaunchCounters row = runOneWarp(strided("u16"), "strided", buf.ptr, 2);
  EXPECT_EQ(row.globalLoadSectors, 2u);
  EXPECT_EQ(row.partialStoreSectors, 0u);
}

TEST_F(EmuWarpCounters, BroadcastAndMisalignedStart) {
  DeviceBuffer<uint32_t> buf(64);
  // Every lane loads one word: one sector, a partial store.
  gptcEmuLaunchCounters one = runOneWarp(strided("u32"), "strided", buf.ptr, 0);
  EXPECT_EQ(one.globalLoadSectors, 1u);
  EXPECT_EQ(one.partialStoreSectors, 1u);
  // 128 bytes starting 4 bytes into a sector: 5 sectors, 2 of them partial.
  gptcEmuLaunchCounters off =
      runOneWarp(strided("u32"), "strided", buf.ptr + 4, 4);
  EXPECT_EQ(off.globalLoadSectors, 5u);
  EXPECT_EQ(off.partialStoreSectors, 2u);
}

/// st.shared.TYPE at tid * stride into a 4,224-byte tile (32 rows of 132).
std::string sharedStrided(const char *type, const char *value) {
  return std::string(R"(
.shared .align 16 .b8 tile[8448];
.visible .entry shared(.param .u64 pbase, .param .u64 pstride)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd2, [pstride];
  cvt.u32.u64 %r3, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mad.lo.u32 %r4, %r1, %r3, %r2;
  mov.u32 %r5, 7;
  mov.u32 %r6, 8;
  mov.u32 %r7, 9;
  st.shared.)") +
         type + " [%r4], " + value + R"(;
  ret;
}
)";
}

TEST_F(EmuWarpCounters, BankConflictAndItsPaddedFix) {
  DeviceBuffer<uint32_t> unused(1);
  // A column of a [32, 32] f32 tile: every lane in bank 0, 32 wavefronts.
  gptcEmuLaunchCounters column =
      runOneWarp(sharedStrided("u32", "%r5"), "shared", unused.ptr, 128);
  EXPECT_EQ(column.sharedRequests, 1u);
  EXPECT_EQ(column.sharedWavefronts, 32u);
  EXPECT_EQ(column.sharedBankConflicts, 31u);
  // Rows padded to 33 words: lane t in bank t, one wavefront.
  gptcEmuLaunchCounters padded =
      runOneWarp(sharedStrided("u32", "%r5"), "shared", unused.ptr, 132);
  EXPECT_EQ(padded.sharedWavefronts, 1u);
  EXPECT_EQ(padded.sharedBankConflicts, 0u);
  // A 2-way conflict: lanes t and t + 16 share a bank (stride 8 bytes).
  gptcEmuLaunchCounters twoWay =
      runOneWarp(sharedStrided("u32", "%r5"), "shared", unused.ptr, 8);
  EXPECT_EQ(twoWay.sharedWavefronts, 2u);
}

TEST_F(EmuWarpCounters, WideSharedAccessesRunInPhases) {
  DeviceBuffer<uint32_t> unused(1);
  // 16 bytes a lane, consecutive: four quarter-warp phases, no conflict.
  gptcEmuLaunchCounters v4 =
      runOneWarp(sharedStrided("v4.u32", "{%r5, %r6, %r7, %r5}"), "shared",
                 unused.ptr, 16);
  EXPECT_EQ(v4.sharedWavefronts, 4u);
  EXPECT_EQ(v4.sharedBankConflicts, 0u);
  // 16 bytes a lane, 256 bytes apart: the 8 lanes of a phase all in banks
  // 0-3, 8 wavefronts a phase.
  gptcEmuLaunchCounters spread =
      runOneWarp(sharedStrided("v4.u32", "{%r5, %r6, %r7, %r5}"), "shared",
                 unused.ptr, 256);
  EXPECT_EQ(spread.sharedWavefronts, 32u);
  // 8 bytes a lane, consecutive: two half-warp phases.
  gptcEmuLaunchCounters v2 = runOneWarp(sharedStrided("v2.u32", "{%r5, %r6}"),
                                        "shared", unused.ptr, 8);
  EXPECT_EQ(v2.sharedWavefronts, 2u);
}

const char *kDivergent = R"(
.visible .entry divergent(.param .u64 pbase, .param .u64 pstride)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra DONE;
  cvt.rn.f32.u32 %f1, %r1;
  mul.f32 %f2, %f1, %f1;
  add.f32 %f3, %f2, %f1;
DONE:
  ret;
}
)";

TEST_F(EmuWarpCounters, DivergentBranchRunsPartWarps) {
  DeviceBuffer<uint32_t> unused(1);
  gptcEmuLaunchCounters c = runOneWarp(kDivergent, "divergent", unused.ptr, 0);
  EXPECT_EQ(c.divergentBranches, 1u);
  // mov, setp with 32 lanes; the bra with the 8 whose guard holds; cvt,
  // mul, add with the other 24; ret with 32.
  EXPECT_EQ(c.warpInstructions, 7u);
  EXPECT_EQ(c.threadInstructions, 3u * 32 + 8 + 3 * 24);
  EXPECT_EQ(c.classInstructions[GPTC_EMU_FP32], 2u);
  EXPECT_EQ(c.classInstructions[GPTC_EMU_CONVERT], 1u);
  EXPECT_EQ(c.classInstructions[GPTC_EMU_BRANCH], 2u);
  EXPECT_STREQ(gptcEmuInstrClassName(GPTC_EMU_DIV64), "div64");
}

// Lane t sums row t of a [32, n] u32 matrix (after out) into out[t], keeping
// the sum in memory (a load and a store of out[t] every iteration), and divides
// by a run-time 64-bit extent once per iteration.
const char *kAccumulator = R"(
.visible .entry accumulate(.param .u64 pbase, .param .u64 pn)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pbase];
  ld.param.u64 %rd2, [pn];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  shl.b64 %rd4, %rd3, 2;
  add.s64 %rd5, %rd1, %rd4;
  mul.lo.u64 %rd6, %rd3, %rd2;
  mov.u64 %rd7, 0;
LOOP:
  add.s64 %rd8, %rd6, %rd7;
  div.u64 %rd9, %rd8, %rd2;
  shl.b64 %rd10, %rd8, 2;
  add.s64 %rd11, %rd1, %rd10;
  ld.global.u32 %r2, [%rd11+128];
  ld.global.u32 %r3, [%rd5];
  add.u32 %r4, %r3, %r2;
  st.global.u32 [%rd5], %r4;
  add.s64 %rd7, %rd7, 1;
  setp.lt.u64 %p1, %rd7, %rd2;
  @%p1 bra LOOP;
  ret;
}
)";

TEST_F(EmuWarpCounters, AccumulatorInMemoryAndDivisionInALoop) {
  const uint64_t n = 8;
  DeviceBuffer<uint32_t> buf(std::vector<uint32_t>(32 + 32 * n, 1));
  gptcEmuLaunchCounters c = runOneWarp(kAccumulator, "accumulate", buf.ptr, n);
  EXPECT_EQ(c.accumulatorRoundTrips, n);
  EXPECT_EQ(c.classInstructions[GPTC_EMU_DIV64], n);
  // The row walk: lanes n * 4 = 32 bytes apart, 32 sectors a request; the
  // accumulator: 4 sectors.
  EXPECT_EQ(c.globalLoadRequests, 2 * n);
  EXPECT_EQ(c.globalLoadSectors, n * (32 + 4));
  std::vector<uint32_t> out = buf.read();
  EXPECT_EQ(out[0], 1 + n);
}

const char *kLdmatrix = R"(
.shared .align 16 .b8 tile[4096];
.visible .entry ldm(.param .u64 pbase, .param .u64 pstride)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd2, [pstride];
  cvt.u32.u64 %r3, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mad.lo.u32 %r4, %r1, %r3, %r2;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [%r4];
  ret;
}
)";

TEST_F(EmuWarpCounters, LdmatrixRowsPerPhase) {
  DeviceBuffer<uint32_t> unused(1);
  // Rows of 16 bytes back to back: four matrices, four wavefronts.
  gptcEmuLaunchCounters packed = runOneWarp(kLdmatrix, "ldm", unused.ptr, 16);
  EXPECT_EQ(packed.sharedRequests, 1u);
  EXPECT_EQ(packed.sharedWavefronts, 4u);
  EXPECT_EQ(packed.classInstructions[GPTC_EMU_SHARED], 1u);
  // Rows 128 bytes apart (an unpadded 64-column bf16 tile): the 8 rows of
  // a matrix all in banks 0-3, 8 wavefronts each.
  gptcEmuLaunchCounters rows = runOneWarp(kLdmatrix, "ldm", unused.ptr, 128);
  EXPECT_EQ(rows.sharedWavefronts, 32u);
}

} // namespace
