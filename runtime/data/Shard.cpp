//===- Shard.cpp - Token shards (.bin) ------------------------------------===//

#include "runtime/data/Shard.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Token bodies are mapped and written as host uint16: that is the file's
// little-endian layout only on a little-endian host.
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gptc's shard reader assumes a little-endian host"
#endif

namespace gptc {
namespace data {

namespace {

std::string sysError(const std::string &path, const char *what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

int32_t loadLE32(const unsigned char *p) {
  uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
               uint32_t(p[3]) << 24;
  return int32_t(v);
}

void storeLE32(unsigned char *p, int32_t value) {
  uint32_t v = uint32_t(value);
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = (v >> 24) & 0xff;
}

/// Checks a header (`got` bytes of it were read) against a file of
/// `fileSize` bytes.
bool checkHeader(const std::string &path, const unsigned char *header,
                 size_t got, uint64_t fileSize, uint64_t &numTokens,
                 std::string &error) {
  if (got < kShardHeaderBytes) {
    error = path + ": truncated header (" + std::to_string(got) + " of " +
            std::to_string(kShardHeaderBytes) + " bytes)";
    return false;
  }
  int32_t magic = loadLE32(header);
  if (magic != kShardMagic) {
    error = path + ": bad magic " + std::to_string(magic) + " (expected " +
            std::to_string(kShardMagic) + "); not a token shard";
    return false;
  }
  int32_t version = loadLE32(header + 4);
  if (version != kShardVersion) {
    error = path + ": unsupported version " + std::to_string(version) +
            " (expected " + std::to_string(kShardVersion) + ")";
    return false;
  }
  int32_t count = loadLE32(header + 8);
  if (count < 0) {
    error = path + ": negative token count " + std::to_string(count);
    return false;
  }
  uint64_t expected = kShardHeaderBytes + 2 * uint64_t(count);
  if (fileSize != expected) {
    error = path + ": size mismatch: header says " + std::to_string(count) +
            " tokens (1024 + 2*" + std::to_string(count) + " = " +
            std::to_string(expected) + " bytes) but the file has " +
            std::to_string(fileSize) + " bytes" +
            (fileSize < expected ? " (body truncated)" : " (trailing bytes)");
    return false;
  }
  numTokens = uint64_t(count);
  return true;
}

/// Opens `path`, reads its header and checks it against the file size.
/// Returns the open descriptor, or -1 after setting `error`.
int openChecked(const std::string &path, uint64_t &numTokens,
                std::string &error) {
  // Checked before opening: opening a FIFO for reading would block until a
  // writer came (O_NONBLOCK covers a file swapped in between).
  struct stat before;
  if (::stat(path.c_str(), &before) != 0) {
    if (errno == ELOOP) {
      error = path + ": a symbolic link loop";
      return -1;
    }
  } else if (!S_ISREG(before.st_mode)) {
    error = path + ": not a regular file (" +
            (S_ISFIFO(before.st_mode)  ? "a FIFO"
             : S_ISDIR(before.st_mode) ? "a directory"
                                       : "a device or socket") +
            ")";
    return -1;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = sysError(path, "cannot open");
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = sysError(path, "cannot stat");
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    ::close(fd);
    return -1;
  }
  unsigned char header[kShardHeaderBytes];
  size_t got = 0;
  while (got < kShardHeaderBytes) {
    ssize_t r = ::read(fd, header + got, kShardHeaderBytes - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      error = sysError(path, "cannot read");
      ::close(fd);
      return -1;
    }
    if (r == 0)
      break;
    got += size_t(r);
  }
  if (!checkHeader(path, header, got, uint64_t(st.st_size), numTokens, error)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

} // namespace

bool writeShard(const std::string &path, const uint16_t *tokens, size_t n,
                std::string &error) {
  if (n > kMaxShardTokens) {
    error = path + ": cannot write " + std::to_string(n) +
            " tokens; a shard holds at most " + std::to_string(kMaxShardTokens);
    return false;
  }
  unsigned char header[kShardHeaderBytes] = {};
  storeLE32(header, kShardMagic);
  storeLE32(header + 4, kShardVersion);
  storeLE32(header + 8, int32_t(n));

  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    error = sysError(tmp, "cannot create");
    return false;
  }
  bool ok = std::fwrite(header, 1, sizeof(header), f) == sizeof(header) &&
            (n == 0 || std::fwrite(tokens, sizeof(uint16_t), n, f) == n) &&
            std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (!ok)
    error = sysError(tmp, "cannot write");
  if (std::fclose(f) != 0 && ok) {
    error = sysError(tmp, "cannot write");
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = sysError(path, ("cannot rename " + tmp + " to it").c_str());
    ok = false;
  }
  if (!ok)
    std::remove(tmp.c_str());
  return ok;
}

bool readShardHeader(const std::string &path, uint64_t &numTokens,
                     std::string &error) {
  int fd = openChecked(path, numTokens, error);
  if (fd < 0)
    return false;
  ::close(fd);
  return true;
}

bool readShard(const std::string &path, std::vector<uint16_t> &tokens,
               std::string &error) {
  uint64_t n = 0;
  int fd = openChecked(path, n, error);
  if (fd < 0)
    return false;
  tokens.resize(n);
  // The descriptor is positioned right after the header.
  char *dst = reinterpret_cast<char *>(tokens.data());
  size_t want = n * sizeof(uint16_t), got = 0;
  while (got < want) {
    ssize_t r = ::read(fd, dst + got, want - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      error = r < 0 ? sysError(path, "cannot read")
                    : path + ": file shrank while reading";
      ::close(fd);
      tokens.clear();
      return false;
    }
    got += size_t(r);
  }
  ::close(fd);
  return true;
}

Shard::Shard(Shard &&other) noexcept { *this = std::move(other); }

Shard &Shard::operator=(Shard &&other) noexcept {
  if (this != &other) {
    close();
    filePath = std::move(other.filePath);
    base = std::exchange(other.base, nullptr);
    fd = std::exchange(other.fd, -1);
    mappedBytes = std::exchange(other.mappedBytes, 0);
    tokenPtr = std::exchange(other.tokenPtr, nullptr);
    numTokens = std::exchange(other.numTokens, 0);
  }
  return *this;
}

bool Shard::open(const std::string &path, std::string &error) {
  close();
  uint64_t n = 0;
  int fd = openChecked(path, n, error);
  if (fd < 0)
    return false;
  size_t bytes = kShardHeaderBytes + n * sizeof(uint16_t);
  void *p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  int mmapErrno = errno;
  if (p == MAP_FAILED) {
    ::close(fd);
    errno = mmapErrno;
    error = sysError(path, "cannot mmap");
    return false;
  }
  this->fd = fd;
  ::madvise(p, bytes, MADV_SEQUENTIAL);
  filePath = path;
  base = p;
  mappedBytes = bytes;
  tokenPtr = reinterpret_cast<const uint16_t *>(static_cast<const char *>(p) +
                                                kShardHeaderBytes);
  numTokens = n;
  return true;
}

bool Shard::read(uint64_t start, size_t count, uint16_t *out,
                 std::string &error) const {
  const size_t bytes = count * sizeof(uint16_t);
  const off_t offset = off_t(kShardHeaderBytes + start * sizeof(uint16_t));
  size_t got = 0;
  while (got < bytes) {
    ssize_t r = ::pread(fd, reinterpret_cast<char *>(out) + got, bytes - got,
                        offset + off_t(got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      error =
          r < 0
              ? sysError(filePath, "cannot read")
              : filePath + ": the shard shrank while training (" +
                    std::to_string(numTokens) + " tokens when opened; token " +
                    std::to_string(start + got / 2) + " is past its end now)";
      return false;
    }
    got += size_t(r);
  }
  return true;
}

void Shard::close() {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
  if (base)
    ::munmap(base, mappedBytes);
  base = nullptr;
  mappedBytes = 0;
  tokenPtr = nullptr;
  numTokens = 0;
  filePath.clear();
}

bool expandShardGlob(const std::string &pattern,
                     std::vector<std::string> &paths, std::string &error) {
  paths.clear();
  glob_t g;
  std::memset(&g, 0, sizeof(g));
  int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i)
      paths.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  if (rc == GLOB_NOMATCH || (rc == 0 && paths.empty())) {
    error = pattern + ": no files match (make token shards with gptc data "
                      "TEXT... -o DIR; see gptc data --help)";
    return false;
  }
  if (rc != 0) {
    error = pattern + ": cannot expand the pattern (" +
            (rc == GLOB_ABORTED ? "read error" : "out of memory") + ")";
    return false;
  }
  // Byte order, independent of the locale.
  std::sort(paths.begin(), paths.end());
  return true;
}

} // namespace data
} // namespace gptc
