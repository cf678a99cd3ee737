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

struct CUstream_st {
  unsigned flags = 0;
  /// Between cuStreamBeginCapture and cuStreamEndCapture the stream's work
  /// is recorded, not run; a forbidden call (a synchronisation) during the
  /// capture invalidates it.
  bool capturing = false;
  std::vector<CapturedWork> captured;
  CUresult captureError = CUDA_SUCCESS;
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
