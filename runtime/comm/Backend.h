//===- Backend.h - The ranks of a job, as a backend sees them ---*- C++ -*-===//
//
// What a communication backend provides to runtime/comm/Collectives.h: the
// job's rank and size, an in-place all-reduce that can be started and
// waited for, a blocking all-gather of bytes, and a job-wide abort. Buffers
// are host memory; the wire types are f32, f64, i32 and i64 (bf16 travels
// as f32, packed by Collectives).
//
//   - SingleRank: one process, every collective is the identity.
//   - MPI (MpiBackend.cpp): the ranks of `mpirun -np N`, Open MPI's
//     non-blocking collectives.
//   - NCCL (runtime/cuda/NcclBackend.h): a device backend, over MPI for
//     its bootstrap.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_COMM_BACKEND_H
#define GPTC_RUNTIME_COMM_BACKEND_H

#include <cstdint>
#include <memory>
#include <string>

namespace gptc {
namespace runtime {
namespace comm {

/// Element types (runtime/gptrt.h's GPTC_DTYPE_* codes).
enum class Dtype { f32 = 0, bf16 = 1, f64 = 2, i32 = 3, i64 = 4 };
/// comm::ReductionKind's values.
enum class Reduction { sum = 0, avg = 1, max = 2, min = 3, prod = 4 };

int64_t dtypeBytes(Dtype t);

class Backend {
public:
  virtual ~Backend() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "single process" or "MPI (Open MPI 4.1.4)" for the run's header.
  virtual std::string name() const = 0;
  /// Starts reducing `count` elements of `wire` type at `data` in place
  /// (sum, max, min or prod over the ranks); `request` identifies it for
  /// wait(). `data` must stay untouched until then.
  virtual bool startAllReduce(void *data, int64_t count, Dtype wire,
                              Reduction op, int64_t &request,
                              std::string &error) = 0;
  virtual bool wait(int64_t request, std::string &error) = 0;
  /// Lets started reductions advance (MPI progresses non-blocking
  /// collectives only inside its calls); called as the step starts more.
  virtual void progress() {}
  /// out = every rank's `bytes` bytes of `in`, in rank order.
  virtual bool allGather(const void *in, void *out, int64_t bytes,
                         std::string &error) = 0;
  /// Ends every rank of the job with exit code `code`.
  [[noreturn]] virtual void abortJob(int code) = 0;

  /// Device backends (NCCL) work on the step's own device buffers, in the
  /// order of the step's stream, with no packing: Collectives hands them
  /// each bucket whole. The host collectives above stay those of the
  /// process (MPI), for the start-up checks.
  virtual bool onDevice() const { return false; }
  struct DeviceReduce {
    const void *in;
    void *out;
    int64_t count;
    Dtype dtype;
  };
  /// out = reduce over ranks of in, for every member, as one group. It
  /// may run beside the step's stream (a communication stream that waits
  /// for the step's work so far): `request` names it for deviceWait, after
  /// which the step's stream sees out. Either call may be made while the
  /// step's stream is being captured into a graph.
  virtual bool deviceAllReduce(const DeviceReduce *members, size_t count,
                               Reduction op, int64_t &request,
                               std::string &error);
  /// The step's stream waits (on the device) for deviceAllReduce's request.
  virtual bool deviceWait(int64_t request, std::string &error);
  /// False and `error` when the device collectives report a failure of
  /// their own (NCCL's asynchronous error: a peer gone, a network error);
  /// read after each replay of a step whose collectives were captured.
  virtual bool deviceHealthy(std::string &) { return true; }
  /// out = every rank's `bytes` bytes of in, rank order.
  virtual bool deviceAllGather(const void *in, void *out, int64_t bytes,
                               std::string &error);
  /// out = in, `bytes` bytes of device memory.
  virtual bool deviceCopy(void *out, const void *in, int64_t bytes,
                          std::string &error);
};

/// One process.
std::unique_ptr<Backend> makeSingleRankBackend();

/// MPI_COMM_WORLD after MPI_Init; null and `error` on failure.
std::unique_ptr<Backend> makeMpiBackend(std::string &error);

} // namespace comm
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_COMM_BACKEND_H
