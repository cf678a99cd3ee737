//===- NcclTest.cpp - The emulated libnccl.so.2 between processes ---------===//
//
// Each test forks one process per rank; every rank opens its own emulated
// device, joins the communicator of a unique id made before the fork, runs
// collectives on device buffers and checks what it got. A rank reports a
// failed check by its exit code (the line of the check). Every test runs
// twice: the ranks on one host (shared memory) and each on a host of its
// own (NCCL_HOSTID differs: the bootstrap's sockets carry the data).
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <nccl.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace gptc::emu::test {
namespace {

#define RANK_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      return __LINE__;                                                         \
  } while (0)

/// Whether each rank of the running test says it is on a host of its own.
bool separateHosts = false;

/// Whether this process maps the communicator's shared-memory segment.
bool mapsSharedSegment() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/dev/shm/gptc-emu-nccl-") != std::string::npos)
      return true;
  return false;
}

/// Runs `body(rank, comm)` in `n` forked ranks; returns their exit codes.
/// A rank that joined the transport the test did not ask for exits 202.
std::vector<int> runRanks(int n,
                          const std::function<int(int, ncclComm_t)> &body) {
  ncclUniqueId id;
  EXPECT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      CUdevice dev;
      CUcontext ctx;
      if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
          cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
          cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        _exit(200);
      // A launch error an earlier test of this process left for the next
      // synchronisation is not this rank's.
      cuCtxSynchronize();
      if (separateHosts)
        setenv("NCCL_HOSTID", ("emu-host-" + std::to_string(r)).c_str(), 1);
      ncclComm_t comm = nullptr;
      if (ncclCommInitRank(&comm, n, id, r) != ncclSuccess)
        _exit(201);
      if (mapsSharedSegment() == separateHosts)
        _exit(202);
      int code = body(r, comm);
      ncclCommDestroy(comm);
      _exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 255);
  }
  return codes;
}

template <class T> CUdeviceptr upload(const std::vector<T> &host) {
  CUdeviceptr p = 0;
  cuMemAlloc(&p, host.size() * sizeof(T));
  cuMemcpyHtoD(p, host.data(), host.size() * sizeof(T));
  return p;
}

template <class T> std::vector<T> download(CUdeviceptr p, size_t n) {
  std::vector<T> host(n);
  cuMemcpyDtoH(host.data(), p, n * sizeof(T));
  return host;
}

const void *dev(CUdeviceptr p) { return reinterpret_cast<const void *>(p); }
void *devOut(CUdeviceptr p) { return reinterpret_cast<void *>(p); }

/// The parameter: whether every rank is on a host of its own.
class EmuNccl : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { separateHosts = GetParam(); }
  void TearDown() override { separateHosts = false; }
};

TEST_P(EmuNccl, AllReduceSumAndAvgAcrossChunks) {
  // 3 M floats: more than one 4 MiB slot, so the chunks are exercised.
  constexpr size_t n = 3u << 20;
  auto codes = runRanks(3, [](int rank, ncclComm_t comm) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i)
      x[i] = float((rank + 1) * int(i % 7));
    CUdeviceptr in = upload(x), out = upload(std::vector<float>(n));
    RANK_CHECK(ncclAllReduce(dev(in), devOut(out), n, ncclFloat32, ncclSum,
                             comm, nullptr) == ncclSuccess);
    std::vector<float> sum = download<float>(out, n);
    for (size_t i = 0; i < n; ++i)
      RANK_CHECK(sum[i] == float(6 * int(i % 7)));
    RANK_CHECK(ncclAllReduce(dev(in), devOut(out), n, ncclFloat32, ncclAvg,
                             comm, nullptr) == ncclSuccess);
    std::vector<float> avg = download<float>(out, n);
    for (size_t i = 0; i < n; ++i)
      RANK_CHECK(avg[i] == float(6 * int(i % 7)) / 3.0f);
    // In place, max.
    RANK_CHECK(ncclAllReduce(dev(in), devOut(in), n, ncclFloat32, ncclMax, comm,
                             nullptr) == ncclSuccess);
    RANK_CHECK(download<float>(in, 8)[6] == 18.0f);
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>({0, 0, 0}));
}

// On a capturing stream an all-reduce is checked and recorded, not run:
// it meets the other ranks at each replay of the graph, as NCCL's captured
// kernel does, and a bad buffer is refused at the call.
TEST_P(EmuNccl, AnAllReduceCapturedInAGraphRunsAtEachReplay) {
  auto codes = runRanks(2, [](int rank, ncclComm_t comm) {
    CUstream stream = nullptr;
    RANK_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CUdeviceptr in = upload(std::vector<float>(1000, float(rank + 1)));
    CUdeviceptr out = upload(std::vector<float>(1000, -1.0f));
    RANK_CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED) ==
               CUDA_SUCCESS);
    RANK_CHECK(ncclAllReduce(dev(in), devOut(out), 1000, ncclFloat32, ncclSum,
                             comm, stream) == ncclSuccess);
    RANK_CHECK(ncclAllReduce(dev(in), devOut(out), 1001, ncclFloat32, ncclSum,
                             comm, stream) == ncclInvalidArgument);
    CUgraph graph = nullptr;
    RANK_CHECK(cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS);
    RANK_CHECK(download<float>(out, 1000)[999] == -1.0f); // not run yet
    CUgraphExec exec = nullptr;
    RANK_CHECK(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
    for (int replay = 0; replay < 2; ++replay) {
      RANK_CHECK(cuMemsetD32Async(out, 0, 1000, stream) == CUDA_SUCCESS);
      RANK_CHECK(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
      RANK_CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
      std::vector<float> sum = download<float>(out, 1000);
      RANK_CHECK(sum[0] == 3.0f && sum[999] == 3.0f);
    }
    RANK_CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
    RANK_CHECK(cuGraphDestroy(graph) == CUDA_SUCCESS);
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>({0, 0}));
}

TEST_P(EmuNccl, GatherBroadcastReduceScatter) {
  auto codes = runRanks(2, [](int rank, ncclComm_t comm) {
    int count = 0, me = -1;
    RANK_CHECK(ncclCommCount(comm, &count) == ncclSuccess && count == 2);
    RANK_CHECK(ncclCommUserRank(comm, &me) == ncclSuccess && me == rank);
    std::vector<int32_t> mine(5);
    for (int i = 0; i < 5; ++i)
      mine[size_t(i)] = rank * 10 + i;
    CUdeviceptr in = upload(mine), all = upload(std::vector<int32_t>(10));
    RANK_CHECK(ncclAllGather(dev(in), devOut(all), 5, ncclInt32, comm,
                             nullptr) == ncclSuccess);
    std::vector<int32_t> got = download<int32_t>(all, 10);
    for (int i = 0; i < 10; ++i)
      RANK_CHECK(got[size_t(i)] == (i / 5) * 10 + i % 5);
    // Rank 1's values to everyone.
    CUdeviceptr b = upload(std::vector<double>{rank + 0.5, rank + 1.5});
    RANK_CHECK(ncclBroadcast(dev(b), devOut(b), 2, ncclFloat64, 1, comm,
                             nullptr) == ncclSuccess);
    RANK_CHECK(download<double>(b, 2) == std::vector<double>({1.5, 2.5}));
    // Sum of [r, r, r, r, 10r, 10r, 10r, 10r]: rank 0 keeps the first 4.
    std::vector<float> rs = {float(rank), float(rank), float(rank),
                             float(rank), 10.f * rank, 10.f * rank,
                             10.f * rank, 10.f * rank};
    CUdeviceptr src = upload(rs), dst = upload(std::vector<float>(4));
    RANK_CHECK(ncclReduceScatter(dev(src), devOut(dst), 4, ncclFloat32, ncclSum,
                                 comm, nullptr) == ncclSuccess);
    RANK_CHECK(download<float>(dst, 4)[0] == (rank == 0 ? 1.f : 10.f));
    // bf16: 1 + 1 = 2, summed in f32 and rounded once.
    uint16_t one = 0x3f80;
    CUdeviceptr h = upload(std::vector<uint16_t>{one});
    RANK_CHECK(ncclAllReduce(dev(h), devOut(h), 1, ncclBfloat16, ncclSum, comm,
                             nullptr) == ncclSuccess);
    RANK_CHECK(download<uint16_t>(h, 1)[0] == 0x4000);
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>({0, 0}));
}

TEST_P(EmuNccl, RejectsWhatTheDeviceDoesNotHold) {
  auto codes = runRanks(2, [](int, ncclComm_t comm) {
    float host[4] = {};
    CUdeviceptr small = upload(std::vector<float>(4));
    // A host pointer, and a device buffer too small for the count.
    RANK_CHECK(ncclAllReduce(host, host, 4, ncclFloat32, ncclSum, comm,
                             nullptr) == ncclInvalidArgument);
    RANK_CHECK(ncclAllReduce(dev(small), devOut(small), 5, ncclFloat32, ncclSum,
                             comm, nullptr) == ncclInvalidArgument);
    RANK_CHECK(ncclAllReduce(dev(small), devOut(small), 4, ncclFloat32,
                             ncclRedOp_t(9), comm,
                             nullptr) == ncclInvalidArgument);
    // What this library cannot reduce is refused by every rank at once.
    RANK_CHECK(ncclAllReduce(dev(small), devOut(small), 4, ncclFloat16, ncclSum,
                             comm, nullptr) == ncclInvalidArgument);
    RANK_CHECK(ncclReduceScatter(dev(small), devOut(small), 2, ncclFloat32,
                                 ncclRedOp_t(7), comm,
                                 nullptr) == ncclInvalidArgument);
    // The communicator still works afterwards.
    RANK_CHECK(ncclAllReduce(dev(small), devOut(small), 4, ncclFloat32, ncclSum,
                             comm, nullptr) == ncclSuccess);
    RANK_CHECK(ncclCommDestroy(nullptr) == ncclSuccess);
    RANK_CHECK(std::string(ncclGetErrorString(ncclInvalidArgument))
                   .find("invalid argument") == 0);
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>({0, 0}));
}

TEST_P(EmuNccl, APeerThatLeavesIsAnErrorNotAHang) {
  setenv("GPTC_EMU_NCCL_TIMEOUT", "1", 1);
  auto codes = runRanks(2, [](int rank, ncclComm_t comm) {
    if (rank == 1)
      return 0; // gone without a word
    CUdeviceptr x = upload(std::vector<float>(16));
    RANK_CHECK(ncclAllReduce(dev(x), devOut(x), 16, ncclFloat32, ncclSum, comm,
                             nullptr) == ncclRemoteError);
    ncclResult_t async = ncclSuccess;
    RANK_CHECK(ncclCommGetAsyncError(comm, &async) == ncclSuccess &&
               async == ncclRemoteError);
    return 0;
  });
  unsetenv("GPTC_EMU_NCCL_TIMEOUT");
  EXPECT_EQ(codes, std::vector<int>({0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Transports, EmuNccl, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "SeparateHosts" : "OneHost";
                         });

} // namespace
} // namespace gptc::emu::test
