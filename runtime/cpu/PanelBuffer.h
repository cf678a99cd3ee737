//===- PanelBuffer.h - Aligned packing buffers of the CPU GEMMs -*- C++ -*-===//

#ifndef GPTC_RUNTIME_CPU_PANELBUFFER_H
#define GPTC_RUNTIME_CPU_PANELBUFFER_H

#include <cstdint>
#include <cstdlib>

namespace gptc::runtime {

inline int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

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
