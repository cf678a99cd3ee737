//===- StopSignals.cpp - Signals that stop a run at the end of a step -----===//

#include "runtime/StopSignals.h"

#include <atomic>
#include <csignal>
#include <iterator>

namespace gptc::runtime {

namespace {

/// The signal that asked the run to stop, or 0.
std::atomic<int> stopRequest{0};

/// What stops a run at the end of its step, with a checkpoint: Ctrl-C,
/// kill, the terminal closing (SIGHUP), the reader of its output going
/// away (SIGPIPE, e.g. `gptc train ... | head`) and SIGUSR1, which mpirun
/// forwards to every rank (how `gptc train --ranks N` passes a Ctrl-C on).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1};
static_assert(std::size(kStopSignals) == 5, "StopOnSignal::old holds 5");

void requestStop(int signal) {
  stopRequest.store(signal);
  if (signal == SIGPIPE) {
    // Output is gone: later writes fail with EPIPE instead of a signal,
    // and the checkpoint is still written.
    ::signal(SIGPIPE, SIG_IGN);
    return;
  }
  // A second signal from a person ends the process the default way.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGHUP, SIG_DFL);
}

} // namespace

void catchEarlyStopSignal() {
  struct sigaction sa = {};
  sa.sa_handler = requestStop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
}

int stopRequested() { return stopRequest.load(); }

StopOnSignal::StopOnSignal(bool enable) : enabled(enable) {
  // A stop asked before (catchEarlyStopSignal) stands.
  if (!enabled)
    return;
  struct sigaction sa = {};
  sa.sa_handler = requestStop;
  sa.sa_flags = 0;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &sa, &old[i]);
}

StopOnSignal::~StopOnSignal() {
  stopRequest.store(0);
  if (!enabled)
    return;
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &old[i], nullptr);
}

} // namespace gptc::runtime
