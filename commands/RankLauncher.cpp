//===- RankLauncher.cpp - gptc train --ranks N starts its job -------------===//

#include "commands/RankLauncher.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <fcntl.h>
#include <sys/prctl.h>
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

bool countHostSlots(const std::string &hosts, int64_t &slots,
                    std::string &error) {
  slots = 0;
  llvm::SmallVector<llvm::StringRef> entries;
  llvm::StringRef(hosts).split(entries, ',');
  for (llvm::StringRef entry : entries) {
    auto [name, count] = entry.split(':');
    unsigned long long n = 1;
    if (name.empty() || name.find_first_of(" \t") != llvm::StringRef::npos ||
        (entry.contains(':') && (count.getAsInteger(10, n) || n < 1))) {
      error = "--hosts '" + hosts + "': '" + entry.str() +
              "' is not NAME or NAME:SLOTS (e.g. --hosts node1:8,node2:8)";
      return false;
    }
    slots += int64_t(n);
  }
  return true;
}

std::vector<std::string> mpirunCommand(const std::string &mpirun,
                                       const std::string &self,
                                       const std::vector<std::string> &args,
                                       int64_t ranks,
                                       const RankPlacement &where) {
  std::vector<std::string> command = {mpirun, "-np", std::to_string(ranks)};
  // Open MPI refuses root unless told.
  if (geteuid() == 0)
    command.push_back("--allow-run-as-root");
  if (!where.hosts.empty())
    command.insert(command.end(), {"--host", where.hosts});
  else if (!where.hostfile.empty())
    command.insert(command.end(), {"--hostfile", where.hostfile});
  else
    command.push_back("--oversubscribe");
  // A remote host's ranks start in a fresh environment (ssh's): what the
  // ranks need of this one goes with them, by name.
  if (!where.hosts.empty() || !where.hostfile.empty())
    for (char **e = environ; *e; ++e) {
      llvm::StringRef name = llvm::StringRef(*e).split('=').first;
      if (name == "LD_LIBRARY_PATH" || name == "OMP_NUM_THREADS" ||
          name.starts_with("NCCL_") || name.starts_with("GPTC_"))
        command.insert(command.end(), {"-x", name.str()});
    }
  command.insert(command.end(), {self, "train"});
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    bool ours = arg == "--ranks" || arg == "--hosts" || arg == "--hostfile";
    if (ours) {
      ++i;
      continue;
    }
    if (arg.starts_with("--ranks=") || arg.starts_with("--hosts=") ||
        arg.starts_with("--hostfile="))
      continue;
    command.push_back(args[i]);
  }
  return command;
}

std::string findMpirun() {
  if (const char *path = std::getenv("PATH"))
    for (llvm::StringRef part : llvm::split(llvm::StringRef(path), ':')) {
      std::string dir = part.str();
      std::string candidate = (dir.empty() ? "." : dir) + "/mpirun";
      if (access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
  return "";
}

std::string thisProgram() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  return n > 0 ? std::string(self, size_t(n)) : std::string();
}

std::string shellLine(const std::vector<std::string> &command) {
  std::string line;
  for (const std::string &word : command) {
    if (!line.empty())
      line += ' ';
    bool plain =
        !word.empty() &&
        word.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_-./:,=+@%") == std::string::npos;
    if (plain) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word)
      line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

/// Runs `mpirun ...` in its own process group, so a Ctrl-C at the terminal
/// reaches this process only, which passes it on as a stop at the end of a
/// step.
int runRankLauncher(const std::vector<std::string> &command,
                    std::string &error) {
  std::vector<std::string> argv = command;
  std::vector<char *> cargv;
  for (std::string &a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(stdout);

  struct sigaction sa = {}, old[3];
  sa.sa_handler = forwardStop;
  sigemptyset(&sa.sa_mask);
  const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i)
    sigaction(forwarded[i], &sa, &old[i]);
  // fork + exec rather than posix_spawn: the child must be tied to this
  // process's life. A launcher killed outright (SIGKILL: no handler runs)
  // would leave mpirun and its ranks training, out of reach of Ctrl-C in
  // their own process group; PR_SET_PDEATHSIG sends mpirun SIGTERM then,
  // which ends the job. Only async-signal-safe calls between the two.
  const pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Out of the terminal's foreground group, mpirun must not read it
    // (SIGTTIN would stop the job): its stdin is /dev/null.
    ::setpgid(0, 0);
    int devNull = ::open("/dev/null", O_RDONLY);
    if (devNull >= 0 && devNull != 0) {
      ::dup2(devNull, 0);
      ::close(devNull);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != launcher) // died before the line above
      ::_exit(128 + SIGTERM);
    for (int i = 0; i < 3; ++i)
      sigaction(forwarded[i], &old[i], nullptr);
    ::execve(cargv[0], cargv.data(), environ);
    ::_exit(127);
  }
  if (pid < 0) {
    int why = errno;
    for (int i = 0; i < 3; ++i)
      sigaction(forwarded[i], &old[i], nullptr);
    error = "--ranks: cannot run " + argv[0] + ": " + std::strerror(why);
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

} // namespace commands
} // namespace gptc
