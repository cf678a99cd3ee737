//===- RankLauncher.h - gptc train --ranks N starts its job -----*- C++ -*-===//
//
// `gptc train --ranks N` outside a job starts `mpirun -np N` of itself in
// its own process group and passes a Ctrl-C on as a stop at the end of a
// step (SIGUSR1, which mpirun forwards to the ranks); and what a rank can
// tell of its job from the launcher's environment before MPI starts.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_RANKLAUNCHER_H
#define GPTC_COMMANDS_RANKLAUNCHER_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace commands {

/// Runs `mpirun -np N THIS-PROGRAM train ARGS` (ARGS without --ranks) and
/// waits for it. Returns its exit status (128 + the signal when a Ctrl-C,
/// SIGTERM or SIGHUP stopped the job cleanly), or -1 with `error` set when
/// it cannot start.
int launchRanks(const std::vector<std::string> &args, int64_t ranks,
                std::string &error);

/// The ranks of this job on this machine (Open MPI says; 1 alone).
int64_t localRanks();

/// Whether this process is a rank other than 0 of a launcher's job (from
/// the environment, before MPI is initialised).
bool laterRank();

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_RANKLAUNCHER_H
