//===- ScheduleFit.h - gptc train --steps against a bundle's schedule -*- C++
//-*-===//
//
// A bundle's schedules (learning rate, Muon momentum warm-up, attention
// window) are shares of the run: the step reads the run's length from its
// total_steps slot, which gptc train sets from --steps, and scales the
// steps its spec counted in training.steps (optim.lr_schedule). A bundle
// without that slot (an older gptc's) has schedules fixed to
// training.steps: a run of another length is refused with the fix.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_SCHEDULEFIT_H
#define GPTC_COMMANDS_SCHEDULEFIT_H

#include <cstdint>
#include <string>

namespace gptc {
namespace runtime {
struct Manifest;
} // namespace runtime
namespace commands {

/// False with `error` (one line: the fix) when a run of `steps` steps does
/// not fit `m`'s schedules. `fromSpec`: the run compiles its spec (the fix
/// is a --set), else it trains a bundle (the fix is to recompile it).
bool checkScheduleFit(const runtime::Manifest &m, int64_t steps, bool fromSpec,
                      std::string &error);

/// The line gptc train prints when --steps is not the bundle's
/// training.steps (the schedules span the run), empty when it is.
std::string scheduleSpanNote(const runtime::Manifest &m, int64_t steps);

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_SCHEDULEFIT_H
