//===- Divergence.cpp - Stopping a diverging run --------------------------===//

#include "runtime/Divergence.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace gptc {
namespace runtime {

namespace {

/// The f32 value of the bf16 `bits`.
float fromBF16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

/// Element `i` of the float slot at `data` as f32.
float valueAt(const uint8_t *data, SlotType type, int64_t i) {
  switch (type) {
  case SlotType::F32:
    return reinterpret_cast<const float *>(data)[i];
  case SlotType::F64:
    return float(reinterpret_cast<const double *>(data)[i]);
  case SlotType::BF16:
    return fromBF16(reinterpret_cast<const uint16_t *>(data)[i]);
  case SlotType::I32:
  case SlotType::I64:
    break;
  }
  return 0.0f;
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
  size_t k = 0;
  for (Group &g : groups) {
    double update = 0.0, param = 0.0;
    for (const Slot *s : g.slots) {
      const uint8_t *data = arena.data() + s->offset;
      for (int64_t i = 0, n = s->numElements(); i < n; ++i, ++k) {
        double v = valueAt(data, s->dtype, i);
        double d = v - double(previous[k]);
        update += d * d;
        param += v * v;
        previous[k] = float(v);
      }
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
