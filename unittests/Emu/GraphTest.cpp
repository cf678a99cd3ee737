//===- GraphTest.cpp - Stream capture and CUDA graphs on the device -------===//

#include "EmuTestUtil.h"

using namespace gptc::emu::test;

namespace {

// out[tid] += 1.
const char *kIncrement = R"(
.visible .entry increment(.param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s32 %r3, %r2, 1;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

struct Stream {
  CUstream s = nullptr;
  Stream() { EXPECT_EQ(cuStreamCreate(&s, CU_STREAM_DEFAULT), CUDA_SUCCESS); }
  ~Stream() { cuStreamDestroy(s); }
};

TEST(EmuGraph, CapturedWorkRunsAtEachLaunchNotBefore) {
  PtxModule m(ptx(kIncrement));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  CUfunction f = m.function("increment");
  DeviceBuffer<uint32_t> out(std::vector<uint32_t>(64, 5));
  Stream stream;
  ASSERT_EQ(cuStreamBeginCapture(stream.s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            CUDA_SUCCESS);
  CUstreamCaptureStatus status;
  ASSERT_EQ(cuStreamIsCapturing(stream.s, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  // Zero, then increment twice: recorded in this order.
  ASSERT_EQ(cuMemsetD32Async(out.ptr, 0, 64, stream.s), CUDA_SUCCESS);
  void *args[] = {&out.ptr};
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, stream.s, args, nullptr),
              CUDA_SUCCESS);
  CUgraph graph = nullptr;
  ASSERT_EQ(cuStreamEndCapture(stream.s, &graph), CUDA_SUCCESS);
  // Nothing ran during the capture.
  EXPECT_EQ(out.read(), std::vector<uint32_t>(64, 5));
  CUgraphExec exec = nullptr;
  ASSERT_EQ(cuGraphInstantiate(&exec, graph, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(graph), CUDA_SUCCESS);
  for (int launch = 0; launch < 3; ++launch) {
    ASSERT_EQ(cuGraphLaunch(exec, stream.s), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(stream.s), CUDA_SUCCESS);
    EXPECT_EQ(out.read(), std::vector<uint32_t>(64, 2)) << launch;
  }
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

TEST(EmuGraph, WaitingInsideACaptureBreaksIt) {
  PtxModule m(ptx(kIncrement));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> out(64);
  Stream stream;
  ASSERT_EQ(cuStreamBeginCapture(stream.s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(stream.s),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUstreamCaptureStatus status;
  ASSERT_EQ(cuStreamIsCapturing(stream.s, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  CUgraph graph = reinterpret_cast<CUgraph>(1);
  EXPECT_EQ(cuStreamEndCapture(stream.s, &graph),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(graph, nullptr);
  // The stream works as before afterwards.
  EXPECT_EQ(cuStreamSynchronize(stream.s), CUDA_SUCCESS);
}

struct Event {
  CUevent e = nullptr;
  Event() {
    EXPECT_EQ(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  }
  ~Event() { cuEventDestroy(e); }
};

// A side stream forked from the capture (it waits on an event recorded in
// it) is drawn into the graph, and joined back (the origin waits on an
// event recorded after its work): its work replays with the origin's.
TEST(EmuGraph, AForkedStreamJoinsTheCapture) {
  PtxModule m(ptx(kIncrement));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  CUfunction f = m.function("increment");
  DeviceBuffer<uint32_t> out(std::vector<uint32_t>(32, 0));
  Stream origin, side;
  Event forked, done;
  void *args[] = {&out.ptr};
  ASSERT_EQ(cuStreamBeginCapture(origin.s, CU_STREAM_CAPTURE_MODE_RELAXED),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, origin.s, args, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(forked.e, origin.s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(side.s, forked.e, 0), CUDA_SUCCESS);
  CUstreamCaptureStatus status;
  ASSERT_EQ(cuStreamIsCapturing(side.s, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  // Ending the capture on the side stream is not allowed: not its origin.
  CUgraph graph = nullptr;
  EXPECT_EQ(cuStreamEndCapture(side.s, &graph),
            CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, side.s, args, nullptr),
              CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(done.e, side.s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(origin.s, done.e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamEndCapture(origin.s, &graph), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamIsCapturing(side.s, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(out.read(), std::vector<uint32_t>(32, 0)); // nothing ran yet
  CUgraphExec exec = nullptr;
  ASSERT_EQ(cuGraphInstantiate(&exec, graph, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(graph), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(exec, origin.s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(origin.s), CUDA_SUCCESS);
  EXPECT_EQ(out.read(), std::vector<uint32_t>(32, 3));
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

// A fork whose last work the origin never waited for cannot end the
// capture, as on a GPU; nor may a stream of one capture wait on another's.
TEST(EmuGraph, AnUnjoinedForkBreaksTheCapture) {
  PtxModule m(ptx(kIncrement));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  CUfunction f = m.function("increment");
  DeviceBuffer<uint32_t> out(std::vector<uint32_t>(32, 0));
  Stream origin, side, other;
  Event forked, early, foreign;
  void *args[] = {&out.ptr};
  ASSERT_EQ(cuStreamBeginCapture(origin.s, CU_STREAM_CAPTURE_MODE_RELAXED),
            CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(forked.e, origin.s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(side.s, forked.e, 0), CUDA_SUCCESS);
  // The origin waits for the side stream before its work, not after.
  ASSERT_EQ(cuEventRecord(early.e, side.s), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, side.s, args, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(origin.s, early.e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture(other.s, CU_STREAM_CAPTURE_MODE_RELAXED),
            CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(foreign.e, other.s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamWaitEvent(origin.s, foreign.e, 0),
            CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  CUgraph graph = reinterpret_cast<CUgraph>(1);
  EXPECT_EQ(cuStreamEndCapture(origin.s, &graph),
            CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
  EXPECT_EQ(graph, nullptr);
  ASSERT_EQ(cuStreamEndCapture(other.s, &graph), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(graph), CUDA_SUCCESS);
  EXPECT_EQ(out.read(), std::vector<uint32_t>(32, 0)); // nothing ran
}

TEST(EmuGraph, TheDefaultStreamIsNotCaptured) {
  initDevice();
  EXPECT_EQ(cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

} // namespace
