//===- NcclBackend.cpp - Ranks of GPUs over NCCL --------------------------===//

#include "runtime/cuda/NcclBackend.h"

#include "runtime/cuda/DeviceState.h"

#include <nccl.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include <vector>

namespace gptc {
namespace runtime {
namespace cuda {
namespace {

#define GPTC_NCCL_FUNCTIONS(X)                                                 \
  X(ncclGetVersion)                                                            \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclCommAbort)                                                             \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclGetErrorString)                                                        \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)                                                              \
  X(ncclAllReduce)                                                             \
  X(ncclAllGather)

struct NcclApi {
#define GPTC_NCCL_POINTER(function) decltype(&::function) function = nullptr;
  GPTC_NCCL_FUNCTIONS(GPTC_NCCL_POINTER)
#undef GPTC_NCCL_POINTER
};

bool loadNccl(NcclApi &api, std::string &error) {
  const char *file = "libnccl.so.2";
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error =
        std::string("no NCCL: ") + file + " not found (" +
        (reason ? reason : "dlopen failed") +
        "); to run on gptc's emulated device: LD_LIBRARY_PATH=build/lib/emu";
    return false;
  }
#define GPTC_NCCL_LOOK_UP(function)                                            \
  api.function =                                                               \
      reinterpret_cast<decltype(api.function)>(dlsym(handle, #function));      \
  if (!api.function) {                                                         \
    error = std::string(file) + " lacks " #function;                           \
    return false;                                                              \
  }
  GPTC_NCCL_FUNCTIONS(GPTC_NCCL_LOOK_UP)
#undef GPTC_NCCL_LOOK_UP
  return true;
}

ncclDataType_t ncclType(comm::Dtype t) {
  switch (t) {
  case comm::Dtype::bf16:
    return ncclBfloat16;
  case comm::Dtype::f64:
    return ncclFloat64;
  case comm::Dtype::i32:
    return ncclInt32;
  case comm::Dtype::i64:
    return ncclInt64;
  default:
    return ncclFloat32;
  }
}

ncclRedOp_t ncclOp(comm::Reduction op) {
  switch (op) {
  case comm::Reduction::avg:
    return ncclAvg;
  case comm::Reduction::max:
    return ncclMax;
  case comm::Reduction::min:
    return ncclMin;
  case comm::Reduction::prod:
    return ncclProd;
  default:
    return ncclSum;
  }
}

class NcclBackend final : public comm::Backend {
public:
  NcclBackend(std::unique_ptr<comm::Backend> host, CudaDevice &device)
      : host(std::move(host)), device(device) {}
  ~NcclBackend() override {
    if (communicator)
      api.ncclCommDestroy(communicator);
  }

  bool init(std::string &error) {
    // The step's collectives are captured into its graphs on the first
    // step: connect every peer when the communicator is made, not at the
    // first collective (NCCL 2.22+ connects at run time by default, which
    // then happens inside the capture). A value the user set stays.
    setenv("NCCL_RUNTIME_CONNECT", "0", /*overwrite=*/0);
    if (!loadNccl(api, error))
      return false;
    int version = 0;
    api.ncclGetVersion(&version);
    versionText = std::to_string(version / 10000) + "." +
                  std::to_string(version / 100 % 100) + "." +
                  std::to_string(version % 100);
    // Rank 0's id, to every rank through the host backend; its failure
    // too, so that no rank waits for an id that will not come.
    struct Offer {
      ncclUniqueId id;
      int32_t made;
    } offer = {};
    std::string madeError;
    offer.made = rank() != 0 || check(api.ncclGetUniqueId(&offer.id),
                                      "ncclGetUniqueId", madeError);
    std::vector<char> all(sizeof(offer) * size_t(size()));
    if (!host->allGather(&offer, all.data(), sizeof(offer), error))
      return false;
    std::memcpy(&offer, all.data(), sizeof(offer));
    if (!offer.made) {
      error =
          rank() == 0 ? madeError : "rank 0 could not make NCCL's unique id";
      return false;
    }
    ncclUniqueId id = offer.id;
    device.state().bindContext();
    return check(api.ncclCommInitRank(&communicator, size(), id, rank()),
                 "ncclCommInitRank", error);
  }

  int rank() const override { return host->rank(); }
  int size() const override { return host->size(); }
  std::string name() const override {
    return "NCCL " + versionText + " (bootstrap " + host->name() + ")";
  }
  bool startAllReduce(void *data, int64_t count, comm::Dtype wire,
                      comm::Reduction op, int64_t &request,
                      std::string &error) override {
    return host->startAllReduce(data, count, wire, op, request, error);
  }
  bool wait(int64_t request, std::string &error) override {
    return host->wait(request, error);
  }
  bool allGather(const void *in, void *out, int64_t bytes,
                 std::string &error) override {
    return host->allGather(in, out, bytes, error);
  }
  [[noreturn]] void abortJob(int code) override {
    if (communicator)
      api.ncclCommAbort(communicator);
    communicator = nullptr;
    host->abortJob(code);
    std::_Exit(code); // abortJob does not return
  }

  std::unique_ptr<comm::Backend> releaseHost() { return std::move(host); }

  bool onDevice() const override { return true; }
  /// The bucket's all-reduces on the communication stream, after the
  /// step's work so far: the rest of the backward overlaps them until
  /// deviceWait. Captured into the step's graph, the two streams are a
  /// fork and a join of it.
  bool deviceAllReduce(const DeviceReduce *members, size_t count,
                       comm::Reduction op, int64_t &request,
                       std::string &error) override {
    CudaDevice::State &s = device.state();
    if (!commStream && !makeCommStream(error))
      return false;
    if (!s.check(s.cu->cuEventRecord(stepSoFar, s.stream), "cuEventRecord",
                 error) ||
        !s.check(s.cu->cuStreamWaitEvent(commStream, stepSoFar, 0),
                 "cuStreamWaitEvent", error))
      return false;
    api.ncclGroupStart();
    for (size_t i = 0; i < count; ++i) {
      const DeviceReduce &m = members[i];
      ncclResult_t rc = api.ncclAllReduce(
          m.in, m.out, size_t(m.count), ncclType(m.dtype), ncclOp(op),
          communicator, reinterpret_cast<cudaStream_t>(commStream));
      if (rc != ncclSuccess) {
        api.ncclGroupEnd();
        return check(rc, "ncclAllReduce", error);
      }
    }
    if (!check(api.ncclGroupEnd(), "ncclGroupEnd", error) || !polled(error))
      return false;
    request = takeEvent(error);
    return request >= 0 &&
           s.check(s.cu->cuEventRecord(events[size_t(request)], commStream),
                   "cuEventRecord", error);
  }
  bool deviceWait(int64_t request, std::string &error) override {
    CudaDevice::State &s = device.state();
    if (request < 0 || size_t(request) >= events.size()) {
      error = "a wait for an all-reduce that was not started";
      return false;
    }
    freeEvents.push_back(request);
    return s.check(
        s.cu->cuStreamWaitEvent(s.stream, events[size_t(request)], 0),
        "cuStreamWaitEvent", error);
  }
  bool deviceHealthy(std::string &error) override { return polled(error); }
  bool deviceAllGather(const void *in, void *out, int64_t bytes,
                       std::string &error) override {
    return check(api.ncclAllGather(
                     in, out, size_t(bytes), ncclUint8, communicator,
                     reinterpret_cast<cudaStream_t>(device.state().stream)),
                 "ncclAllGather", error) &&
           polled(error);
  }
  bool deviceCopy(void *out, const void *in, int64_t bytes,
                  std::string &error) override {
    CudaDevice::State &s = device.state();
    return s.check(s.cu->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(out),
                                           reinterpret_cast<CUdeviceptr>(in),
                                           size_t(bytes), s.stream),
                   "cuMemcpyDtoDAsync", error);
  }

private:
  /// The communication stream and the event of the step's work so far;
  /// released with the context.
  bool makeCommStream(std::string &error) {
    CudaDevice::State &s = device.state();
    return s.check(s.cu->cuStreamCreate(&commStream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate", error) &&
           s.check(s.cu->cuEventCreate(&stepSoFar, CU_EVENT_DISABLE_TIMING),
                   "cuEventCreate", error);
  }
  /// An event no wait is pending on: its index, or -1 and `error`.
  int64_t takeEvent(std::string &error) {
    if (!freeEvents.empty()) {
      int64_t i = freeEvents.back();
      freeEvents.pop_back();
      return i;
    }
    CudaDevice::State &s = device.state();
    CUevent event = nullptr;
    if (!s.check(s.cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                 "cuEventCreate", error))
      return -1;
    events.push_back(event);
    return int64_t(events.size()) - 1;
  }

  bool check(ncclResult_t rc, const char *call, std::string &error) const {
    if (rc == ncclSuccess)
      return true;
    error = std::string(call) + ": " + api.ncclGetErrorString(rc);
    return false;
  }
  /// The communicator's asynchronous error (a peer gone, a network error).
  bool polled(std::string &error) const {
    ncclResult_t async = ncclSuccess;
    if (!check(api.ncclCommGetAsyncError(communicator, &async),
               "ncclCommGetAsyncError", error))
      return false;
    return check(async, "NCCL (asynchronous error)", error);
  }

  std::unique_ptr<comm::Backend> host;
  CudaDevice &device;
  NcclApi api;
  ncclComm_t communicator = nullptr;
  std::string versionText;
  CUstream commStream = nullptr;
  CUevent stepSoFar = nullptr;
  std::vector<CUevent> events;
  std::vector<int64_t> freeEvents;
};

} // namespace

std::unique_ptr<comm::Backend>
makeNcclBackend(std::unique_ptr<comm::Backend> &host, CudaDevice &device,
                std::string &error) {
  auto backend = std::make_unique<NcclBackend>(std::move(host), device);
  if (!backend->init(error)) {
    host = backend->releaseHost();
    return nullptr;
  }
  return backend;
}

} // namespace cuda
} // namespace runtime
} // namespace gptc
