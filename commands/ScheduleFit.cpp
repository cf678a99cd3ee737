//===- ScheduleFit.cpp - gptc train --steps against a bundle's schedule ---===//

#include "commands/ScheduleFit.h"

#include "runtime/Manifest.h"

namespace gptc::commands {

bool checkScheduleFit(const runtime::Manifest &m, int64_t steps, bool fromSpec,
                      std::string &error) {
  if (steps == m.run.steps || m.findSlot("total_steps"))
    return true;
  const std::string n = std::to_string(steps);
  error = m.path + ": --steps " + n +
          ": this bundle's schedules are fixed to training.steps = " +
          std::to_string(m.run.steps) +
          " (it has no total_steps slot: an older gptc compiled it); " +
          (fromSpec ? "remove the bundle from the compile cache (gptc cache "
                      "clean) or add --set training.steps=" +
                          n
                    : "recompile it (gptc compile SPEC -o DIR) or train it "
                      "for " +
                          std::to_string(m.run.steps) + " steps");
  return false;
}

std::string scheduleSpanNote(const runtime::Manifest &m, int64_t steps) {
  if (steps == m.run.steps)
    return "";
  return "note: the lr, momentum and window schedules span this run's " +
         std::to_string(steps) + " steps (the bundle's training.steps is " +
         std::to_string(m.run.steps) + ": its warm-up and decay scale by " +
         std::to_string(steps) + "/" + std::to_string(m.run.steps) + ")";
}

} // namespace gptc::commands
