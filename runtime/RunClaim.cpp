//===- RunClaim.cpp - A training run's hold on its checkpoint directory ---===//

#include "runtime/RunClaim.h"
#include "runtime/Checkpoint.h"
#include "runtime/Files.h"

#include "llvm/Support/JSON.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace gptc::runtime {

namespace {

bool isDirectoryPath(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The claim line of this process: {"run_id", "pid", "host", "started"}.
std::string claimLine(const std::string &runId) {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  char when[32] = "";
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  llvm::json::Object o{{"run_id", runId},
                       {"pid", int64_t(::getpid())},
                       {"host", std::string(host)},
                       {"started", std::string(when)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(o)) << "\n";
  os.flush();
  return text;
}

/// Who holds the claim file at `path`, in words, from its line.
std::string describeHolder(const std::string &path) {
  std::string text, error;
  if (!readRegularFile(path, "run claim", 4096, text, error) ||
      !jsonNestingWithin(text, 4))
    return "another gptc train";
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  if (!v) {
    llvm::consumeError(v.takeError());
    return "another gptc train";
  }
  const llvm::json::Object *o = v->getAsObject();
  if (!o)
    return "another gptc train";
  std::string who = "another gptc train";
  if (auto pid = o->getInteger("pid"))
    who += " (pid " + std::to_string(*pid);
  else
    return who;
  if (auto host = o->getString("host"))
    who += " on " + host->str();
  if (auto started = o->getString("started"))
    who += ", started " + started->str();
  if (auto id = o->getString("run_id"))
    who += ", run " + id->substr(0, 8).str();
  return who + ")";
}

} // namespace

std::string newRunId() {
  unsigned char bytes[16] = {};
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n <= 0 && errno != EINTR)
      break;
    if (n > 0)
      got += size_t(n);
  }
  if (got < sizeof bytes) { // no getrandom: time and pid are unique enough
    uint64_t mix =
        uint64_t(std::time(nullptr)) * 1000003u ^ uint64_t(::getpid());
    for (size_t i = got; i < sizeof bytes;
         ++i, mix = mix * 6364136223846793005u + 1)
      bytes[i] = (unsigned char)(mix >> 56);
  }
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

void RunClaim::release() {
  if (fd < 0)
    return;
  // Removed while still locked: a run that opens the file after this
  // finds, once it holds the lock, that the path is no longer its file and
  // opens it again (take's inode check).
  ::unlink((dir + "/" + kRunClaimFile).c_str());
  ::close(fd);
  fd = -1;
  if (madeDirectory)
    ::rmdir(dir.c_str()); // only when empty: nothing was saved
}

bool RunClaim::take(const std::string &directory, const std::string &runId,
                    std::string &error) {
  dir = directory;
  madeDirectory = !isDirectoryPath(dir);
  if (madeDirectory && !makeDirectories(dir, error))
    return false;
  const std::string path = dir + "/" + kRunClaimFile;
  for (int attempt = 0; attempt < 8; ++attempt) {
    int f =
        ::open(path.c_str(),
               O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (f < 0) {
      error = path + ": cannot claim the checkpoint directory: " +
              std::strerror(errno);
      return false;
    }
    struct stat mine, named;
    if (::fstat(f, &mine) != 0 || !S_ISREG(mine.st_mode)) {
      ::close(f);
      error = path + ": not a regular file (gptc's claim on the directory)";
      return false;
    }
    if (::flock(f, LOCK_EX | LOCK_NB) != 0) {
      int why = errno;
      ::close(f);
      if (why == EWOULDBLOCK) {
        error = dir + " is in use by " + describeHolder(path) +
                ", which saves its checkpoints there; wait for it to end, "
                "or save elsewhere with --checkpoint-dir";
        return false;
      }
      // A file system without locks: the claim is the file alone.
      if (why != ENOLCK && why != EOPNOTSUPP) {
        error = path + ": cannot lock: " + std::strerror(why);
        return false;
      }
    }
    // The holder before us may have removed the file between our open and
    // our lock: then the lock is on a file nobody else will find.
    if (::stat(path.c_str(), &named) != 0 || named.st_ino != mine.st_ino ||
        named.st_dev != mine.st_dev) {
      ::close(f);
      continue;
    }
    std::string line = claimLine(runId);
    if (::ftruncate(f, 0) != 0 ||
        ::pwrite(f, line.data(), line.size(), 0) != ssize_t(line.size())) {
      error = path + ": cannot write: " + std::strerror(errno);
      ::close(f);
      return false;
    }
    fd = f;
    return true;
  }
  error = path + ": the claim file keeps being replaced; is another run "
                 "starting there?";
  return false;
}

CheckpointDirectoryScan scanCheckpointDirectory(const std::string &dir,
                                                const std::string &runId) {
  CheckpointDirectoryScan scan;
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return scan;
  std::vector<std::string> names;
  while (dirent *e = ::readdir(d))
    names.push_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end(),
            [](const std::string &a, const std::string &b) {
              return checkpointStepOfName(a) < checkpointStepOfName(b);
            });
  for (const std::string &name : names) {
    if (checkpointStepOfName(name) < 0)
      continue; // not step_N (step_N.partial-* is a save's staging)
    const std::string path = dir + "/" + name;
    struct stat st;
    if (!isDirectoryPath(path) ||
        ::stat((path + "/" + kCheckpointStateFile).c_str(), &st) != 0) {
      scan.inTheWay.push_back(path);
      continue;
    }
    std::string id = checkpointRunId(path);
    if (id.empty())
      scan.unrecorded.push_back(path);
    else if (id != runId)
      scan.foreign.push_back(path);
  }
  return scan;
}

} // namespace gptc::runtime
