//===- Arena.cpp - The byte buffer holding a step's state -----------------===//

#include "runtime/Arena.h"

#include "runtime/cpu/Bf16.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace gptc {
namespace runtime {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// The splitmix64 finaliser.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Natural log of x > 0 from basic IEEE operations only: x = m 2^e with m
/// in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1),
/// |s| < 0.172, summed to 2e-17 relative.
double portableLog(double x) {
  int e = 0;
  double m = std::frexp(x, &e); // exact
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double p = 0.0;
  for (int k = 12; k >= 0; --k)
    p = p * s2 + 1.0 / double(2 * k + 1);
  const double ln2Hi = 6.93147180369123816490e-01; // ln 2, high 32 bits
  const double ln2Lo = 1.90821492927058770002e-10; // the rest
  double de = double(e);
  return de * ln2Hi + (2.0 * s * p + de * ln2Lo);
}

} // namespace

ParamRng::ParamRng(uint64_t seed, uint64_t index)
    : state(mix(seed + mix(index + 1))) {}

uint64_t ParamRng::nextU64() {
  state += kGolden;
  return mix(state);
}

double ParamRng::nextNormal() {
  if (haveSpare) {
    haveSpare = false;
    return spare;
  }
  // Marsaglia's polar method.
  for (;;) {
    double u = double(nextU64() >> 11) * 0x1p-52 - 1.0; // [-1, 1), exact
    double v = double(nextU64() >> 11) * 0x1p-52 - 1.0;
    double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0)
      continue;
    double f = std::sqrt(-2.0 * portableLog(s) / s);
    spare = v * f;
    haveSpare = true;
    return u * f;
  }
}

uint16_t floatToBf16(float f) { return f32ToBf16(f); }

float bf16ToFloat(uint16_t h) { return bf16ToF32(h); }

Arena::~Arena() { release(); }

void Arena::release() {
  if (mapping)
    ::munmap(mapping, mappingBytes);
  else
    std::free(base);
  mapping = nullptr;
  mappingBytes = 0;
  base = nullptr;
}

bool Arena::allocate(const Manifest &m, std::string &error) {
  release();
  descriptor = {nullptr, nullptr, 0, 0, 1};
  manifest = &m;
  bytes = m.arenaBytes;
  size_t rounded = size_t((bytes + 63) / 64 * 64);
  const char *guard = std::getenv("GPTC_ARENA_GUARD");
  if (guard && *guard && std::string(guard) != "0") {
    // [PROT_NONE page][arena, ending at a page boundary][PROT_NONE page]:
    // a step that reads or writes past either end faults right there.
    size_t page = size_t(::sysconf(_SC_PAGESIZE));
    size_t body = (rounded + page - 1) / page * page;
    mappingBytes = body + 2 * page;
    void *p = ::mmap(nullptr, mappingBytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || ::mprotect(static_cast<uint8_t *>(p) + page, body,
                                      PROT_READ | PROT_WRITE) != 0) {
      error =
          "cannot map the guarded arena: " + std::to_string(bytes) + " bytes";
      if (p != MAP_FAILED)
        ::munmap(p, mappingBytes);
      mappingBytes = 0;
      bytes = 0;
      return false;
    }
    mapping = p;
    base = static_cast<uint8_t *>(p) + page + (body - rounded);
  } else {
    // Anonymous pages are zero and take memory when first written: the
    // host's copy of a CUDA arena holds its slots, not its workspace.
    size_t page = size_t(::sysconf(_SC_PAGESIZE));
    mappingBytes = std::max<size_t>((rounded + page - 1) / page * page, page);
    void *p = ::mmap(nullptr, mappingBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      mappingBytes = 0;
    } else {
      mapping = p;
      base = static_cast<uint8_t *>(p);
    }
  }
  if (!base) {
    error = "cannot allocate the arena: " + std::to_string(bytes) + " bytes";
    bytes = 0;
    return false;
  }
  descriptor = {base, base, 0, bytes, 1};
  return true;
}

void *Arena::raw(const std::string &name) {
  const Slot *s = slot(name);
  return s ? base + s->offset : nullptr;
}

void Arena::store(const Slot &s, int64_t i, double v) {
  uint8_t *p = base + s.offset;
  switch (s.dtype) {
  case SlotType::F32:
    reinterpret_cast<float *>(p)[i] = float(v);
    break;
  case SlotType::F64:
    reinterpret_cast<double *>(p)[i] = v;
    break;
  case SlotType::BF16:
    reinterpret_cast<uint16_t *>(p)[i] = floatToBf16(float(v));
    break;
  case SlotType::I32:
    reinterpret_cast<int32_t *>(p)[i] = int32_t(v);
    break;
  case SlotType::I64:
    reinterpret_cast<int64_t *>(p)[i] = int64_t(v);
    break;
  }
}

double Arena::element(const Slot &s, int64_t i) const {
  const uint8_t *p = base + s.offset;
  switch (s.dtype) {
  case SlotType::F32:
    return reinterpret_cast<const float *>(p)[i];
  case SlotType::F64:
    return reinterpret_cast<const double *>(p)[i];
  case SlotType::BF16:
    return bf16ToFloat(reinterpret_cast<const uint16_t *>(p)[i]);
  case SlotType::I32:
    return reinterpret_cast<const int32_t *>(p)[i];
  case SlotType::I64:
    return double(reinterpret_cast<const int64_t *>(p)[i]);
  }
  return 0.0;
}

void Arena::initialize(uint64_t seed) {
  std::memset(base, 0, size_t(bytes));
  for (size_t index = 0; index < manifest->params.size(); ++index) {
    const ParamEntry &p = manifest->params[index];
    const Slot *s = slot("param." + p.name);
    if (!s) // readManifest guarantees it
      continue;
    int64_t n = s->numElements();
    switch (p.init) {
    case ParamInit::Zeros:
      break;
    case ParamInit::Ones:
      for (int64_t i = 0; i < n; ++i)
        store(*s, i, 1.0);
      break;
    case ParamInit::Values:
      for (int64_t i = 0; i < n; ++i)
        store(*s, i, p.values[size_t(i)]);
      break;
    case ParamInit::Normal: {
      ParamRng rng(seed, index);
      for (int64_t i = 0; i < n; ++i)
        store(*s, i, p.stddev * rng.nextNormal());
      break;
    }
    }
  }
}

void Arena::zeroGradients() {
  for (const Slot &s : manifest->slots)
    if (s.name.rfind("grad.", 0) == 0 || s.name == "loss")
      std::memset(base + s.offset, 0, size_t(s.numBytes()));
}

} // namespace runtime
} // namespace gptc
