//===- NcclTransport.cpp - How the emulated NCCL's ranks meet -------------===//
//
// The bootstrap (a TCP listener named by the unique id), the host each rank
// is on (NCCL_HOSTID, else the host name and boot id, as NCCL's host hash),
// and the two transports: a shared-memory segment with a barrier when every
// rank is on one host, the bootstrap sockets through rank 0 otherwise.
//
//===----------------------------------------------------------------------===//

#include "emu/NcclTransport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>

namespace gptc::emu::nccl {
namespace {

/// Where the unique id keeps the bootstrap listener's address.
constexpr size_t kAddressOffset = 64;
constexpr uint32_t kHelloMagic = 0x6e63636c; // "nccl"

/// What a rank tells rank 0 when it joins.
struct Hello {
  uint32_t magic;
  int32_t rank, nranks;
  char host[180];
};

/// Rank 0's answer: whether the ranks meet in shared memory.
struct Reply {
  uint32_t magic;
  uint32_t sameHost;
};

/// The bootstrap listeners this process opened, by shared-memory name.
std::map<std::string, int> &listeners() {
  static std::map<std::string, int> open;
  return open;
}

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// The host this process is on: NCCL_HOSTID, else host name and boot id.
std::string hostIdentity() {
  if (const char *id = std::getenv("NCCL_HOSTID"); id && *id)
    return id;
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return std::string(name) + "/" + boot;
}

/// Whether interface `name` is one NCCL_SOCKET_IFNAME allows ("eth,ib":
/// prefixes, "^docker": all but, "=eth0": exactly).
bool interfaceAllowed(const std::string &name, const char *spec) {
  std::string s = spec;
  bool exclude = !s.empty() && s[0] == '^';
  if (exclude)
    s.erase(0, 1);
  bool exact = !s.empty() && s[0] == '=';
  if (exact)
    s.erase(0, 1);
  bool listed = false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    std::string item = s.substr(start, end - start);
    if (!item.empty() && (exact ? name == item : name.rfind(item, 0) == 0))
      listed = true;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return exclude ? !listed : listed;
}

/// The IPv4 address the bootstrap listens on: false when
/// NCCL_SOCKET_IFNAME names no interface that is up (as NCCL refuses it).
bool listenAddress(in_addr &found) {
  found = {htonl(INADDR_LOOPBACK)};
  const char *spec = std::getenv("NCCL_SOCKET_IFNAME");
  ifaddrs *all = nullptr;
  if (getifaddrs(&all) != 0)
    return !(spec && *spec);
  bool chosen = false;
  for (ifaddrs *i = all; i && !chosen; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
        !(i->ifa_flags & IFF_UP))
      continue;
    std::string name = i->ifa_name;
    bool ok = spec && *spec ? interfaceAllowed(name, spec)
                            : !(i->ifa_flags & IFF_LOOPBACK) &&
                                  name.rfind("docker", 0) != 0;
    if (ok) {
      found = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr;
      chosen = true;
    }
  }
  freeifaddrs(all);
  if (!chosen && spec && *spec) {
    std::fprintf(stderr,
                 "NCCL WARN (emulated) NCCL_SOCKET_IFNAME=%s: no IPv4 "
                 "interface that is up matches\n",
                 spec);
    return false;
  }
  return true;
}

/// Waits until `fd` is ready for `events` or the deadline passes.
bool ready(int fd, short events, double deadline) {
  for (;;) {
    double left = deadline - now();
    if (left <= 0)
      return false;
    pollfd p = {fd, events, 0};
    int rc = poll(&p, 1, int(std::min(left, 1.0) * 1000) + 1);
    if (rc > 0)
      return true;
    if (rc < 0 && errno != EINTR)
      return false;
  }
}

bool sendAll(int fd, const void *data, size_t bytes, double deadline) {
  const auto *p = static_cast<const uint8_t *>(data);
  while (bytes > 0) {
    if (!ready(fd, POLLOUT, deadline))
      return false;
    ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

bool recvAll(int fd, void *data, size_t bytes, double deadline) {
  auto *p = static_cast<uint8_t *>(data);
  while (bytes > 0) {
    if (!ready(fd, POLLIN, deadline))
      return false;
    ssize_t n = recv(fd, p, bytes, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0) // 0: the peer closed its end
      return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

void noDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/// A connection to rank 0's listener, retried until the deadline (each
/// try non-blocking, so that a peer whose packets vanish costs no more).
int connectTo(const sockaddr_in &root, double deadline) {
  while (now() < deadline) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -1;
    int rc =
        connect(fd, reinterpret_cast<const sockaddr *>(&root), sizeof(root));
    int failure = 0;
    socklen_t length = sizeof(failure);
    if (rc != 0 && errno == EINPROGRESS && ready(fd, POLLOUT, deadline) &&
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 &&
        failure == 0)
      rc = 0;
    if (rc == 0) {
      noDelay(fd);
      return fd;
    }
    close(fd);
    timespec pause = {0, 50000000};
    nanosleep(&pause, nullptr);
  }
  return -1;
}

/// Every rank arrives before any leaves (sense reversal by generation);
/// false after the timeout.
bool barrier(ncclComm *c) {
  Header *h = c->header;
  uint32_t gen = h->generation.load(std::memory_order_acquire);
  if (h->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      uint32_t(c->nranks)) {
    h->arrived.store(0, std::memory_order_relaxed);
    h->generation.fetch_add(1, std::memory_order_acq_rel);
    return true;
  }
  double deadline = now() + timeoutSeconds();
  for (unsigned spin = 0; h->generation.load(std::memory_order_acquire) == gen;
       ++spin) {
    if (spin > 1000) {
      timespec pause = {0, 50000};
      nanosleep(&pause, nullptr);
      if (now() > deadline)
        return false;
    }
  }
  return true;
}

void closePeers(ncclComm *c) {
  for (int fd : c->peers)
    if (fd >= 0)
      close(fd);
  c->peers.clear();
}

/// Rank 0's side of the bootstrap: every other rank's hello, then the
/// answer. `sameHost` says whether all ranks are on this host.
ncclResult_t acceptRanks(ncclComm *c, const std::string &name, bool &sameHost) {
  auto it = listeners().find(name);
  if (it == listeners().end()) {
    std::fprintf(stderr, "NCCL WARN (emulated) rank 0 must run in the process "
                         "that called ncclGetUniqueId\n");
    return ncclInvalidUsage;
  }
  int listener = it->second;
  // The listener's work ends here, however it ends: a rank still to come
  // is refused at once rather than left waiting for an answer.
  struct CloseListener {
    std::string name;
    int fd;
    ~CloseListener() {
      close(fd);
      listeners().erase(name);
    }
  } closeListener{name, listener};
  double deadline = now() + timeoutSeconds();
  // Compared as the hello carries it.
  std::string me = hostIdentity().substr(0, sizeof(Hello::host) - 1);
  c->peers.assign(size_t(c->nranks), -1);
  sameHost = true;
  for (int joined = 1; joined < c->nranks; ++joined) {
    if (!ready(listener, POLLIN, deadline))
      return ncclRemoteError;
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      return ncclSystemError;
    noDelay(fd);
    Hello hello = {};
    if (!recvAll(fd, &hello, sizeof(hello), deadline) ||
        hello.magic != kHelloMagic) {
      close(fd);
      return ncclRemoteError;
    }
    hello.host[sizeof(hello.host) - 1] = '\0';
    if (hello.nranks != c->nranks || hello.rank <= 0 ||
        hello.rank >= c->nranks || c->peers[size_t(hello.rank)] >= 0) {
      close(fd);
      return ncclInvalidUsage;
    }
    c->peers[size_t(hello.rank)] = fd;
    sameHost = sameHost && me == hello.host;
  }
  Reply reply = {kHelloMagic, sameHost ? 1u : 0u};
  for (int r = 1; r < c->nranks; ++r)
    if (!sendAll(c->peers[size_t(r)], &reply, sizeof(reply), deadline))
      return ncclRemoteError;
  return ncclSuccess;
}

/// Another rank's side: hello to rank 0, its answer back.
ncclResult_t greetRoot(ncclComm *c, const sockaddr_in &root, bool &sameHost) {
  double deadline = now() + timeoutSeconds();
  int fd = connectTo(root, deadline);
  if (fd < 0)
    return ncclRemoteError;
  c->peers.assign(1, fd);
  Hello hello = {kHelloMagic, c->rank, c->nranks, {}};
  std::snprintf(hello.host, sizeof(hello.host), "%s", hostIdentity().c_str());
  Reply reply = {};
  if (!sendAll(fd, &hello, sizeof(hello), deadline) ||
      !recvAll(fd, &reply, sizeof(reply), deadline) ||
      reply.magic != kHelloMagic)
    return ncclRemoteError;
  sameHost = reply.sameHost != 0;
  return ncclSuccess;
}

/// The shared-memory segment `name`, every rank mapped before any uses it.
ncclResult_t mapSegment(ncclComm *c, const std::string &name) {
  size_t bytes = 4096 + size_t(c->nranks) * kSlotBytes;
  int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0)
    return ncclSystemError;
  // Backed now, or an error now (a small /dev/shm), not SIGBUS later.
  if (posix_fallocate(fd, 0, off_t(bytes)) != 0) {
    close(fd);
    shm_unlink(name.c_str());
    return ncclSystemError;
  }
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return ncclSystemError;
  c->header = static_cast<Header *>(p);
  c->slots = static_cast<uint8_t *>(p) + 4096;
  c->mapped = bytes;
  if (!barrier(c)) {
    shm_unlink(name.c_str());
    return ncclRemoteError;
  }
  // Nobody opens it by name any more: the name can go.
  if (c->rank == 0)
    shm_unlink(name.c_str());
  return ncclSuccess;
}

/// This rank's private copy of every rank's slot, for the sockets.
ncclResult_t mapPrivateSlots(ncclComm *c) {
  size_t bytes = 4096 + size_t(c->nranks) * kSlotBytes;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return ncclSystemError;
  c->header = static_cast<Header *>(p);
  c->slots = static_cast<uint8_t *>(p) + 4096;
  c->mapped = bytes;
  c->overSockets = true;
  return ncclSuccess;
}

} // namespace

double timeoutSeconds() {
  const char *v = std::getenv("GPTC_EMU_NCCL_TIMEOUT");
  double s = v ? std::atof(v) : 0.0;
  return s > 0 ? s : 120.0;
}

ncclResult_t makeUniqueId(ncclUniqueId *id) {
  std::memset(id->internal, 0, sizeof(id->internal));
  std::random_device entropy;
  std::snprintf(id->internal, kAddressOffset, "/gptc-emu-nccl-%d-%08x%08x",
                int(getpid()), entropy(), entropy());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return ncclSystemError;
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  if (!listenAddress(address.sin_addr)) {
    close(fd);
    return ncclInvalidArgument;
  }
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0 ||
      listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
    close(fd);
    return ncclSystemError;
  }
  std::memcpy(id->internal + kAddressOffset, &address, sizeof(address));
  listeners()[id->internal] = fd;
  return ncclSuccess;
}

ncclResult_t joinComm(ncclComm *c, int nranks, const ncclUniqueId &id,
                      int rank) {
  std::string name(id.internal, strnlen(id.internal, kAddressOffset));
  if (name.rfind("/gptc-emu-nccl-", 0) != 0)
    return ncclInvalidArgument;
  sockaddr_in root;
  std::memcpy(&root, id.internal + kAddressOffset, sizeof(root));
  if (root.sin_family != AF_INET)
    return ncclInvalidArgument;
  c->nranks = nranks;
  c->rank = rank;
  bool sameHost = true;
  ncclResult_t rc = ncclSuccess;
  if (nranks == 1) // nobody will connect: the listener can go
    if (auto it = listeners().find(name); it != listeners().end()) {
      close(it->second);
      listeners().erase(it);
    }
  if (nranks > 1)
    rc = rank == 0 ? acceptRanks(c, name, sameHost)
                   : greetRoot(c, root, sameHost);
  if (rc == ncclSuccess && sameHost) {
    closePeers(c);
    rc = mapSegment(c, name);
  } else if (rc == ncclSuccess) {
    rc = mapPrivateSlots(c);
  }
  if (rc != ncclSuccess)
    leaveComm(c);
  return rc;
}

bool share(ncclComm *c, size_t bytes) {
  if (!c->overSockets)
    return barrier(c);
  double deadline = now() + timeoutSeconds();
  if (c->rank != 0) {
    if (!sendAll(c->peers[0], c->slots + size_t(c->rank) * kSlotBytes, bytes,
                 deadline))
      return false;
    for (int r = 0; r < c->nranks; ++r)
      if (!recvAll(c->peers[0], c->slots + size_t(r) * kSlotBytes, bytes,
                   deadline))
        return false;
    return true;
  }
  for (int r = 1; r < c->nranks; ++r)
    if (!recvAll(c->peers[size_t(r)], c->slots + size_t(r) * kSlotBytes, bytes,
                 deadline))
      return false;
  for (int to = 1; to < c->nranks; ++to)
    for (int r = 0; r < c->nranks; ++r)
      if (!sendAll(c->peers[size_t(to)], c->slots + size_t(r) * kSlotBytes,
                   bytes, deadline))
        return false;
  return true;
}

bool release(ncclComm *c) { return c->overSockets || barrier(c); }

void leaveComm(ncclComm *c) {
  closePeers(c);
  if (c->header)
    munmap(c->header, c->mapped);
  c->header = nullptr;
  c->slots = nullptr;
}

} // namespace gptc::emu::nccl
