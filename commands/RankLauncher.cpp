//===- RankLauncher.cpp - gptc train --ranks N starts its job -------------===//

#include "commands/RankLauncher.h"

#include "llvm/ADT/StringExtras.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char **environ;

namespace gptc {
namespace commands {

/// The stop signal the launcher received first (0: none) and mpirun's pid.
static volatile sig_atomic_t launcherStop = 0;
static volatile pid_t launchedMpirun = 0;

/// The launcher's Ctrl-C, SIGTERM or SIGHUP: the first is passed to the
/// ranks as SIGUSR1 (mpirun forwards it to each; they agree on a step,
/// save a checkpoint and print the summary); a second ends the job at once
/// (mpirun's own SIGINT handling).
static void forwardStop(int signal) {
  if (launchedMpirun <= 0)
    return;
  if (launcherStop == 0) {
    launcherStop = signal;
    kill(launchedMpirun, SIGUSR1);
  } else {
    kill(launchedMpirun, SIGINT);
  }
}

/// `gptc train --ranks N ARGS` outside a job: runs `mpirun -np N
/// THIS-PROGRAM train ARGS` (without --ranks) in its own process group, so
/// a Ctrl-C at the terminal reaches this process only, which passes it on
/// as a stop at the end of a step. Returns the exit status (128 + the
/// signal after a stop, as one rank does), or -1 with `error` set.
int launchRanks(const std::vector<std::string> &args, int64_t ranks,
                std::string &error) {
  std::string mpirun;
  if (const char *path = std::getenv("PATH"))
    for (llvm::StringRef part : llvm::split(llvm::StringRef(path), ':')) {
      std::string dir = part.str();
      std::string candidate = (dir.empty() ? "." : dir) + "/mpirun";
      if (access(candidate.c_str(), X_OK) == 0) {
        mpirun = candidate;
        break;
      }
    }
  if (mpirun.empty()) {
    error = "--ranks " + std::to_string(ranks) +
            ": mpirun not found on PATH (Debian's openmpi-bin); start the "
            "job with an MPI launcher yourself";
    return -1;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    error = "--ranks: cannot find this program (/proc/self/exe)";
    return -1;
  }
  self[n] = '\0';
  std::vector<std::string> argv = {mpirun, "-np", std::to_string(ranks)};
  // Open MPI refuses root unless told, and more ranks than cores unless
  // told: a user who asks for N ranks here means both.
  if (geteuid() == 0)
    argv.push_back("--allow-run-as-root");
  argv.push_back("--oversubscribe");
  argv.insert(argv.end(), {self, "train"});
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--ranks") {
      ++i;
      continue;
    }
    if (args[i].rfind("--ranks=", 0) == 0)
      continue;
    argv.push_back(args[i]);
  }
  std::vector<char *> cargv;
  for (std::string &a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(stdout);

  // Out of the terminal's foreground group, mpirun must not read it
  // (SIGTTIN would stop the job): its stdin is /dev/null.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  struct sigaction sa = {}, old[3];
  sa.sa_handler = forwardStop;
  sigemptyset(&sa.sa_mask);
  const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i)
    sigaction(forwarded[i], &sa, &old[i]);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, mpirun.c_str(), &actions, &attributes,
                       cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    error = "--ranks: cannot run " + mpirun + ": " + std::strerror(rc);
    return -1;
  }
  launchedMpirun = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  launchedMpirun = 0;
  for (int i = 0; i < 3; ++i)
    sigaction(forwarded[i], &old[i], nullptr);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // The ranks stopped cleanly (exit 0) on the forwarded stop: the shell's
  // code for the signal this process got.
  return code == 0 && launcherStop ? 128 + launcherStop : code;
}

/// The ranks of this job on this machine (Open MPI says; 1 alone).
int64_t localRanks() {
  if (const char *v = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); v && *v)
    return std::max<int64_t>(std::atoll(v), 1);
  return 1;
}

/// Whether this process is a rank other than 0 of a launcher's job (from
/// the environment, before MPI is initialised).
bool laterRank() {
  for (const char *var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *v = std::getenv(var); v && *v)
      return std::string(v) != "0";
  return false;
}

} // namespace commands
} // namespace gptc
