//===- Divergence.cpp - Stopping a diverging run --------------------------===//

#include "runtime/Divergence.h"
#include "runtime/cpu/Bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gptc {
namespace runtime {

namespace {

double widen(float v) { return v; }
double widen(double v) { return v; }
double widen(uint16_t bits) { return bf16ToF32(bits); }

template <typename T> double sumOfSquares(const T *data, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i)
    sum += widen(data[i]) * widen(data[i]);
  return sum;
}

/// The sum of squares of a float slot of `arena` (0 for integer slots).
double sumOfSquares(const Arena &arena, const Slot &s) {
  const uint8_t *data = arena.data() + s.offset;
  switch (s.dtype) {
  case SlotType::F32:
    return sumOfSquares(reinterpret_cast<const float *>(data), s.numElements());
  case SlotType::F64:
    return sumOfSquares(reinterpret_cast<const double *>(data),
                        s.numElements());
  case SlotType::BF16:
    return sumOfSquares(reinterpret_cast<const uint16_t *>(data),
                        s.numElements());
  case SlotType::I32:
  case SlotType::I64:
    break;
  }
  return 0.0;
}

std::string num(double v) {
  if (std::isnan(v))
    return "nan"; // not printf's "-nan"
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

} // namespace

DivergenceGuard::DivergenceGuard(const Manifest &manifest, Arena &arena)
    : arena(arena), factor(manifest.divergenceFactor) {
  // Groups in the order of their first parameter, as the update step
  // writes param_sq_norms; the initial RMS from the host's parameters.
  std::vector<double> sums;
  for (const ParamEntry &p : manifest.params) {
    size_t g = 0;
    while (g < groups.size() && groups[g].name != p.group)
      ++g;
    if (g == groups.size()) {
      groups.push_back({p.group});
      sums.push_back(0.0);
    }
    if (const Slot *s = manifest.findSlot("param." + p.name)) {
      groups[g].elements += s->numElements();
      sums[g] += sumOfSquares(arena, *s);
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].rms = groups[g].elements
                        ? std::sqrt(sums[g] / double(groups[g].elements))
                        : 0.0;
    groups[g].floor = kRmsFloor;
    for (const Manifest::GroupRate &r : manifest.groupRates)
      if (r.name == groups[g].name)
        groups[g].floor = std::clamp(r.lr, kRmsFloor, kRmsFloorMax);
  }
  const Slot *s = manifest.findSlot("param_sq_norms");
  if (s && s->dtype == SlotType::F32 &&
      s->numElements() == int64_t(groups.size()))
    norms = s;
}

bool DivergenceGuard::check(int64_t step, double loss, std::string &error) {
  if (norms) {
    const float *sums =
        reinterpret_cast<const float *>(arena.data() + norms->offset);
    for (size_t g = 0; g < groups.size(); ++g) {
      groups[g].previousRms = groups[g].rms;
      groups[g].rms =
          groups[g].elements
              ? std::sqrt(double(sums[g]) / double(groups[g].elements))
              : 0.0;
    }
  }
  // The group to name: a non-finite one first, else the largest growth.
  auto growth = [](const Group &g) {
    return g.rms / std::max(g.previousRms, g.floor);
  };
  const Group *worst = nullptr;
  for (const Group &g : groups) {
    bool finite = std::isfinite(g.rms);
    bool worstFinite = worst && std::isfinite(worst->rms);
    if (!worst || (!finite && worstFinite) ||
        (finite == worstFinite && growth(g) > growth(*worst)))
      worst = &g;
  }

  std::string why;
  if (!std::isfinite(loss)) {
    why = "loss " + num(loss);
  } else if (loss <= 0) {
    why = "loss " + num(loss) + " is not positive (a cross-entropy is)";
  } else if (!haveFirst) {
    firstLoss = loss;
    haveFirst = true;
  } else if (factor > 0 && loss > factor * firstLoss) {
    why = "loss " + num(loss) + " exceeds " + num(factor) +
          " x the first loss " + num(firstLoss);
  }
  if (why.empty() && norms && worst) {
    if (!std::isfinite(worst->rms))
      why = "loss " + num(loss) + ", parameters of group '" + worst->name +
            "' are not finite";
    else if (factor > 0 && growth(*worst) > kGrowth)
      why = "the parameters of group '" + worst->name + "' grew from RMS " +
            num(worst->previousRms) + " to " + num(worst->rms) +
            " in one step (more than " + num(kGrowth) + "x" +
            (worst->previousRms >= worst->floor
                 ? std::string()
                 : " " + num(worst->floor) +
                       ", the least RMS growth is judged from: the group's "
                       "learning rate within [" +
                       num(kRmsFloor) + ", " + num(kRmsFloorMax) + "]") +
            "; training.divergence_factor=0 turns this test off)";
  }
  if (why.empty())
    return true;
  error = "diverged at step " + std::to_string(step) + ": " + why;
  if (norms && worst)
    error += "; largest growth: group '" + worst->name + "' (parameter RMS " +
             num(worst->previousRms) + " -> " + num(worst->rms) + ")";
  return false;
}

} // namespace runtime
} // namespace gptc
