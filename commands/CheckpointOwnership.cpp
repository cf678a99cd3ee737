//===- CheckpointOwnership.cpp - gptc train's checkpoint directory --------===//

#include "commands/CheckpointOwnership.h"

#include "runtime/Checkpoint.h"
#include "runtime/Files.h"

#include <cstdlib>
#include <sys/stat.h>

namespace gptc::commands {
using namespace runtime;

namespace {

/// "step_10, step_20 and 3 more" of the paths `found`.
std::string nameSome(const std::vector<std::string> &found) {
  std::string names;
  for (size_t i = 0; i < found.size() && i < 3; ++i)
    names += (i ? ", " : "") + found[i].substr(found[i].find_last_of('/') + 1);
  if (found.size() > 3)
    names += " and " + std::to_string(found.size() - 3) + " more";
  return names;
}

/// The real path of `path`'s directory ("" if it has none).
std::string realDirectory(const std::string &path) {
  char *real = ::realpath(path.c_str(), nullptr);
  std::string out = real ? real : "";
  std::free(real);
  return out;
}

/// Whether the checkpoint `resumed` lies in the directory `dir`.
bool isInside(const std::string &resumed, const std::string &dir) {
  std::string parent = resumed.substr(0, resumed.find_last_of('/') + 1);
  std::string a = realDirectory(parent.empty() ? "." : parent),
              b = realDirectory(dir);
  return !a.empty() && a == b;
}

/// What `dir` holds that this run may not save beside: "" when nothing.
std::string whatStandsInTheWay(const TrainConfig &config, bool force,
                               bool resuming) {
  const std::string &dir = config.checkpointDir;
  CheckpointDirectoryScan scan = scanCheckpointDirectory(dir, config.runId);
  if (!scan.inTheWay.empty())
    return dir + "/" +
           scan.inTheWay[0].substr(scan.inTheWay[0].find_last_of('/') + 1) +
           " is in the way: not a checkpoint of gptc's (no " +
           kCheckpointStateFile +
           "), and this run's checkpoints are named so; move it, or save "
           "elsewhere with --checkpoint-dir";
  std::vector<std::string> others = scan.foreign;
  if (!config.keepUnrecorded)
    others.insert(others.end(), scan.unrecorded.begin(), scan.unrecorded.end());
  if (others.empty() || force)
    return "";
  if (!resuming)
    return dir + " holds the checkpoints of another run (" + nameSome(others) +
           "); continue that run with --resume " + dir +
           ", save elsewhere with --checkpoint-dir, or pass --force to let "
           "this run replace them";
  return dir + " holds the checkpoints of another run (" + nameSome(others) +
         ") than the one --resume continues (" + config.resumePath +
         "); save elsewhere with --checkpoint-dir, or pass --force to let "
         "this run save there (replacing any of the same step; --keep "
         "removes only this run's)";
}

} // namespace

bool settleCheckpoints(const cli::ParsedOptions &o, bool leader,
                       TrainConfig &config, RunClaim &claim,
                       std::string &error) {
  if (o.has("--resume") && o.has("--init")) {
    error = "--resume and --init both set the weights; give one";
    return false;
  }
  if (auto r = o.get("--resume");
      r && !findCheckpoint(*r, config.resumePath, error)) {
    error = "--resume: " + error;
    return false;
  }
  if (!config.initPath.empty() &&
      !checkRegularFile(config.initPath, "--init weights file", error))
    return false;
  if (!leader)
    return true;
  // The run's identity: the resumed run's, else a new one. A checkpoint
  // from before runs were recorded makes the unrecorded checkpoints of its
  // own directory this run's.
  const bool resuming = !config.resumePath.empty();
  if (resuming)
    config.runId = checkpointRunId(config.resumePath);
  if (config.runId.empty()) {
    config.keepUnrecorded =
        resuming && isInside(config.resumePath, config.checkpointDir);
    config.runId = newRunId();
  }
  // A run saves when asked to, and when a signal stops it. Only the first
  // must have its directory: without one a stop by signal saves nothing.
  const bool saving = config.saveEvery > 0 || config.saveAtEnd;
  std::string why;
  if (!claim.take(config.checkpointDir, config.runId, why) ||
      !(why = whatStandsInTheWay(config, o.has("--force"), resuming)).empty()) {
    if (saving) {
      error = "--checkpoint-dir: " + why;
      return false;
    }
    claim.release();
    config.checkpointDirClaimed = false;
    config.unclaimedReason =
        why + " (give --checkpoint-dir DIR to save this run)";
    return true;
  }
  if (saving && !checkWritableDestination(
                    config.checkpointDir + "/" + kCheckpointStateFile, error)) {
    error = "--checkpoint-dir: " + error;
    return false;
  }
  return true;
}

} // namespace gptc::commands
