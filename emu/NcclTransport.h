//===- NcclTransport.h - How the emulated NCCL's ranks meet -----*- C++ -*-===//
//
// The communicator of the emulated libnccl.so.2 and the two ways its ranks
// exchange data, chosen as NCCL chooses between its intra-node and network
// transports: by host. Every rank first connects over TCP to a bootstrap
// listener that ncclGetUniqueId opened (its address is in the unique id,
// as NCCL's bootstrap root's is) and says which host it is on; when all
// ranks share one host they meet in a POSIX shared-memory segment, when
// any is elsewhere every collective travels over the bootstrap sockets
// through rank 0. Both give every rank every slot in rank order, so the
// results are the same bits either way.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_NCCLTRANSPORT_H
#define GPTC_EMU_NCCLTRANSPORT_H

#include <nccl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gptc::emu::nccl {

/// The most a rank contributes to one round of a collective.
constexpr size_t kSlotBytes = 4u << 20;

/// The barrier at the start of a shared-memory segment.
struct Header {
  std::atomic<uint32_t> arrived;
  std::atomic<uint32_t> generation;
};

/// Seconds a rank waits for its peers (GPTC_EMU_NCCL_TIMEOUT, 120).
double timeoutSeconds();

} // namespace gptc::emu::nccl

struct ncclComm {
  int nranks = 0, rank = 0;
  /// Shared memory: the barrier, then one slot per rank. Sockets: this
  /// rank's private copy of every rank's slot (the header unused).
  gptc::emu::nccl::Header *header = nullptr;
  uint8_t *slots = nullptr;
  size_t mapped = 0;
  /// Over sockets: rank 0 holds one connection per rank (peers[0] = -1),
  /// every other rank its connection to rank 0 (peers[0]).
  bool overSockets = false;
  std::vector<int> peers;
  ncclResult_t asyncError = ncclSuccess;
};

namespace gptc::emu::nccl {

/// A new unique id: a shared-memory name and the address of a bootstrap
/// listener this process opens (on NCCL_SOCKET_IFNAME's interface, else
/// the first IPv4 interface that is up and not loopback, else loopback).
ncclResult_t makeUniqueId(ncclUniqueId *id);

/// Rank `rank` of `nranks` joins the communicator of `id`: the bootstrap,
/// then shared memory (one host) or sockets (several). Rank 0 must run in
/// the process that made the id (it holds the listener).
ncclResult_t joinComm(ncclComm *c, int nranks, const ncclUniqueId &id,
                      int rank);

/// After each rank wrote the first `bytes` of its own slot: every rank's
/// slot readable in `c->slots`. False when a peer is gone or late.
bool share(ncclComm *c, size_t bytes);

/// Every rank has read the slots: they may be written again.
bool release(ncclComm *c);

/// Unmaps and closes what `joinComm` opened.
void leaveComm(ncclComm *c);

} // namespace gptc::emu::nccl

#endif // GPTC_EMU_NCCLTRANSPORT_H
