//===- Random.h - The random numbers of the tests and the reference -*- C++
//-*-===//
//
// One generator for everything that makes random inputs: the reference
// tools (gptc-ref-run) and the unit tests. Uniform doubles and standard
// normals from a 64-bit Mersenne twister, with the transforms written out
// (not std::*_distribution) so that the values are the same with every
// standard library.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_RANDOM_H
#define GPTC_REFERENCE_RANDOM_H

#include <cmath>
#include <cstdint>
#include <random>

namespace gptc::ref {

class Random {
public:
  explicit Random(uint64_t seed) : engine(seed) {}
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (Box-Muller).
  double normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 <= 0.0)
      u1 = 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  /// Uniform in [0, bound).
  uint64_t below(uint64_t bound) { return engine() % bound; }

private:
  std::mt19937_64 engine;
};

} // namespace gptc::ref

#endif // GPTC_REFERENCE_RANDOM_H
