//===- StopSignals.h - Signals that stop a run at the end of a step -*- C++
//-*-===//
//
// What stops a run at the end of its step, with a checkpoint: Ctrl-C,
// kill, the terminal closing (SIGHUP), the reader of its output going away
// (SIGPIPE, e.g. `gptc train ... | head`) and SIGUSR1, which mpirun
// forwards to every rank (how `gptc train --ranks N` passes a Ctrl-C on).
// A second SIGINT, SIGTERM or SIGHUP ends the process the default way.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_STOPSIGNALS_H
#define GPTC_RUNTIME_STOPSIGNALS_H

#include <csignal>

namespace gptc::runtime {

/// The signal that asked the run to stop, or 0.
int stopRequested();

/// For a rank of a job: SIGUSR1 (mpirun's forward of a stop) that arrives
/// before training starts stops the run after its first step instead of
/// ending the process.
void catchEarlyStopSignal();

/// While alive: the stop signals set stopRequested() (when `enable`).
class StopOnSignal {
public:
  explicit StopOnSignal(bool enable);
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal &) = delete;
  StopOnSignal &operator=(const StopOnSignal &) = delete;

private:
  bool enabled;
  struct sigaction old[5] = {};
};

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_STOPSIGNALS_H
