//===- DriverGraph.cpp - Stream capture and CUDA graphs -------------------===//
//
// cuStreamBeginCapture .. cuStreamEndCapture record what is enqueued on
// the stream (kernel launches, async copies and memsets, and through
// gptcEmuStreamRecord the emulated cuBLASLt's matmuls and NCCL's
// collectives) instead of running it; cuGraphInstantiate and cuGraphLaunch
// replay the recording. A stream that waits on an event recorded in the
// capture joins it (a fork, as a communication stream does), and the
// capture ends only when the origin has waited for each such stream's
// last work (CUDA_ERROR_STREAM_CAPTURE_UNJOINED otherwise). Replay runs
// the nodes in the order they were submitted, one order the graph's edges
// allow. As on a GPU, synchronising a capturing stream (or the context
// while one captures) is an error that invalidates the capture, so a step
// that waits for the device inside itself cannot be captured.
//
//===----------------------------------------------------------------------===//

#include "emu/DriverState.h"
#include "emu/gptc_emu.h"

#include <algorithm>
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
  if (!stream || !stream->capture)
    return false;
  stream->capture->nodes.push_back(std::move(work));
  ++stream->capture->submitted[stream];
  return true;
}

bool anyStreamCapturing() {
  std::lock_guard<std::mutex> lock(captureMutex);
  return !capturingStreams().empty();
}

void noteEventRecord(CUevent event, CUstream stream) {
  event->capture.reset();
  event->seen.clear();
  if (!stream || !stream->capture)
    return;
  StreamCapture &c = *stream->capture;
  event->capture = stream->capture;
  event->seen = c.seen[stream];
  event->seen[stream] = c.submitted[stream];
}

CUresult joinCaptureOnWait(CUstream stream, CUevent event) {
  if (!event->capture || !event->capture->active)
    return CUDA_SUCCESS; // an event of no live capture: nothing to join
  if (!stream)
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  if (stream->capture && stream->capture != event->capture)
    return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
  stream->capture = event->capture;
  StreamCapture &c = *stream->capture;
  c.submitted.emplace(stream, 0);
  std::map<CUstream, uint64_t> &mine = c.seen[stream];
  for (const auto &[other, count] : event->seen)
    mine[other] = std::max(mine[other], count);
  return CUDA_SUCCESS;
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
  if (stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  traceCall("cuStreamBeginCapture");
  stream->capture = std::make_shared<StreamCapture>();
  stream->capture->origin = stream;
  stream->capture->submitted[stream] = 0;
  std::lock_guard<std::mutex> lock(captureMutex);
  capturingStreams().insert(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  REQUIRE_INIT();
  if (!stream || !graph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  std::shared_ptr<StreamCapture> capture = stream->capture;
  if (capture->origin != stream)
    return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  traceCall("cuStreamEndCapture", capture->nodes.size());
  // Every fork joined: the origin has waited for each member's last work.
  std::map<CUstream, uint64_t> &joined = capture->seen[stream];
  bool unjoined = false;
  for (const auto &[member, count] : capture->submitted)
    unjoined |= member != stream && count > joined[member];
  for (const auto &[member, count] : capture->submitted)
    member->capture.reset();
  capture->active = false;
  {
    std::lock_guard<std::mutex> lock(captureMutex);
    capturingStreams().erase(stream);
  }
  *graph = nullptr;
  if (capture->error != CUDA_SUCCESS)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (unjoined)
    return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
  *graph = new CUgraph_st{std::move(capture->nodes)};
  return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  REQUIRE_INIT();
  if (!status)
    return CUDA_ERROR_INVALID_VALUE;
  *status = !stream || !stream->capture ? CU_STREAM_CAPTURE_STATUS_NONE
            : stream->capture->error != CUDA_SUCCESS
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
  if (stream && stream->capture)
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
  if (!stream || !stream->capture)
    return 0;
  std::shared_ptr<void> owned(context, release);
  recordOnCapture(stream, [run, owned]() {
    return run(owned.get()) == 0 ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
  });
  return 1;
}

} // extern "C"
