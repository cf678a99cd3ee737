//===- Collectives.h - The communication a compiled step calls --*- C++ -*-===//
//
// The process's view of the job's ranks, behind runtime/gptrt.h's
// gptc_comm_* callbacks (which gptc-lower-comm's calls reach):
//
//   - all-reduces are bucketed: a started all-reduce is packed into the
//     open bucket (bf16 widened to f32); when the bucket holds
//     `bucketLimitBytes` or more it is issued (Backend::startAllReduce) while
//     the step goes on computing; waiting for any member issues what is
//     still open and unpacks the whole bucket (avg divides by the world
//     size, bf16 rounds once). The step starts each gradient's all-reduce
//     as soon as the gradient is final, so buckets fill in backward order
//     and the first ones travel during the rest of the backward.
//   - all-gathers and shards are blocking.
//
// A collective that fails ends the whole job with one line naming the rank
// (the step has no error path). One Collectives per process
// (Collectives::get), single-rank until initialize() finds a launcher.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_COMM_COLLECTIVES_H
#define GPTC_RUNTIME_COMM_COLLECTIVES_H

#include "runtime/comm/Backend.h"

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {
namespace comm {

class Collectives {
public:
  static Collectives &get();

  /// Joins the job this process was launched in (MPI under mpirun), else
  /// stays one rank. Returns false and sets `error` when the launcher's
  /// job cannot be joined.
  bool initialize(std::string &error);
  int rank() const { return backend->rank(); }
  int size() const { return backend->size(); }
  std::string backendName() const { return backend->name(); }
  /// The machines the ranks run on (distinct host names).
  int hosts() const { return hostCount; }
  void setBucketBytes(int64_t bytes) { bucketLimitBytes = bytes; }
  /// Swaps the backend (a device backend that bootstraps over the one
  /// initialize() made); returns the old one.
  std::unique_ptr<Backend> swapBackend(std::unique_ptr<Backend> next) {
    std::swap(backend, next);
    return next;
  }
  int64_t bucketBytes() const { return bucketLimitBytes; }
  /// The device collectives' own error, if any (Backend::deviceHealthy).
  bool deviceHealthy(std::string &error) {
    return backend->deviceHealthy(error);
  }

  /// Checks that every rank has the same `value` of `what` (e.g. the
  /// bundle's hash); false and one line naming the first rank that
  /// differs, on every rank.
  bool agree(const std::string &what, const std::string &value,
             std::string &error);
  /// The largest of the ranks' `value` (host, blocking, every rank
  /// calls it): how the ranks agree to stop at the same step. Its wait
  /// counts as the step's, so the --collective-timeout watchdog sees it.
  bool maxOverRanks(int64_t value, int64_t &max, std::string &error);
  /// Waits until every rank gets here, unwatched: the other ranks wait in
  /// it while rank 0 writes a checkpoint, which can take longer than any
  /// collective should (a slow disk) without a rank having died.
  /// `failed` is this rank's say (rank 0's write failed); `anyFailed` is
  /// every rank's.
  bool waitForCheckpointWrite(bool failed, bool &anyFailed, std::string &error);
  /// Prints `message` as this rank's error and ends the job (exit 1).
  [[noreturn]] void fail(const std::string &message);

  /// The callbacks (runtime/gptrt.h).
  int64_t startAllReduce(Reduction op, Dtype dtype, const void *in, void *out,
                         int64_t count);
  void wait(int64_t handle);
  void allGather(Dtype dtype, const void *in, void *out, int64_t count);
  void shard(const void *in, void *out, int64_t bytes);

  /// Seconds spent inside wait() and the blocking collectives since the
  /// last call (the time the step waited on communication).
  double takeWaitSeconds();

  /// A watchdog for jobs of several ranks: a wait for the other ranks in
  /// a step's collectives that lasts more than `seconds` (a rank stopped,
  /// hung or died) ends this rank with one error line (exit 1), and mpirun
  /// then ends the job. 0 turns it off.
  void setWatchdogSeconds(double seconds);

  /// Marks, for its scope, a host wait for the device's stream while the
  /// step's collectives run on it (a CUDA graph with NCCL calls, or calls
  /// enqueued on the communication stream): a rank that stopped leaves this
  /// one blocked in the device, not in a host collective, and the watchdog
  /// must see that too. Not counted as time waiting on communication (the
  /// wait includes the step's own work). Does nothing with one rank.
  class DeviceWait {
  public:
    explicit DeviceWait(Collectives &ranks);
    ~DeviceWait();
    DeviceWait(const DeviceWait &) = delete;
    DeviceWait &operator=(const DeviceWait &) = delete;

  private:
    Collectives *ranks;
  };

private:
  Collectives();
  struct Member {
    const void *in;
    void *out;
    int64_t count;
    Dtype dtype;
    int64_t handle;
  };
  struct Bucket {
    std::vector<Member> members;
    Dtype wire = Dtype::f32;
    Reduction op = Reduction::sum;
    std::vector<unsigned char> data; ///< host backends: the packed members
    int64_t deviceBytes = 0;         ///< device backends: their bytes
    int64_t request = -1;
    bool issued = false, done = false;
  };
  void issue(Bucket &b);
  void countHosts();
  void finish(Bucket &b);

  std::unique_ptr<Backend> backend;
  int64_t bucketLimitBytes = 25 << 20;
  int hostCount = 1;
  /// Since when (steady clock, ns) this rank waits in a collective; 0: not.
  std::atomic<int64_t> waitingSinceNs{0};
  /// Whether that wait is a DeviceWait (the watchdog's words differ).
  std::atomic<bool> waitingOnDevice{false};
  std::atomic<double> watchdogSeconds{0.0};
  bool watchdogStarted = false;
  int64_t nextHandle = 0;
  /// This step's buckets; the last one may be open (not issued).
  std::deque<Bucket> buckets;
  double waitSeconds = 0.0;
};

} // namespace comm
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_COMM_COLLECTIVES_H
