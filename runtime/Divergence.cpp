//===- Divergence.cpp - Stopping a diverging run --------------------------===//

#include "runtime/Divergence.h"
#include "runtime/cpu/Bf16.h"

#include <cmath>
#include <cstdio>

namespace gptc {
namespace runtime {

namespace {

float widen(float v) { return v; }
float widen(double v) { return float(v); }
float widen(uint16_t bits) { return bf16ToF32(bits); }

/// Adds the squared change of `n` elements of `data` against `previous`
/// to `update`, their squares to `param`, and copies them into
/// `previous`: in parallel over the OpenMP threads and vectorised (the
/// per-thread partial sums are added in an unspecified order; the guard
/// needs norms, not bits).
template <typename T>
void accumulate(const T *data, float *previous, int64_t n, double &update,
                double &param) {
  double u = 0.0, p = 0.0;
#pragma omp parallel for simd reduction(+ : u, p)                              \
    schedule(static) if (n >= 65536)
  for (int64_t i = 0; i < n; ++i) {
    double v = widen(data[i]);
    double d = v - double(previous[i]);
    u += d * d;
    p += v * v;
    previous[i] = float(v);
  }
  update += u;
  param += p;
}

std::string num(double v) {
  if (std::isnan(v))
    return "nan"; // not printf's "-nan"
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

} // namespace

DivergenceGuard::DivergenceGuard(const Manifest &manifest, Arena &arena)
    : arena(arena), factor(manifest.divergenceFactor) {
  size_t elements = 0;
  for (const ParamEntry &p : manifest.params) {
    const Slot *s = manifest.findSlot("param." + p.name);
    if (!s || s->dtype == SlotType::I32 || s->dtype == SlotType::I64)
      continue;
    Group *g = nullptr;
    for (Group &candidate : groups)
      if (candidate.name == p.group)
        g = &candidate;
    if (!g) {
      groups.push_back({p.group, {}});
      g = &groups.back();
    }
    g->slots.push_back(s);
    elements += size_t(s->numElements());
  }
  previous.resize(elements);
  measure(); // the initial parameters
}

void DivergenceGuard::measure() {
  float *copy = previous.data();
  for (Group &g : groups) {
    double update = 0.0, param = 0.0;
    for (const Slot *s : g.slots) {
      const uint8_t *data = arena.data() + s->offset;
      int64_t n = s->numElements();
      switch (s->dtype) {
      case SlotType::F32:
        accumulate(reinterpret_cast<const float *>(data), copy, n, update,
                   param);
        break;
      case SlotType::F64:
        accumulate(reinterpret_cast<const double *>(data), copy, n, update,
                   param);
        break;
      case SlotType::BF16:
        accumulate(reinterpret_cast<const uint16_t *>(data), copy, n, update,
                   param);
        break;
      case SlotType::I32:
      case SlotType::I64:
        break; // not watched (the constructor skips them)
      }
      copy += n;
    }
    g.updateNorm = std::sqrt(update);
    g.paramNorm = std::sqrt(param);
  }
}

bool DivergenceGuard::check(int64_t step, double loss, std::string &error) {
  measure();
  std::string why;
  if (!std::isfinite(loss)) {
    why = "loss " + num(loss);
  } else if (!haveFirst) {
    firstLoss = loss;
    haveFirst = true;
  } else if (factor > 0 && loss > factor * firstLoss) {
    why = "loss " + num(loss) + " exceeds " + num(factor) +
          " x the first loss " + num(firstLoss);
  }
  // The group to name: a non-finite one first, else the largest update.
  const Group *worst = nullptr;
  for (const Group &g : groups) {
    bool finite = std::isfinite(g.paramNorm) && std::isfinite(g.updateNorm);
    bool worstFinite = worst && std::isfinite(worst->paramNorm) &&
                       std::isfinite(worst->updateNorm);
    if (!worst || (!finite && worstFinite) ||
        (finite == worstFinite && g.updateNorm > worst->updateNorm))
      worst = &g;
  }
  if (why.empty() && worst &&
      !(std::isfinite(worst->paramNorm) && std::isfinite(worst->updateNorm)))
    why = "loss " + num(loss) + ", parameters of group '" + worst->name +
          "' are not finite";
  if (why.empty())
    return true;
  error = "diverged at step " + std::to_string(step) + ": " + why;
  if (worst)
    error += "; largest update: group '" + worst->name + "' (update norm " +
             num(worst->updateNorm) + ", parameter norm " +
             num(worst->paramNorm) + ")";
  return false;
}

} // namespace runtime
} // namespace gptc
