//===- Sha256.h - SHA-256 digests as hex text -------------------*- C++ -*-===//
//
// Header-only (LLVM's SHA-256): the compiler's layout export and the
// runtime's file checks both spell digests this way.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_SHA256_H
#define GPTC_RUNTIME_SHA256_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cstdint>
#include <string>

namespace gptc {

/// 64 lowercase hex digits.
inline std::string hexDigest(const std::array<uint8_t, 32> &digest) {
  static const char *digits = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : digest) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

/// The SHA-256 of `size` bytes at `data`, in hex.
inline std::string sha256Hex(const void *data, size_t size) {
  return hexDigest(llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), size)));
}

} // namespace gptc

#endif // GPTC_RUNTIME_SHA256_H
