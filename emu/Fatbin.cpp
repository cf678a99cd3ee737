//===- Fatbin.cpp - The PTX of a fatbinary image --------------------------===//
//
// See Fatbin.h.
//
//===----------------------------------------------------------------------===//

#include "emu/Fatbin.h"

#include <cstdint>
#include <cstring>

namespace gptc::emu {

namespace {

constexpr uint32_t kMagic = 0xBA55ED50;
constexpr uint16_t kKindPTX = 1;
constexpr uint64_t kCompressedFlags = 0xA000;
/// The fixed part of an entry header (PTX entries' headers are longer).
constexpr uint32_t kEntryHeaderBytes = 64;
/// A fatbinary larger than this is taken for garbage.
constexpr uint64_t kMaxBytes = uint64_t(1) << 32;

template <typename T> T read(const unsigned char *p, size_t offset) {
  T value;
  std::memcpy(&value, p + offset, sizeof(T));
  return value;
}

} // namespace

bool isFatbin(const void *image) {
  return image &&
         read<uint32_t>(static_cast<const unsigned char *>(image), 0) == kMagic;
}

bool ptxOfFatbin(const void *image, unsigned deviceArch, std::string &ptx,
                 std::string &error) {
  const auto *p = static_cast<const unsigned char *>(image);
  if (!isFatbin(image)) {
    error = "not a fatbinary";
    return false;
  }
  uint16_t headerBytes = read<uint16_t>(p, 6);
  uint64_t entryBytes = read<uint64_t>(p, 8);
  if (headerBytes < 16 || entryBytes > kMaxBytes) {
    error = "malformed fatbinary header";
    return false;
  }
  uint64_t end = headerBytes + entryBytes, at = headerBytes;
  unsigned best = 0;
  const unsigned char *bestText = nullptr;
  uint64_t bestBytes = 0;
  while (at < end) {
    if (end - at < kEntryHeaderBytes) {
      error = "truncated fatbinary entry";
      return false;
    }
    const unsigned char *e = p + at;
    uint16_t kind = read<uint16_t>(e, 0);
    uint32_t entryHeader = read<uint32_t>(e, 4);
    uint64_t payload = read<uint64_t>(e, 8);
    uint32_t arch = read<uint32_t>(e, 28);
    uint64_t flags = read<uint64_t>(e, 40);
    uint64_t uncompressed = read<uint64_t>(e, 56);
    if (entryHeader < kEntryHeaderBytes || payload > end - at - entryHeader) {
      error = "malformed fatbinary entry";
      return false;
    }
    if (kind == kKindPTX && arch <= deviceArch && arch >= best) {
      if ((flags & kCompressedFlags) || uncompressed) {
        error = "compressed PTX (sm_" + std::to_string(arch) +
                ") in a fatbinary is not implemented";
        return false;
      }
      best = arch;
      bestText = e + entryHeader;
      bestBytes = payload;
    }
    at += entryHeader + payload;
  }
  if (!bestText) {
    error = "the fatbinary holds no PTX for sm_" + std::to_string(deviceArch) +
            " or older (the emulated device runs PTX, not cubins)";
    return false;
  }
  ptx.assign(reinterpret_cast<const char *>(bestText),
             strnlen(reinterpret_cast<const char *>(bestText), bestBytes));
  return true;
}

} // namespace gptc::emu
