//===- RankLauncher.h - gptc train --ranks N starts its job -----*- C++ -*-===//
//
// `gptc train --ranks N [--hosts LIST | --hostfile FILE]` outside a job
// starts `mpirun -np N` of itself in its own process group and passes a
// Ctrl-C on as a stop at the end of a step (SIGUSR1, which mpirun forwards
// to the ranks). What a rank knows of its job before MPI starts is
// runtime/comm/JobEnvironment.h.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_RANKLAUNCHER_H
#define GPTC_COMMANDS_RANKLAUNCHER_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace commands {

/// Where a job's ranks run: this machine (both empty), the hosts of
/// `--hosts h1:8,h2:8` or of `--hostfile FILE` (Open MPI's format).
struct RankPlacement {
  std::string hosts;
  std::string hostfile;
};

/// Checks `--hosts`: NAME[:SLOTS],... with SLOTS >= 1 (a name alone offers
/// one slot, as Open MPI counts it). Sets `slots` to their sum; false and
/// `error` when the list is malformed.
bool countHostSlots(const std::string &hosts, int64_t &slots,
                    std::string &error);

/// The command that starts `ranks` ranks of `self train ARGS` (ARGS
/// without --ranks, --hosts and --hostfile): `mpirun -np N`, the hosts,
/// and across hosts `-x` for the variables the ranks need there
/// (LD_LIBRARY_PATH, NCCL_*, GPTC_*, OMP_NUM_THREADS), since a remote
/// host's ranks start in a fresh environment. On this machine alone it
/// oversubscribes (more ranks than cores is what the user asked for);
/// across hosts the slots are the user's.
std::vector<std::string> mpirunCommand(const std::string &mpirun,
                                       const std::string &self,
                                       const std::vector<std::string> &args,
                                       int64_t ranks,
                                       const RankPlacement &where);

/// mpirun's path on PATH; empty when there is none.
std::string findMpirun();

/// This program's path (/proc/self/exe); empty when it cannot be read.
std::string thisProgram();

/// `command` as a shell would need it typed (each word quoted as needed).
std::string shellLine(const std::vector<std::string> &command);

/// Runs `command` (an mpirun command line) in its own process group and
/// waits for it, passing a Ctrl-C, SIGTERM or SIGHUP on as a stop at the
/// end of a step (SIGUSR1). Returns its exit status (128 + the signal when
/// such a stop ended the job cleanly), or -1 with `error` set when it
/// cannot start.
int runRankLauncher(const std::vector<std::string> &command,
                    std::string &error);

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_RANKLAUNCHER_H
