//===- DriverGraph.cpp - Stream capture and CUDA graphs -------------------===//
//
// cuStreamBeginCapture .. cuStreamEndCapture record what is enqueued on
// the stream (kernel launches, async copies and memsets, and through
// gptcEmuStreamRecord the emulated cuBLASLt's matmuls) instead of running
// it; cuGraphInstantiate and cuGraphLaunch replay the recording in stream
// order. As on a GPU, synchronising a capturing stream (or the context
// while one captures) is an error that invalidates the capture, so a step
// that waits for the device inside itself cannot be captured.
//
//===----------------------------------------------------------------------===//

#include "emu/DriverState.h"
#include "emu/gptc_emu.h"

#include <mutex>
#include <set>

using namespace gptc::emu;

namespace {

std::mutex captureMutex;
std::set<CUstream> &capturingStreams() {
  static std::set<CUstream> streams;
  return streams;
}

} // namespace

namespace gptc::emu {

bool recordOnCapture(CUstream stream, CapturedWork work) {
  if (!stream || !stream->capturing)
    return false;
  stream->captured.push_back(std::move(work));
  return true;
}

bool anyStreamCapturing() {
  std::lock_guard<std::mutex> lock(captureMutex);
  return !capturingStreams().empty();
}

} // namespace gptc::emu

#define REQUIRE_INIT()                                                         \
  if (!driverInitialized())                                                    \
    return CUDA_ERROR_NOT_INITIALIZED;

extern "C" {

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  REQUIRE_INIT();
  // The legacy default stream cannot be captured.
  if (!stream)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (stream->capturing)
    return CUDA_ERROR_ILLEGAL_STATE;
  traceCall("cuStreamBeginCapture");
  stream->capturing = true;
  stream->captured.clear();
  stream->captureError = CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(captureMutex);
  capturingStreams().insert(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  REQUIRE_INIT();
  if (!stream || !graph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!stream->capturing)
    return CUDA_ERROR_ILLEGAL_STATE;
  traceCall("cuStreamEndCapture", stream->captured.size());
  stream->capturing = false;
  {
    std::lock_guard<std::mutex> lock(captureMutex);
    capturingStreams().erase(stream);
  }
  *graph = nullptr;
  if (stream->captureError != CUDA_SUCCESS) {
    stream->captured.clear();
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = new CUgraph_st{std::move(stream->captured)};
  stream->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  REQUIRE_INIT();
  if (!status)
    return CUDA_ERROR_INVALID_VALUE;
  *status = !stream || !stream->capturing ? CU_STREAM_CAPTURE_STATUS_NONE
            : stream->captureError != CUDA_SUCCESS
                ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph graph,
                            unsigned long long) {
  REQUIRE_INIT();
  if (!exec || !graph)
    return CUDA_ERROR_INVALID_VALUE;
  traceCall("cuGraphInstantiate", graph->nodes.size());
  *exec = new CUgraphExec_st{graph->nodes};
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  REQUIRE_INIT();
  if (!exec)
    return CUDA_ERROR_INVALID_VALUE;
  if (stream && stream->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  traceCall("cuGraphLaunch", exec->nodes.size());
  // Work runs when submitted: the nodes now, in stream order; the first
  // failure ends the replay (it is also kept for the next
  // synchronisation, as a launch's is).
  for (CapturedWork &node : exec->nodes)
    if (CUresult r = node(); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  REQUIRE_INIT();
  delete exec;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  REQUIRE_INIT();
  delete graph;
  return CUDA_SUCCESS;
}

int gptcEmuStreamRecord(CUstream stream, int (*run)(void *), void *context,
                        void (*release)(void *)) {
  if (!stream || !stream->capturing)
    return 0;
  std::shared_ptr<void> owned(context, release);
  recordOnCapture(stream, [run, owned]() {
    return run(owned.get()) == 0 ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
  });
  return 1;
}

} // extern "C"
