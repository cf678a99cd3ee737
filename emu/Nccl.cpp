//===- Nccl.cpp - The emulated libnccl.so.2 -------------------------------===//
//
// NCCL 2.28's communicator API (nccl.h's names, signatures and result
// codes) between processes, on one machine or several, for ranks that each
// run on their own emulated CUDA device. Buffers are device pointers of the
// emulated libcuda.so.1, translated and range-checked through
// gptcEmuTranslate (a pointer outside a live allocation of the right size
// is ncclInvalidArgument, as compute-sanitizer would flag the real
// library's access). Launches on the emulated device run when they are
// made, so a collective runs when it is called: stream order holds. On a
// stream that is capturing a graph, a collective is checked when called
// and recorded as a node of the graph (gptcEmuStreamRecord), as NCCL
// records its kernel: it runs, and meets the other ranks, at each replay.
//
// The ranks meet as emu/NcclTransport.h says: a bootstrap over TCP, then
// shared memory on one host or sockets across hosts. A collective moves its
// data in rounds of one slot per rank: each rank writes its chunk into its
// slot, `share` makes every slot readable to every rank, each computes the
// result from every slot in rank order (so every rank gets the same bits,
// on either transport: sums in f32 for bf16, in the type otherwise), and
// `release` lets the slots be written again. A rank that does not come
// within GPTC_EMU_NCCL_TIMEOUT seconds (default 120), or whose connection
// closes, fails the collective with ncclRemoteError, which
// ncclCommGetAsyncError reports from then on: nothing waits forever for a
// dead peer.
//
//===----------------------------------------------------------------------===//

#include "emu/NcclTransport.h"
#include "emu/gptc_emu.h"
#include "runtime/cpu/Bf16.h"

#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

using gptc::emu::nccl::kSlotBytes;
using gptc::emu::nccl::release;
using gptc::emu::nccl::share;

namespace {

size_t typeBytes(ncclDataType_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64:
    return 8;
  default:
    return 0;
  }
}

/// The host address of a device buffer, or null.
uint8_t *hostOf(const void *dev, size_t bytes) {
  if (bytes == 0)
    return nullptr;
  return static_cast<uint8_t *>(
      gptcEmuTranslate(reinterpret_cast<uint64_t>(dev), bytes));
}

ncclResult_t fail(ncclComm *c, ncclResult_t r) {
  if (c && c->asyncError == ncclSuccess && r == ncclRemoteError)
    c->asyncError = r;
  return r;
}

template <typename T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// acc = acc (op) v, in the type's arithmetic (f32 for bf16).
template <typename T> T combine(T acc, T v, ncclRedOp_t op) {
  switch (op) {
  case ncclProd:
    return acc * v;
  case ncclMax:
    return v > acc ? v : acc;
  case ncclMin:
    return v < acc ? v : acc;
  default:
    return acc + v;
  }
}

template <typename T>
void reduceInto(uint8_t *out, const uint8_t *slots, size_t count, int nranks,
                ncclRedOp_t op) {
  for (size_t i = 0; i < count; ++i) {
    T acc = load<T>(slots + i * sizeof(T));
    for (int r = 1; r < nranks; ++r)
      acc = combine(acc, load<T>(slots + r * kSlotBytes + i * sizeof(T)), op);
    if (op == ncclAvg)
      acc = acc / T(nranks);
    std::memcpy(out + i * sizeof(T), &acc, sizeof(T));
  }
}

void reduceBf16(uint8_t *out, const uint8_t *slots, size_t count, int nranks,
                ncclRedOp_t op) {
  for (size_t i = 0; i < count; ++i) {
    float acc = gptc::runtime::bf16ToF32(load<uint16_t>(slots + i * 2));
    for (int r = 1; r < nranks; ++r)
      acc = combine(acc,
                    gptc::runtime::bf16ToF32(
                        load<uint16_t>(slots + r * kSlotBytes + i * 2)),
                    op);
    if (op == ncclAvg)
      acc = acc / float(nranks);
    uint16_t h = gptc::runtime::f32ToBf16(acc);
    std::memcpy(out + i * 2, &h, 2);
  }
}

/// The types reductions support here (not f16 and fp8).
bool reducible(ncclDataType_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
  case ncclInt32:
  case ncclUint32:
  case ncclInt64:
  case ncclUint64:
  case ncclFloat32:
  case ncclFloat64:
  case ncclBfloat16:
    return true;
  default:
    return false;
  }
}

bool validOp(ncclRedOp_t op) { return op >= ncclSum && op < ncclNumOps; }

bool reduceChunk(uint8_t *out, const uint8_t *slots, size_t count,
                 ncclDataType_t t, int nranks, ncclRedOp_t op) {
  switch (t) {
  case ncclInt8:
    reduceInto<int8_t>(out, slots, count, nranks, op);
    return true;
  case ncclUint8:
    reduceInto<uint8_t>(out, slots, count, nranks, op);
    return true;
  case ncclFloat32:
    reduceInto<float>(out, slots, count, nranks, op);
    return true;
  case ncclFloat64:
    reduceInto<double>(out, slots, count, nranks, op);
    return true;
  case ncclInt32:
    reduceInto<int32_t>(out, slots, count, nranks, op);
    return true;
  case ncclUint32:
    reduceInto<uint32_t>(out, slots, count, nranks, op);
    return true;
  case ncclInt64:
    reduceInto<int64_t>(out, slots, count, nranks, op);
    return true;
  case ncclUint64:
    reduceInto<uint64_t>(out, slots, count, nranks, op);
    return true;
  case ncclBfloat16:
    reduceBf16(out, slots, count, nranks, op);
    return true;
  default:
    return false;
  }
}

bool validComm(ncclComm *c) { return c && c->header && c->nranks > 0; }

/// out[r] = what rank r put in: an all-gather of `bytes` per rank, the
/// receive side given by `place(r, offset, chunk)`.
template <typename Place>
ncclResult_t exchange(ncclComm *c, const uint8_t *in, size_t bytes,
                      Place place) {
  for (size_t off = 0; off < bytes || (bytes == 0 && off == 0);
       off += kSlotBytes) {
    size_t chunk = std::min(kSlotBytes, bytes - off);
    if (chunk && in)
      std::memcpy(c->slots + size_t(c->rank) * kSlotBytes, in + off, chunk);
    if (!share(c, chunk))
      return fail(c, ncclRemoteError);
    for (int r = 0; r < c->nranks; ++r)
      place(r, off, c->slots + size_t(r) * kSlotBytes, chunk);
    if (!release(c))
      return fail(c, ncclRemoteError);
    if (bytes == 0)
      break;
  }
  return ncclSuccess;
}

using Collective = std::function<ncclResult_t()>;

/// Runs `run` now, or records it as the next node of the graph `stream`
/// is capturing.
ncclResult_t runOrRecord(cudaStream_t stream, Collective run) {
  auto *work = new Collective(std::move(run));
  auto call = [](void *w) {
    return (*static_cast<Collective *>(w))() == ncclSuccess ? 0 : 1;
  };
  auto drop = [](void *w) { delete static_cast<Collective *>(w); };
  if (gptcEmuStreamRecord(reinterpret_cast<CUstream_st *>(stream), call, work,
                          drop))
    return ncclSuccess;
  ncclResult_t result = (*work)();
  delete work;
  return result;
}

/// GPTC_EMU_NCCL_HANG=N: this process's N-th all-reduce never returns, as
/// on a GPU that hung or a rank stopped inside its step (the other ranks
/// wait for it until GPTC_EMU_NCCL_TIMEOUT, or their own watchdog).
void hangWhereAsked() {
  static const int64_t at = [] {
    const char *v = std::getenv("GPTC_EMU_NCCL_HANG");
    return v ? std::atoll(v) : 0;
  }();
  static std::atomic<int64_t> calls{0};
  if (at > 0 && calls.fetch_add(1) + 1 == at)
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
}

ncclResult_t allReduceNow(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclRedOp_t op,
                          ncclComm *comm) {
  hangWhereAsked();
  size_t size = typeBytes(datatype), bytes = count * size;
  const uint8_t *in = hostOf(sendbuff, bytes);
  uint8_t *out = hostOf(recvbuff, bytes);
  if (size == 0 || (bytes && (!in || !out)))
    return ncclInvalidArgument;
  size_t per = kSlotBytes / size;
  for (size_t first = 0; first < count; first += per) {
    size_t n = std::min(per, count - first);
    std::memcpy(comm->slots + size_t(comm->rank) * kSlotBytes,
                in + first * size, n * size);
    if (!share(comm, n * size))
      return fail(comm, ncclRemoteError);
    reduceChunk(out + first * size, comm->slots, n, datatype, comm->nranks, op);
    if (!release(comm))
      return fail(comm, ncclRemoteError);
  }
  return ncclSuccess;
}

ncclResult_t allGatherNow(const void *sendbuff, void *recvbuff, size_t bytes,
                          ncclComm *comm) {
  const uint8_t *in = hostOf(sendbuff, bytes);
  uint8_t *out = hostOf(recvbuff, bytes * size_t(comm->nranks));
  if (bytes && (!in || !out))
    return ncclInvalidArgument;
  return exchange(comm, in, bytes,
                  [&](int r, size_t off, const uint8_t *slot, size_t chunk) {
                    std::memcpy(out + size_t(r) * bytes + off, slot, chunk);
                  });
}

} // namespace

extern "C" {

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError:
    return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  default:
    return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t) { return ""; }

ncclResult_t ncclGetVersion(int *version) {
  if (!version)
    return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  if (!id)
    return ncclInvalidArgument;
  return gptc::emu::nccl::makeUniqueId(id);
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank) {
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return ncclInvalidArgument;
  auto *c = new ncclComm;
  ncclResult_t rc = gptc::emu::nccl::joinComm(c, nranks, id, rank);
  if (rc != ncclSuccess) {
    delete c;
    return rc;
  }
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                    ncclUniqueId id, int rank, ncclConfig_t *) {
  return ncclCommInitRank(comm, nranks, id, rank);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  if (!validComm(comm))
    return ncclInvalidArgument;
  gptc::emu::nccl::leaveComm(comm);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return validComm(comm) ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *error) {
  if (!validComm(comm) || !error)
    return ncclInvalidArgument;
  *error = comm->asyncError;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!validComm(comm) || !count)
    return ncclInvalidArgument;
  *count = comm->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!validComm(comm) || !rank)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  if (!validComm(comm) || !device)
    return ncclInvalidArgument;
  *device = 0;
  return ncclSuccess;
}

// Collectives run when called (the emulated device's stream is
// synchronous), so a group is just its calls in order.
ncclResult_t ncclGroupStart() { return ncclSuccess; }
ncclResult_t ncclGroupEnd() { return ncclSuccess; }

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  if (!validComm(comm) || !validOp(op) || !reducible(datatype))
    return ncclInvalidArgument;
  size_t bytes = count * typeBytes(datatype);
  if (bytes && (!hostOf(sendbuff, bytes) || !hostOf(recvbuff, bytes)))
    return ncclInvalidArgument;
  return runOrRecord(stream, [=] {
    return allReduceNow(sendbuff, recvbuff, count, datatype, op, comm);
  });
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  if (!validComm(comm))
    return ncclInvalidArgument;
  size_t size = typeBytes(datatype), bytes = sendcount * size;
  if (size == 0 || (bytes && (!hostOf(sendbuff, bytes) ||
                              !hostOf(recvbuff, bytes * size_t(comm->nranks)))))
    return ncclInvalidArgument;
  return runOrRecord(
      stream, [=] { return allGatherNow(sendbuff, recvbuff, bytes, comm); });
}

namespace {

ncclResult_t broadcastNow(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, int root, ncclComm *comm) {
  size_t size = typeBytes(datatype), bytes = count * size;
  const uint8_t *in = comm->rank == root ? hostOf(sendbuff, bytes) : nullptr;
  uint8_t *out = hostOf(recvbuff, bytes);
  if (size == 0 || (bytes && (!out || (comm->rank == root && !in))))
    return ncclInvalidArgument;
  return exchange(comm, in, bytes,
                  [&](int r, size_t off, const uint8_t *slot, size_t chunk) {
                    if (r == root)
                      std::memmove(out + off, slot, chunk);
                  });
}

ncclResult_t reduceScatterNow(const void *sendbuff, void *recvbuff,
                              size_t recvcount, ncclDataType_t datatype,
                              ncclRedOp_t op, ncclComm *comm) {
  size_t size = typeBytes(datatype);
  size_t total = recvcount * size_t(comm->nranks);
  if (size == 0 || !hostOf(sendbuff, total * size) ||
      !hostOf(recvbuff, recvcount * size))
    return recvcount ? ncclInvalidArgument : ncclSuccess;
  // Shard r of the all-reduced input, one shard at a time.
  for (int r = 0; r < comm->nranks; ++r) {
    const uint8_t *in =
        static_cast<const uint8_t *>(sendbuff) + size_t(r) * recvcount * size;
    if (r == comm->rank) {
      ncclResult_t rc =
          allReduceNow(in, recvbuff, recvcount, datatype, op, comm);
      if (rc != ncclSuccess)
        return rc;
      continue;
    }
    // Another rank's shard: contribute to it (its owner reduces it).
    size_t per = kSlotBytes / size;
    const uint8_t *host = hostOf(in, recvcount * size);
    for (size_t first = 0; first < recvcount; first += per) {
      size_t n = std::min(per, recvcount - first);
      std::memcpy(comm->slots + size_t(comm->rank) * kSlotBytes,
                  host + first * size, n * size);
      if (!share(comm, n * size) || !release(comm))
        return fail(comm, ncclRemoteError);
    }
  }
  return ncclSuccess;
}

} // namespace

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  if (!validComm(comm) || root < 0 || root >= comm->nranks)
    return ncclInvalidArgument;
  return runOrRecord(stream, [=] {
    return broadcastNow(sendbuff, recvbuff, count, datatype, root, comm);
  });
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype,
                       int root, ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                               size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  if (!validComm(comm) || !validOp(op) || !reducible(datatype))
    return ncclInvalidArgument;
  return runOrRecord(stream, [=] {
    return reduceScatterNow(sendbuff, recvbuff, recvcount, datatype, op, comm);
  });
}

} // extern "C"
