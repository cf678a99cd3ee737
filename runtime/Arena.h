//===- Arena.h - The byte buffer holding a step's state ---------*- C++ -*-===//
//
// The arena of runtime/gptrt.h: arena_bytes bytes, 64-byte aligned, with
// typed views of the manifest's slots and the deterministic parameter
// initialisation of docs/artifact.md.
//
// Initialisation is bit-identical across runs and machines: parameter i
// (index in manifest params[]) draws from its own stream
//
//     state_0 = mix(seed + mix(i + 1)),  x_j = mix(state_0 + j * G)
//
// (splitmix64: G = 0x9E3779B97F4A7C15, mix its finaliser), and normals come
// from the Marsaglia polar method on uniforms u = x / 2^52 - 1 built from
// the top 52 bits, with a log computed here from +, -, *, / (so libm's log
// does not enter) and the correctly rounded sqrt; Arena.cpp is compiled
// with -ffp-contract=off so no FMA changes a rounding. Values are computed
// in double and rounded to the slot's dtype (bf16: via f32, to nearest
// even).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_ARENA_H
#define GPTC_RUNTIME_ARENA_H

#include "runtime/Manifest.h"
#include "runtime/gptrt.h"

#include <cstdint>
#include <string>

namespace gptc {
namespace runtime {

/// The deterministic per-parameter random stream (see the file comment).
class ParamRng {
public:
  ParamRng(uint64_t seed, uint64_t index);
  uint64_t nextU64();
  /// A standard normal sample.
  double nextNormal();

private:
  uint64_t state;
  bool haveSpare = false;
  double spare = 0.0;
};

class Arena {
public:
  Arena() = default;
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// Allocates manifest.arenaBytes zeroed bytes (the size the manifest and
  /// the step library agree on, runtime/Bundle.h), page-aligned, mapped
  /// lazily: pages no one writes (a CUDA step's workspace, which lives on
  /// the device) take no memory. With
  /// GPTC_ARENA_GUARD=1 (a debug mode) the arena sits between two
  /// inaccessible pages, its end against the second, so a step that reads
  /// or writes past it faults at that access. The manifest must outlive
  /// the arena. Returns false and sets `error`.
  bool allocate(const Manifest &manifest, std::string &error);

  uint8_t *data() { return base; }
  const uint8_t *data() const { return base; }
  int64_t size() const { return bytes; }
  /// The bytes before the step's workspace (its temporaries, which no
  /// step reads before writing): the slots, all a device must be given.
  int64_t slotBytes() const {
    return manifest && manifest->workspaceOffset > 0 &&
                   manifest->workspaceOffset <= bytes
               ? manifest->workspaceOffset
               : bytes;
  }
  /// The memref descriptor the entry points take: {base, base, 0, size, 1}.
  gptc_arena_ref *ref() { return &descriptor; }

  /// The slot `name`, or null.
  const Slot *slot(const std::string &name) const {
    return manifest ? manifest->findSlot(name) : nullptr;
  }
  /// Raw pointer to the slot `name`, or null.
  void *raw(const std::string &name);
  /// Typed views; null when the slot is missing or has another dtype.
  float *f32(const std::string &name) {
    return typed<float>(name, SlotType::F32);
  }
  double *f64(const std::string &name) {
    return typed<double>(name, SlotType::F64);
  }
  int32_t *i32(const std::string &name) {
    return typed<int32_t>(name, SlotType::I32);
  }
  int64_t *i64(const std::string &name) {
    return typed<int64_t>(name, SlotType::I64);
  }
  /// bf16 as its uint16 storage.
  uint16_t *bf16(const std::string &name) {
    return typed<uint16_t>(name, SlotType::BF16);
  }

  /// Zeroes the whole arena, then writes every param.* slot from its
  /// manifest init rule with streams seeded by `seed`.
  void initialize(uint64_t seed);

  /// Zeroes every grad.* slot and `loss` (before each optimizer step).
  void zeroGradients();

  /// Element `i` of a float slot (f32, f64 or bf16) as double.
  double element(const Slot &s, int64_t i) const;
  /// Sets element `i` of slot `s`, rounded to its dtype.
  void store(const Slot &s, int64_t i, double v);

private:
  template <typename T> T *typed(const std::string &name, SlotType t) {
    const Slot *s = slot(name);
    return s && s->dtype == t ? reinterpret_cast<T *>(base + s->offset)
                              : nullptr;
  }
  void release();

  const Manifest *manifest = nullptr;
  uint8_t *base = nullptr;
  int64_t bytes = 0;
  /// GPTC_ARENA_GUARD: the mapping with its guard pages.
  void *mapping = nullptr;
  size_t mappingBytes = 0;
  gptc_arena_ref descriptor = {nullptr, nullptr, 0, 0, 1};
};

/// Rounds f32 to bf16, nearest even (NaN stays NaN).
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t h);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_ARENA_H
