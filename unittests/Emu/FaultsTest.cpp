//===- FaultsTest.cpp - Faults are caught, reported and returned ----------===//
//
// What a GPU with compute-sanitizer reports, the emulator reports as a
// non-success CUresult and one line on stderr naming the kernel, the PTX
// line, the block, the thread and the address: out-of-bounds and
// misaligned accesses, shared-memory races without a barrier
// (GPTC_EMU_RACECHECK=1), launches over the device limits, and modules it
// cannot load (an unknown opcode, malformed PTX).
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <cstdlib>

using namespace gptc::emu::test;

namespace {

/// Stores one u32 per thread at out[tid + offset] (bytes: 4*tid + skew).
const char *kStore = R"(
.visible .entry store(.param .u64 pout, .param .u64 skew)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [skew];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r1;
  ret;
}
.visible .entry load(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.global.u32 %r1, [%rd1+2];
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

/// Runs `fn` with stderr captured; returns the CUresult and the text.
template <class F> std::pair<CUresult, std::string> captured(F fn) {
  testing::internal::CaptureStderr();
  CUresult r = fn();
  return {r, testing::internal::GetCapturedStderr()};
}

/// The report is one line with the kernel, PTX line, block, thread.
void expectOneLineReport(const std::string &err, const char *what,
                         const char *kernel) {
  EXPECT_NE(err.find(what), std::string::npos) << err;
  EXPECT_NE(err.find(std::string("in kernel ") + kernel), std::string::npos)
      << err;
  EXPECT_NE(err.find("at PTX line "), std::string::npos) << err;
  EXPECT_NE(err.find("block ("), std::string::npos) << err;
  EXPECT_NE(err.find("thread ("), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

TEST(EmuFaults, OutOfBoundsStore) {
  PtxModule m(ptx(kStore));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(100);
  uint64_t skew = 0;
  // 128 threads write 128 words into a 100-word buffer.
  auto [r, err] = captured(
      [&] { return launch(m.function("store"), 1, 128, {&out.ptr, &skew}); });
  EXPECT_EQ(r, CUDA_ERROR_ILLEGAL_ADDRESS);
  expectOneLineReport(err, "out-of-bounds global store of 4 bytes", "store");
  EXPECT_NE(err.find("PTX line 15,"), std::string::npos) << err;
  EXPECT_NE(err.find("address 0x"), std::string::npos) << err;
  // The error is also returned by the next synchronisation, then cleared.
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  // In bounds, the same kernel runs.
  EXPECT_EQ(launch(m.function("store"), 1, 100, {&out.ptr, &skew}),
            CUDA_SUCCESS);
  EXPECT_EQ(out.read()[99], 99u);
}

// A warp is checked as a whole first; when one lane's access is bad, the
// lanes are checked one by one and the report names that lane: here lane
// 17 of the second warp stores 4 bytes past the buffer's end, or 2 bytes
// off its word.
TEST(EmuFaults, OneBadLaneOfAWarpIsTheOneReported) {
  PtxModule m(ptx(R"(
.visible .entry oneBad(.param .u64 pout, .param .u64 pbad)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pbad];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  setp.eq.u32 %p1, %r1, 49;
  @%p1 add.s64 %rd4, %rd4, %rd2;
  st.global.u32 [%rd4], %r1;
  ret;
}
)"));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(64);
  for (auto [bad, what] :
       {std::pair<uint64_t, const char *>{4 * (64 - 49), "out-of-bounds"},
        {2, "misaligned"}}) {
    uint64_t skew = bad;
    auto [r, err] = captured(
        [&] { return launch(m.function("oneBad"), 1, 64, {&out.ptr, &skew}); });
    EXPECT_EQ(r, skew == 2 ? CUDA_ERROR_MISALIGNED_ADDRESS
                           : CUDA_ERROR_ILLEGAL_ADDRESS);
    expectOneLineReport(err, what, "oneBad");
    EXPECT_NE(err.find("thread (49,0,0)"), std::string::npos) << err;
    char addr[40];
    std::snprintf(addr, sizeof addr, "address 0x%llx",
                  (unsigned long long)(out.ptr + 4 * 49 + skew));
    EXPECT_NE(err.find(addr), std::string::npos) << err;
    cuCtxSynchronize();
  }
  // The first warp's lanes all stored; so did the second warp's lanes
  // before lane 49.
  std::vector<uint32_t> o = out.read();
  for (unsigned t = 0; t < 49; ++t)
    EXPECT_EQ(o[t], t) << "thread " << t;
}

TEST(EmuFaults, MisalignedLoad) {
  PtxModule m(ptx(kStore));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> in(4), out(1);
  auto [r, err] = captured(
      [&] { return launch(m.function("load"), 1, 1, {&in.ptr, &out.ptr}); });
  EXPECT_EQ(r, CUDA_ERROR_MISALIGNED_ADDRESS);
  expectOneLineReport(err, "misaligned global load of 4 bytes", "load");
  char addr[40];
  std::snprintf(addr, sizeof addr, "address 0x%llx",
                (unsigned long long)(in.ptr + 2));
  EXPECT_NE(err.find(addr), std::string::npos) << err;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_MISALIGNED_ADDRESS);
}

TEST(EmuFaults, HostCannotDereferenceDeviceMemory) {
  initDevice();
  CUdeviceptr p;
  ASSERT_EQ(cuMemAlloc(&p, 64), CUDA_SUCCESS);
  EXPECT_DEATH(*reinterpret_cast<volatile int *>(p) = 1, "");
  ASSERT_EQ(cuMemFree(p), CUDA_SUCCESS);
  // A freed range is not served any more.
  int x = 0;
  EXPECT_EQ(cuMemcpyHtoD(p, &x, 4), CUDA_ERROR_INVALID_VALUE);
}

// Warps 0 and 1 exchange values through shared memory without a barrier:
// warp 1 overwrites what warp 0 has read.
const char *kRace = R"(
.shared .align 4 .b8 buf[512];
.visible .entry race(.param .u64 pout)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  xor.b32 %r5, %r2, 128;
  add.s32 %r6, %r3, %r5;
  ld.shared.u32 %r7, [%r6];
  st.global.u32 [%rd1], %r7;
  ret;
}
)";

TEST(EmuFaults, MissingBarrierUnderRacecheck) {
  PtxModule m(ptx(kRace));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(1);
  // Without racecheck the launch runs (the result is what it is).
  EXPECT_EQ(launch(m.function("race"), 1, 64, {&out.ptr}), CUDA_SUCCESS);
  setenv("GPTC_EMU_RACECHECK", "1", 1);
  auto [r, err] =
      captured([&] { return launch(m.function("race"), 1, 64, {&out.ptr}); });
  unsetenv("GPTC_EMU_RACECHECK");
  EXPECT_EQ(r, CUDA_ERROR_LAUNCH_FAILED);
  expectOneLineReport(err, "racecheck: shared-memory write-after-read hazard",
                      "race");
  cuCtxSynchronize();
}

TEST(EmuFaults, LaunchOverTheDeviceLimits) {
  PtxModule m(ptx(kStore));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(1);
  uint64_t skew = 0;
  void *args[] = {&out.ptr, &skew};
  CUfunction f = m.function("store");
  auto [r, err] = captured([&] {
    return cuLaunchKernel(f, 1, 65536, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  });
  EXPECT_EQ(r, CUDA_ERROR_INVALID_VALUE);
  EXPECT_NE(err.find("grid (1,65536,1) exceeds the device limits"),
            std::string::npos)
      << err;
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  // Dynamic shared memory over 48 KB needs the opt-in attribute.
  EXPECT_EQ(
      cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, nullptr, args, nullptr),
      CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetAttribute(
                f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024),
            CUDA_SUCCESS);
  EXPECT_EQ(
      cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, nullptr, args, nullptr),
      CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetAttribute(
                f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024),
            CUDA_ERROR_INVALID_VALUE);
}

TEST(EmuFaults, MaxntidIsEnforced) {
  PtxModule m(ptx(R"(
.visible .entry small() .maxntid 64, 1, 1
{
  ret;
}
)"));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  CUfunction f = m.function("small");
  EXPECT_EQ(launch(f, 1, 64, {}), CUDA_SUCCESS);
  auto [r, err] = captured([&] { return launch(f, 1, 65, {}); });
  EXPECT_EQ(r, CUDA_ERROR_INVALID_VALUE);
  EXPECT_NE(err.find(".maxntid"), std::string::npos) << err;
}

TEST(EmuFaults, UnknownOpcodeStopsTheLoad) {
  initDevice();
  CUmodule mod = nullptr;
  std::string text = ptx(R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 1;
  frobnicate.b32 %r2, %r1;
  ret;
}
)");
  auto [r, err] =
      captured([&] { return cuModuleLoadData(&mod, text.c_str()); });
  EXPECT_EQ(r, CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(err, "gptc-emu: cuModuleLoadData: PTX line 9: 'frobnicate.b32' in "
                 "function 'k': opcode 'frobnicate' is not implemented by the "
                 "emulator\n");
}

TEST(EmuFaults, MalformedPtxStopsTheLoad) {
  initDevice();
  CUmodule mod = nullptr;
  std::string text = ptx(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>;
  mov.u32 %r1, ;
  ret;
}
)");
  auto [r, err] =
      captured([&] { return cuModuleLoadData(&mod, text.c_str()); });
  EXPECT_EQ(r, CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(err.find("PTX line 8: unexpected operand ';'"), std::string::npos)
      << err;
  // Truncated text and an unknown register, too.
  std::string cut = text.substr(0, text.size() / 2);
  EXPECT_EQ(cuModuleLoadData(&mod, cut.c_str()), CUDA_ERROR_INVALID_PTX);
  std::string reg =
      ptx(".visible .entry k()\n{\n  mov.u32 %q1, 0;\n  ret;\n}\n");
  EXPECT_EQ(cuModuleLoadData(&mod, reg.c_str()), CUDA_ERROR_INVALID_PTX);
}

} // namespace
