//===- PanelBuffer.h - Packing buffers and tile masks of CPU GEMMs -*- C++
//-*-===//

#ifndef GPTC_RUNTIME_CPU_PANELBUFFER_H
#define GPTC_RUNTIME_CPU_PANELBUFFER_H

#include <cstdint>
#include <cstdlib>

namespace gptc::runtime {

inline int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/// The lane masks of a 32-wide tile row cut to its first `n` columns: the
/// first and the second 16 lanes (the two vectors of an AVX-512 row).
struct HalfMasks {
  uint16_t first, second;
};
inline HalfMasks halfMasks(int64_t n) {
  auto upTo = [](int64_t c) -> uint16_t {
    return c <= 0 ? 0 : c >= 16 ? 0xFFFF : uint16_t((1u << c) - 1);
  };
  return {upTo(n), upTo(n - 16)};
}

/// A 64-byte aligned buffer of T that only grows (one per thread and
/// operand: packed panels are rewritten, never freed, between GEMMs).
template <typename T> class PanelBuffer {
public:
  PanelBuffer() = default;
  PanelBuffer(const PanelBuffer &) = delete;
  PanelBuffer &operator=(const PanelBuffer &) = delete;
  ~PanelBuffer() { std::free(data_); }

  T *get(int64_t count) {
    if (count > capacity_) {
      std::free(data_);
      capacity_ = roundUp(count, 64);
      data_ = static_cast<T *>(
          std::aligned_alloc(64, size_t(capacity_) * sizeof(T)));
      if (!data_)
        std::abort();
    }
    return data_;
  }

private:
  T *data_ = nullptr;
  int64_t capacity_ = 0;
};

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_CPU_PANELBUFFER_H
