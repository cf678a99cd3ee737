//===- DriverState.h - Objects behind the emulated driver API ---*- C++ -*-===//
//
// The handles the emulated libcuda.so.1 gives out (CUcontext, CUmodule,
// CUfunction, CUstream, CUevent) point at these structs. Work is done when
// it is submitted: streams are in order by construction, and an error of
// a launch is returned by the launch and by the next synchronisation.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_DRIVERSTATE_H
#define GPTC_EMU_DRIVERSTATE_H

#include "emu/PtxModule.h"

#include <cuda.h>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct CUctx_st {
  int device = 0;
  bool primary = false;
  int refs = 1;
};

struct CUfunc_st;
struct CUmod_st {
  gptc::emu::Module module;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};

struct CUfunc_st {
  CUmod_st *owner = nullptr;
  int index = -1;
  int maxDynShared = 48 * 1024;
};

/// Work recorded for a graph: runs when the graph is launched.
using CapturedWork = std::function<CUresult()>;

/// One stream capture: begun on its origin stream, it draws in every
/// stream that waits on an event recorded inside it (a fork) and records
/// their work in the order it is submitted, which is an order the graph's
/// dependencies allow. It may end only when the origin has waited for
/// every other member's last work (joined), as CUDA requires.
struct StreamCapture {
  CUstream origin = nullptr;
  bool active = true;
  CUresult error = CUDA_SUCCESS;
  std::vector<CapturedWork> nodes; ///< in submission order
  /// Per member: the nodes it has submitted so far.
  std::map<CUstream, uint64_t> submitted;
  /// Per member: how many of each stream's nodes it has waited for.
  std::map<CUstream, std::map<CUstream, uint64_t>> seen;
};

struct CUstream_st {
  unsigned flags = 0;
  /// While the stream takes part in a capture its work is recorded, not
  /// run; a forbidden call (a synchronisation) invalidates the capture.
  std::shared_ptr<StreamCapture> capture;
};

struct CUgraph_st {
  std::vector<CapturedWork> nodes; ///< in stream order
};

struct CUgraphExec_st {
  std::vector<CapturedWork> nodes;
};

struct CUevent_st {
  uint64_t ns = 0;
  bool recorded = false;
  /// Recorded inside a capture: that capture, and what the recording
  /// stream had submitted and waited for then (what a wait on it joins).
  std::shared_ptr<StreamCapture> capture;
  std::map<CUstream, uint64_t> seen;
};

namespace gptc::emu {

/// Fails with CUDA_ERROR_NOT_INITIALIZED before cuInit.
bool driverInitialized();
/// Every GPTC_EMU_* variable a setting the device knows, with a value it
/// can use; else false and one line naming it (DriverEnvironment.cpp).
bool checkEnvironment(std::string &error);
/// The error of the last failed launch, returned once by the next
/// synchronisation (cuCtxSynchronize, cuStreamSynchronize, ...).
CUresult takeDeferredError();
uint64_t hostNs();
/// If `stream` is capturing, records `work` for its graph and returns
/// true; otherwise false (the caller runs the work now).
bool recordOnCapture(CUstream stream, CapturedWork work);
/// True while some stream of the process is capturing.
bool anyStreamCapturing();
/// cuEventRecord's part in a capture: the event remembers what `stream`
/// has done in its capture (or forgets an old capture).
void noteEventRecord(CUevent event, CUstream stream);
/// cuStreamWaitEvent's part: a stream that waits on an event recorded in
/// a capture joins that capture (a fork) and sees what the event saw.
CUresult joinCaptureOnWait(CUstream stream, CUevent event);
/// With GPTC_EMU_TRACE=FILE, appends "CALL BYTES [WHAT]" to FILE: the calls
/// that cost a real GPU time or a stall (launches, synchronisations,
/// allocations, copies, memsets), in the order they were made.
void traceCall(const char *call, uint64_t bytes = 0,
               const char *what = nullptr);
/// GPTC_EMU_STATS, GPTC_EMU_STATS_JSON or GPTC_EMU_PROFILE: launches are
/// profiled, and summed per kernel for the report at exit
/// (DriverProfile.cpp).
bool profilingLaunches();
struct LaunchCounters;
struct LaunchProfile;
void recordLaunchProfile(const Module &m, const Function &fn, unsigned block,
                         const LaunchCounters &c, const LaunchProfile &p,
                         double seconds);

} // namespace gptc::emu

#endif
