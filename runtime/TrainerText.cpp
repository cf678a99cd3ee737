//===- TrainerText.cpp - How gptc train says its numbers ------------------===//

#include "runtime/TrainerText.h"

#include <cmath>
#include <cstdio>

namespace gptc::runtime {

std::string withThousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      s.push_back(',');
    s.push_back(digits[i]);
  }
  return v < 0 ? "-" + s : s;
}

std::string clockText(double seconds) {
  int64_t t = int64_t(seconds + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", (long long)(t / 3600),
                  (long long)(t / 60 % 60), (long long)(t % 60));
  else
    std::snprintf(buf, sizeof(buf), "%lld:%02lld", (long long)(t / 60),
                  (long long)(t % 60));
  return buf;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.*f", digits, v);
  return b;
}

std::string shortNumber(double v) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.4g", v);
  return b;
}

std::string jsonNumber(double v, int digits) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

int64_t validationsLeft(int64_t done, int64_t steps, int64_t valEvery) {
  if (done >= steps)
    return 0;
  if (valEvery <= 0)
    return 1;
  return steps / valEvery - done / valEvery + (steps % valEvery != 0 ? 1 : 0);
}

double etaSeconds(double trainSeconds, int64_t stepsTimed, int64_t stepsLeft,
                  double valSeconds, int64_t valsTimed, int64_t valsLeft) {
  double eta = stepsTimed > 0
                   ? trainSeconds / double(stepsTimed) * double(stepsLeft)
                   : 0.0;
  if (valsTimed > 0)
    eta += valSeconds / double(valsTimed) * double(valsLeft);
  return eta;
}

} // namespace gptc::runtime
