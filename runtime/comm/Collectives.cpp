//===- Collectives.cpp - Buckets, checks and the gptc_comm_* callbacks ----===//

#include "runtime/comm/Collectives.h"
#include "runtime/comm/JobEnvironment.h"

#include "runtime/cpu/Bf16.h"
#include "runtime/gptrt.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <thread>

#include <unistd.h>

namespace gptc {
namespace runtime {
namespace comm {

int64_t dtypeBytes(Dtype t) {
  switch (t) {
  case Dtype::bf16:
    return 2;
  case Dtype::f64:
  case Dtype::i64:
    return 8;
  default:
    return 4;
  }
}

namespace {

class SingleRank final : public Backend {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "single process"; }
  bool startAllReduce(void *, int64_t, Dtype, Reduction, int64_t &request,
                      std::string &) override {
    request = 0;
    return true;
  }
  bool wait(int64_t, std::string &) override { return true; }
  bool allGather(const void *in, void *out, int64_t bytes,
                 std::string &) override {
    std::memmove(out, in, size_t(bytes));
    return true;
  }
  [[noreturn]] void abortJob(int code) override { std::_Exit(code); }
};

/// The type a bucket of `t` travels in: bf16 is summed in f32.
Dtype wireType(Dtype t) { return t == Dtype::bf16 ? Dtype::f32 : t; }

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Adds the wall time of its scope to `total`, and marks the rank as
/// waiting in `since` (the watchdog's clue) meanwhile.
class WaitClock {
public:
  WaitClock(double &total, std::atomic<int64_t> &since)
      : total(total), since(since), start(nowNs()) {
    since.store(start);
  }
  ~WaitClock() {
    since.store(0);
    total += double(nowNs() - start) * 1e-9;
  }

private:
  double &total;
  std::atomic<int64_t> &since;
  int64_t start;
};

} // namespace

bool Backend::deviceAllReduce(const DeviceReduce *, size_t, Reduction,
                              int64_t &, std::string &error) {
  error = name() + " has no device collectives";
  return false;
}
bool Backend::deviceWait(int64_t, std::string &error) {
  error = name() + " has no device collectives";
  return false;
}
bool Backend::deviceAllGather(const void *, void *, int64_t,
                              std::string &error) {
  error = name() + " has no device collectives";
  return false;
}
bool Backend::deviceCopy(void *, const void *, int64_t, std::string &error) {
  error = name() + " has no device collectives";
  return false;
}

std::unique_ptr<Backend> makeSingleRankBackend() {
  return std::make_unique<SingleRank>();
}

Collectives::Collectives() : backend(makeSingleRankBackend()) {}

Collectives &Collectives::get() {
  static Collectives collectives;
  return collectives;
}

bool Collectives::initialize(std::string &error) {
  error = unjoinableJob();
  if (!error.empty())
    return false;
  if (!launchedByMpi())
    return true;
  std::unique_ptr<Backend> mpi = makeMpiBackend(error);
  if (!mpi)
    return false;
  backend = std::move(mpi);
  // srun's tasks joined through PMIx: all of them, in one world.
  if (std::optional<SlurmStep> step = slurmStep();
      step && step->tasks != backend->size()) {
    error = "srun started " + std::to_string(step->tasks) +
            " tasks (SLURM_STEP_NUM_TASKS) but MPI's world has " +
            std::to_string(backend->size()) +
            ": start them with srun --mpi=pmix";
    return false;
  }
  countHosts();
  return true;
}

void Collectives::countHosts() {
  hostCount = 1;
  if (backend->size() < 2)
    return;
  char name[64] = {};
  gethostname(name, sizeof(name) - 1);
  std::vector<char> all(sizeof(name) * size_t(backend->size()));
  std::string error;
  if (!backend->allGather(name, all.data(), sizeof(name), error))
    return;
  std::set<std::string> hosts;
  for (int r = 0; r < backend->size(); ++r)
    hosts.insert(std::string(all.data() + size_t(r) * sizeof(name)));
  hostCount = int(hosts.size());
}

bool Collectives::agree(const std::string &what, const std::string &value,
                        std::string &error) {
  constexpr int64_t kWidth = 128;
  std::string mine = value.substr(0, kWidth);
  mine.resize(size_t(kWidth), '\0');
  std::vector<char> all(size_t(kWidth * size()));
  if (!backend->allGather(mine.data(), all.data(), kWidth, error))
    return false;
  auto at = [&](int r) {
    return std::string(all.data() + r * kWidth,
                       strnlen(all.data() + r * kWidth, size_t(kWidth)));
  };
  for (int r = 1; r < size(); ++r)
    if (at(r) != at(0)) {
      error = "rank " + std::to_string(r) + " has a different " + what + " (" +
              at(r) + ") than rank 0 (" + at(0) + ")";
      return false;
    }
  return true;
}

bool Collectives::maxOverRanks(int64_t value, int64_t &max,
                               std::string &error) {
  std::vector<int64_t> all(static_cast<size_t>(size()));
  // Every step agrees on the stop signal: a rank stopped before it leaves
  // the others waiting here, which the watchdog must see as in the step's
  // all-reduce.
  WaitClock clock(waitSeconds, waitingSinceNs);
  if (!backend->allGather(&value, all.data(), sizeof(value), error))
    return false;
  max = *std::max_element(all.begin(), all.end());
  return true;
}

bool Collectives::waitForCheckpointWrite(bool failed, bool &anyFailed,
                                         std::string &error) {
  // Not under a WaitClock on waitingSinceNs: the watchdog does not see it.
  int64_t mine = failed ? 1 : 0;
  std::vector<int64_t> all(static_cast<size_t>(size()));
  if (!backend->allGather(&mine, all.data(), sizeof(mine), error))
    return false;
  anyFailed = *std::max_element(all.begin(), all.end()) != 0;
  return true;
}

void Collectives::fail(const std::string &message) {
  std::fprintf(stderr, "gptc: rank %d: error: %s\n", rank(), message.c_str());
  std::fflush(stderr);
  backend->abortJob(1);
  std::_Exit(1); // abortJob does not return
}

void Collectives::issue(Bucket &b) {
  std::string error;
  if (backend->onDevice()) {
    // On the step's buffers, after the step's work so far; finish makes
    // the step's stream wait for it (the time of the calls is what the
    // host spends on them).
    WaitClock clock(waitSeconds, waitingSinceNs);
    std::vector<Backend::DeviceReduce> members;
    for (const Member &m : b.members)
      members.push_back({m.in, m.out, m.count, m.dtype});
    if (!backend->deviceAllReduce(members.data(), members.size(), b.op,
                                  b.request, error))
      fail(error);
    b.issued = true;
    return;
  }
  int64_t elements = int64_t(b.data.size()) / dtypeBytes(b.wire);
  if (elements > INT_MAX)
    fail("an all-reduce bucket of " + std::to_string(elements) +
         " elements is too large (lower --bucket-mb)");
  if (!backend->startAllReduce(b.data.data(), elements, b.wire, b.op, b.request,
                               error))
    fail(error);
  b.issued = true;
}

void Collectives::finish(Bucket &b) {
  std::string error;
  if (backend->onDevice()) {
    WaitClock clock(waitSeconds, waitingSinceNs);
    if (!backend->deviceWait(b.request, error))
      fail(error);
    b.done = true;
    return;
  }
  {
    WaitClock clock(waitSeconds, waitingSinceNs);
    if (!backend->wait(b.request, error))
      fail(error);
  }
  // Unpack: avg divides the sum by the world size; bf16 rounds once.
  const unsigned char *p = b.data.data();
  const double n = double(size());
  for (const Member &m : b.members) {
    switch (m.dtype) {
    case Dtype::f32:
    case Dtype::bf16: {
      const float *src = reinterpret_cast<const float *>(p);
      for (int64_t i = 0; i < m.count; ++i) {
        float v = b.op == Reduction::avg ? float(src[i] / float(n)) : src[i];
        if (m.dtype == Dtype::f32)
          static_cast<float *>(m.out)[i] = v;
        else
          static_cast<uint16_t *>(m.out)[i] = f32ToBf16(v);
      }
      break;
    }
    case Dtype::f64: {
      const double *src = reinterpret_cast<const double *>(p);
      double *dst = static_cast<double *>(m.out);
      for (int64_t i = 0; i < m.count; ++i)
        dst[i] = b.op == Reduction::avg ? src[i] / n : src[i];
      break;
    }
    default:
      std::memcpy(m.out, p, size_t(m.count * dtypeBytes(m.dtype)));
    }
    p += m.count * dtypeBytes(wireType(m.dtype));
  }
  b.done = true;
}

int64_t Collectives::startAllReduce(Reduction op, Dtype dtype, const void *in,
                                    void *out, int64_t count) {
  Dtype wire = wireType(dtype);
  // A member joins the open bucket when it reduces the same way.
  if (buckets.empty() || buckets.back().issued || buckets.back().wire != wire ||
      buckets.back().op != op) {
    if (!buckets.empty() && !buckets.back().issued)
      issue(buckets.back());
    buckets.emplace_back();
    buckets.back().wire = wire;
    buckets.back().op = op;
  }
  Bucket &b = buckets.back();
  int64_t handle = nextHandle++;
  b.members.push_back({in, out, count, dtype, handle});
  if (backend->onDevice()) {
    // A device bucket is its members (no packing); its size is theirs.
    b.deviceBytes += count * dtypeBytes(dtype);
    if (b.deviceBytes >= bucketLimitBytes)
      issue(b);
    return handle;
  }
  backend->progress();
  size_t at = b.data.size();
  b.data.resize(at + size_t(count * dtypeBytes(wire)));
  if (dtype == Dtype::bf16) {
    float *dst = reinterpret_cast<float *>(b.data.data() + at);
    const uint16_t *src = static_cast<const uint16_t *>(in);
    for (int64_t i = 0; i < count; ++i)
      dst[i] = bf16ToF32(src[i]);
  } else {
    std::memcpy(b.data.data() + at, in, size_t(count * dtypeBytes(dtype)));
  }
  if (int64_t(b.data.size()) >= bucketLimitBytes)
    issue(b);
  return handle;
}

void Collectives::wait(int64_t handle) {
  for (Bucket &b : buckets) {
    if (b.members.empty() || handle < b.members.front().handle ||
        handle > b.members.back().handle)
      continue;
    if (!b.issued)
      issue(b);
    if (!b.done)
      finish(b);
    break;
  }
  while (!buckets.empty() && buckets.front().done)
    buckets.pop_front();
}

void Collectives::allGather(Dtype dtype, const void *in, void *out,
                            int64_t count) {
  std::string error;
  WaitClock clock(waitSeconds, waitingSinceNs);
  int64_t bytes = count * dtypeBytes(dtype);
  if (bytes > INT_MAX)
    fail("an all-gather of " + std::to_string(bytes) + " bytes is too large");
  bool ok = backend->onDevice()
                ? backend->deviceAllGather(in, out, bytes, error)
                : backend->allGather(in, out, bytes, error);
  if (!ok)
    fail(error);
}

void Collectives::shard(const void *in, void *out, int64_t bytes) {
  const void *mine = static_cast<const unsigned char *>(in) + rank() * bytes;
  std::string error;
  if (!backend->onDevice())
    std::memcpy(out, mine, size_t(bytes));
  else if (!backend->deviceCopy(out, mine, bytes, error))
    fail(error);
}

void Collectives::setWatchdogSeconds(double seconds) {
  watchdogSeconds.store(seconds);
  if (watchdogStarted || seconds <= 0 || size() < 2)
    return;
  watchdogStarted = true;
  // Detached: it sleeps until the process ends. It does not call into MPI
  // (the main thread is inside it); mpirun ends the job when a rank exits.
  std::thread([this] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      double limit = watchdogSeconds.load();
      int64_t since = waitingSinceNs.load();
      if (limit <= 0 || since == 0 || double(nowNs() - since) * 1e-9 <= limit)
        continue;
      std::string others =
          size() == 2 ? std::string("the other rank")
                      : "the other " + std::to_string(size() - 1) + " ranks";
      const char *where = waitingOnDevice.load()
                              ? "for the device's step, whose collectives "
                                "wait"
                              : "in a collective of the step";
      std::fprintf(stderr,
                   "gptc: rank %d: error: waited %.0f s %s for %s (one "
                   "stopped, hung or died; --collective-timeout %g); ending "
                   "the job\n",
                   rank(), double(nowNs() - since) * 1e-9, where,
                   others.c_str(), limit);
      std::fflush(stderr);
      std::_Exit(1);
    }
  }).detach();
}

Collectives::DeviceWait::DeviceWait(Collectives &r)
    : ranks(r.size() > 1 ? &r : nullptr) {
  if (!ranks)
    return;
  ranks->waitingOnDevice.store(true);
  ranks->waitingSinceNs.store(nowNs());
}

Collectives::DeviceWait::~DeviceWait() {
  if (!ranks)
    return;
  ranks->waitingSinceNs.store(0);
  ranks->waitingOnDevice.store(false);
}

double Collectives::takeWaitSeconds() {
  double s = waitSeconds;
  waitSeconds = 0.0;
  return s;
}

} // namespace comm
} // namespace runtime
} // namespace gptc

using gptc::runtime::comm::Collectives;
using gptc::runtime::comm::Dtype;
using gptc::runtime::comm::Reduction;

extern "C" {

int64_t gptc_comm_all_reduce_start(int64_t kind, int64_t dtype, uintptr_t in,
                                   uintptr_t out, int64_t count) {
  return Collectives::get().startAllReduce(
      Reduction(kind), Dtype(dtype), reinterpret_cast<const void *>(in),
      reinterpret_cast<void *>(out), count);
}

void gptc_comm_wait(int64_t handle, uintptr_t, uintptr_t) {
  Collectives::get().wait(handle);
}

void gptc_comm_all_gather(int64_t dtype, uintptr_t in, uintptr_t out,
                          int64_t count) {
  Collectives::get().allGather(Dtype(dtype), reinterpret_cast<const void *>(in),
                               reinterpret_cast<void *>(out), count);
}

void gptc_comm_shard(uintptr_t in, uintptr_t out, int64_t bytes) {
  Collectives::get().shard(reinterpret_cast<const void *>(in),
                           reinterpret_cast<void *>(out), bytes);
}

} // extern "C"
