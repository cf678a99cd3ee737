//===- TrainerText.h - How gptc train says its numbers ----------*- C++ -*-===//
//
// The step line's and the JSON log's number formats, and the ETA: what the
// training loop (runtime/Trainer.cpp) prints, apart from the loop.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_TRAINERTEXT_H
#define GPTC_RUNTIME_TRAINERTEXT_H

#include <cstdint>
#include <string>

namespace gptc {
namespace runtime {

/// 12345678 -> "12,345,678".
std::string withThousands(int64_t v);

/// 75 -> "1:15", 3725 -> "1:02:05".
std::string clockText(double seconds);

/// printf's %.Nf and %.4g as strings.
std::string fixed(double v, int digits);
std::string shortNumber(double v);

/// A number as JSON: non-finite ones (a diverged loss) are null. `digits`
/// significant digits: 9 round-trip an f32; 6 drop the noise of an f32
/// factor.
std::string jsonNumber(double v, int digits = 9);

/// The validations still to come after `done` optimizer steps of `steps`
/// with one every `valEvery` steps (0: only at the end) and at the end.
int64_t validationsLeft(int64_t done, int64_t steps, int64_t valEvery);

/// The ETA of a run: the steps left at the mean pace of the `stepsTimed`
/// steps that took `trainSeconds`, and the validations left at the mean of
/// the `valsTimed` that took `valSeconds` (none timed yet: not counted).
double etaSeconds(double trainSeconds, int64_t stepsTimed, int64_t stepsLeft,
                  double valSeconds, int64_t valsTimed, int64_t valsLeft);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_TRAINERTEXT_H
