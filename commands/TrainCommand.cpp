//===- TrainCommand.cpp - `gptc train` ------------------------------------===//

#include "commands/TrainCommand.h"

#include "commands/CheckpointOwnership.h"
#include "commands/CommandOptions.h"
#include "commands/CompileCache.h"
#include "commands/PeakFlops.h"
#include "commands/RankLauncher.h"
#include "commands/ScheduleFit.h"

#include "runtime/Bundle.h"
#include "runtime/Checkpoint.h"
#include "runtime/ErrorLine.h"
#include "runtime/Files.h"
#include "runtime/HostMemory.h"
#include "runtime/OpenStepDevice.h"
#include "runtime/Sha256.h"
#include "runtime/Trainer.h"
#include "runtime/comm/Collectives.h"
#include "runtime/comm/JobEnvironment.h"
#include "runtime/cpu/HostGemms.h"
#include "runtime/data/Shard.h"

#include "llvm/ADT/StringExtras.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

namespace gptc {
namespace commands {
using namespace runtime;

namespace {

const char *kMe = "gptc train: ";

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// What this job can run: a bundle compiled for as many ranks as the job
/// has.
bool checkRunnable(const Manifest &m, int worldSize, std::string &error) {
  if (m.ranks != worldSize) {
    error = m.path + ": ranks: the bundle trains on " +
            std::to_string(m.ranks) + " rank" + (m.ranks == 1 ? "" : "s") +
            " (training.ranks) and this job has " + std::to_string(worldSize) +
            (m.ranks > 1 ? "; start it with mpirun -np " +
                               std::to_string(m.ranks) + " gptc train ..."
                         : "; recompile with training.ranks=" +
                               std::to_string(worldSize));
    return false;
  }
  return true;
}

/// What every rank must have the same of: the shard files' names and
/// sizes (a SHA-256), or the glob's error.
std::string dataDigest(const std::string &pattern) {
  std::vector<std::string> paths;
  std::string error;
  if (!data::expandShardGlob(pattern, paths, error))
    return "no files";
  std::ostringstream text;
  for (const std::string &p : paths) {
    struct stat st;
    text << p << " " << (stat(p.c_str(), &st) == 0 ? int64_t(st.st_size) : -1)
         << "\n";
  }
  std::string t = text.str();
  return sha256Hex(t.data(), t.size());
}

/// What a run's weights start from, for the ranks to agree on: the seed
/// (in the configuration), or the SHA-256 of --resume's checkpoint.json or
/// of --init's file.
std::string startingWeights(const TrainConfig &config) {
  std::string file = !config.resumePath.empty()
                         ? config.resumePath + "/checkpoint.json"
                         : config.initPath;
  if (file.empty())
    return "seed";
  std::string hex, error;
  int64_t bytes = 0;
  return sha256File(file, hex, bytes, error) ? hex : error;
}

/// Every rank checks that all run the same bundle on the same data.
bool checkSameJob(const Manifest &m, const TrainConfig &config,
                  std::string &error) {
  comm::Collectives &c = comm::Collectives::get();
  return c.agree("bundle (step library SHA-256)", m.stepLibrary.sha256,
                 error) &&
         c.agree("training data (shard names and sizes, SHA-256)",
                 dataDigest(config.trainPattern), error) &&
         c.agree("validation data (shard names and sizes, SHA-256)",
                 config.valTokens > 0 ? dataDigest(config.valPattern) : "off",
                 error) &&
         c.agree("run configuration (steps, seed, validation, --bucket-mb)",
                 std::to_string(config.steps) + " " +
                     std::to_string(config.seed) + " " +
                     std::to_string(config.valEvery) + " " +
                     std::to_string(config.valTokens) + " " +
                     std::to_string(c.bucketBytes()),
                 error) &&
         c.agree("starting weights (--resume checkpoint, --init file)",
                 startingWeights(config), error);
}

int64_t countParameters(const Manifest &m) {
  int64_t n = 0;
  for (const ParamEntry &p : m.params) {
    int64_t e = 1;
    for (int64_t d : p.shape)
      e *= d;
    n += e;
  }
  return n;
}

/// The configuration of the run: the command line (its numbers checked
/// already) over the manifest's defaults.
TrainConfig makeConfig(const cli::ParsedOptions &o, const Manifest &m) {
  const RunDefaults &d = m.run;
  TrainConfig config;
  auto count = [&](const char *name, int64_t fallback) {
    auto v = o.get(name);
    return v ? *cli::parseCount(*v) : fallback;
  };
  config.steps = count("--steps", d.steps);
  config.seed = uint64_t(count("--seed", d.seed));
  config.valEvery = count("--val-every", d.valEvery);
  config.valTokens = count("--val-tokens", d.valTokens);
  config.trainPattern = o.get("--data").value_or(d.train);
  config.valPattern = o.get("--val").value_or(d.val);
  config.timingSkipSteps = d.timingSkipSteps;
  config.saveParamsPath = o.get("--save-params").value_or("");
  config.saveEvery = count("--save-every", 0);
  config.keep = count("--keep", 0);
  config.saveAtEnd = o.has("--checkpoint-dir");
  config.checkpointDir = o.get("--checkpoint-dir").value_or("checkpoints");
  config.initPath = o.get("--init").value_or("");
  config.logPath = o.get("--log").value_or("");
  config.tensorboardDir = o.get("--tensorboard").value_or("");
  config.logEvery = count("--log-every", 0);
  config.stopAfter = count("--stop-after", 0);
  config.rank = comm::Collectives::get().rank();
  config.worldSize = comm::Collectives::get().size();
  return config;
}

void printHeader(const Manifest &manifest, const TrainConfig &config,
                 const StepDevice &device, std::ostream &out) {
  const int64_t tokensPerStep =
      manifest.microBatchTokens() * manifest.gradAccum;
  out << kMe << manifest.specName << " | "
      << withThousands(countParameters(manifest)) << " params | B "
      << manifest.deviceBatch << " x T " << manifest.seqLen << " x accum "
      << manifest.gradAccum << " = " << withThousands(tokensPerStep)
      << " tok/step" << (config.worldSize > 1 ? " per rank" : "") << " | "
      << config.steps << " steps | seed " << config.seed << "\n";
  if (config.worldSize > 1)
    out << kMe << config.worldSize << " ranks"
        << (comm::Collectives::get().hosts() > 1
                ? " on " + std::to_string(comm::Collectives::get().hosts()) +
                      " hosts"
                : std::string())
        << " over " << comm::Collectives::get().backendName() << " | "
        << manifest.deviceBatch << " sequences per rank | buckets of "
        << comm::Collectives::get().bucketBytes() / (1 << 20) << " MiB\n";
  out << kMe << "data " << config.trainPattern << " | val "
      << (config.valTokens > 0 ? config.valPattern : std::string("off"))
      << "\n";
  // What the GEMMs run on (runtime/cpu/HostGemms.h on the CPU).
  if (manifest.target != "cpu")
    out << kMe << manifest.target << ": " << device.name()
        << " | GEMMs cuBLASLt\n";
  else
    out << kMe << "cpu: GEMMs " << describeHostGemms() << "\n";
  if (manifest.stepFlops > 0)
    out << kMe << "mfu: "
        << describeStepFlops(manifest, config.worldSize, config.peakSource)
        << "\n";
  if (!config.checkpointDirClaimed)
    out << kMe << "note: a stop by signal will save no checkpoint: "
        << config.unclaimedReason << "\n";
  if (std::string note = scheduleSpanNote(manifest, config.steps);
      !note.empty())
    out << note << "\n";
  out.flush();
}

/// Plans `spec` for a job of `jobRanks` ranks, as torchrun runs a script:
/// a spec for other ranks compiles for these, its global batch kept with
/// as many micro-steps and device_batch derived (overrides appended to
/// `overrides`, `note` saying so). False with `error` when the spec does
/// not plan (located) or the batch does not split over the ranks.
bool planForRanks(const PlanHook &plan, const std::string &spec,
                  std::vector<std::string> &overrides,
                  const CompileFlags &flags, int64_t jobRanks,
                  SpecPlan &planned, std::string &note, ErrorLine &error) {
  if (!plan(spec, overrides, flags, planned, error))
    return false;
  if (planned.ranks == jobRanks)
    return true;
  const int64_t accum =
      planned.batch / std::max<int64_t>(1, planned.deviceBatch * planned.ranks);
  const std::string n = std::to_string(jobRanks),
                    b = std::to_string(planned.batch),
                    steps = accum > 1
                                ? " x " + std::to_string(accum) + " micro-steps"
                                : "";
  if (accum < 1 || planned.batch % (jobRanks * accum) != 0) {
    error = ErrorLine::message(
        spec + ": training.batch " + b + " does not split over " + n + " rank" +
        (jobRanks == 1 ? "" : "s") + steps +
        "; set training.device_batch (and training.batch) for " + n + " rank" +
        (jobRanks == 1 ? "" : "s") + " with --set");
    return false;
  }
  const int64_t deviceBatch = planned.batch / (jobRanks * accum);
  overrides.push_back("training.ranks=" + n);
  overrides.push_back("training.device_batch=" + std::to_string(deviceBatch));
  note = "training.ranks " + n + " (this job's; the spec says " +
         std::to_string(planned.ranks) + "): device_batch " +
         std::to_string(deviceBatch) + steps + " x " + n + " rank" +
         (jobRanks == 1 ? "" : "s") + " = the global batch of " + b +
         " sequences";
  return plan(spec, overrides, flags, planned, error);
}

bool isSpecPath(const std::string &path) {
  return endsWith(path, ".yaml") || endsWith(path, ".yml") ||
         (!isDirectory(path) && access(path.c_str(), F_OK) == 0);
}

/// The spec's overrides of a command line: --set's, and --dtype's.
/// --no-fuse and --target, for a spec's compile.
CompileFlags compileFlags(const cli::ParsedOptions &o) {
  CompileFlags flags;
  flags.noFuse = o.has("--no-fuse");
  flags.target = o.get("--target").value_or("cpu");
  return flags;
}

std::vector<std::string> specOverrides(const cli::ParsedOptions &o) {
  std::vector<std::string> overrides = o.all("--set");
  if (auto dtype = o.get("--dtype"))
    overrides.push_back("training.dtype=" + *dtype);
  return overrides;
}

/// One `gptc train` as its steps see it: the options, this process's place
/// in the job, and where it says things.
struct TrainRun {
  TrainRun(std::ostream &out, std::ostream &err) : out(out), err(err) {}
  cli::ParsedOptions options;
  std::ostream &out, &err;
  comm::Collectives *ranks = nullptr;
  bool leader = true, job = false;
  std::ostringstream discarded;

  /// Where progress goes: rank 0's output (the other ranks are quiet).
  std::ostream &say() { return leader ? out : discarded; }
  /// One error line, every rank of a job told to stop: exit code 1.
  int fail(const std::string &message) {
    if (job)
      ranks->fail(message);
    err << kMe << "error: " << message << "\n";
    return 1;
  }
  /// A spec's or a hook's error line, as its kind prints: exit code 1.
  int report(const ErrorLine &error) {
    printErrorLine(err, kMe, error);
    return 1;
  }
};

/// What a step returns: the command's exit code when it ends the command
/// there, nothing when the next step follows.
using Exit = std::optional<int>;

/// The command line: usage, --help, one bundle or spec, numbers that are
/// numbers (checked before anything is compiled or opened).
Exit parseArguments(const std::vector<std::string> &args, TrainRun &run) {
  bool help = false;
  if (!cli::parseOptions(args, trainOptions(), "train", run.err, run.options,
                         help))
    return 2;
  if (help) {
    run.out << trainCommandUsage();
    return 0;
  }
  const cli::ParsedOptions &o = run.options;
  if (o.positionals.size() != 1) {
    run.err << kMe << "error: "
            << (o.positionals.empty() ? "no bundle directory or spec"
                                      : "more than one bundle or spec")
            << " (see gptc train --help)\n";
    return 2;
  }
  for (const char *name :
       {"--steps", "--val-every", "--val-tokens", "--seed", "--bucket-mb",
        "--ranks", "--save-every", "--keep", "--collective-timeout",
        "--log-every", "--stop-after"})
    if (auto v = o.get(name);
        v && !cli::parseCount(*v, std::string(name) != "--seed")) {
      run.err << kMe << "error: " << name << " '" << *v
              << "' is not a non-negative integer\n";
      return 2;
    }
  if (auto p = o.get("--peak-tflops");
      p && !(cli::parseNumber(*p) && *cli::parseNumber(*p) > 0)) {
    run.err << kMe << "error: --peak-tflops '" << *p
            << "' is not a positive number (TFLOP/s a rank)\n";
    return 2;
  }
  if (auto r = o.get("--ranks"); r && (*cli::parseCount(*r, true) < 1 ||
                                       *cli::parseCount(*r, true) > 4096)) {
    run.err << kMe << "error: --ranks " << *r << " is not in [1, 4096]\n";
    return 2;
  }
  return std::nullopt;
}

/// --ranks N outside mpirun: the spec checked for N ranks here (its errors
/// one line, not one per rank), then the job started (this process waits
/// for it and exits with its code).
Exit launchRanksIfAsked(const std::vector<std::string> &args,
                        const PlanHook &plan, TrainRun &run) {
  const cli::ParsedOptions &o = run.options;
  auto r = o.get("--ranks");
  RankPlacement where{o.get("--hosts").value_or(""),
                      o.get("--hostfile").value_or("")};
  const bool inJob = comm::startedAsRank();
  if ((o.has("--hosts") || o.has("--hostfile")) && (!r || inJob))
    return run.report(ErrorLine::message(
        std::string(o.has("--hosts") ? "--hosts" : "--hostfile") +
        (inJob ? ": this process is already a rank of a job (mpirun or "
                 "srun started it); give the hosts to that launcher"
               : " places the ranks of --ranks N; give --ranks too")));
  for (const char *option : {"--hosts", "--hostfile"})
    if (auto v = o.get(option); v && v->empty())
      return run.report(ErrorLine::message(
          std::string(option) + " is empty (an unset variable?): give " +
          (std::string(option) == "--hosts" ? "NAME:SLOTS,..." : "a file") +
          " or leave it out to run on this machine"));
  if (!r || inJob)
    return std::nullopt;
  const int64_t n = *cli::parseCount(*r, true);
  if (!where.hosts.empty() && !where.hostfile.empty())
    return run.report(ErrorLine::message(
        "--hosts and --hostfile both place the ranks; give one"));
  if (!where.hosts.empty()) {
    int64_t slots = 0;
    std::string hostsError;
    if (!countHostSlots(where.hosts, slots, hostsError))
      return run.report(ErrorLine::message(hostsError));
    if (slots < n)
      return run.report(ErrorLine::message(
          "--hosts " + where.hosts + " offers " + std::to_string(slots) +
          " slot" + (slots == 1 ? "" : "s") + " for --ranks " +
          std::to_string(n) + " (NAME:SLOTS, a slot per rank: a host's GPUs)"));
  }
  if (!where.hostfile.empty()) {
    std::string fileError;
    if (!checkRegularFile(where.hostfile, "--hostfile", fileError))
      return run.report(ErrorLine::message(fileError));
  }
  std::vector<std::string> overrides = specOverrides(o);
  SpecPlan planned;
  std::string note;
  ErrorLine error;
  if (plan && isSpecPath(o.positionals[0]) &&
      !planForRanks(plan, o.positionals[0], overrides, compileFlags(o), n,
                    planned, note, error))
    return run.report(error);
  // A bundle for another rank count: one line now, not one per rank later.
  if (!isSpecPath(o.positionals[0]) && isDirectory(o.positionals[0]) &&
      access((o.positionals[0] + "/manifest.json").c_str(), F_OK) == 0) {
    Manifest manifest;
    std::string manifestError;
    if (!readManifest(o.positionals[0] + "/manifest.json", manifest,
                      manifestError))
      return run.report(ErrorLine::message(manifestError));
    if (manifest.ranks != n)
      return run.report(ErrorLine::message(
          manifest.path + ": ranks: the bundle trains on " +
          std::to_string(manifest.ranks) + " rank" +
          (manifest.ranks == 1 ? "" : "s") + " (training.ranks) and --ranks " +
          "asks for " + std::to_string(n) + "; recompile it with --set " +
          "training.ranks=" + std::to_string(n) +
          " (gptc compile SPEC ... -o " + "DIR), or train it with --ranks " +
          std::to_string(manifest.ranks)));
  }
  std::string mpirun = findMpirun(), self = thisProgram();
  if (mpirun.empty())
    return run.report(ErrorLine::message(
        "--ranks " + *r +
        ": mpirun not found on PATH (Debian's openmpi-bin); start the job "
        "with an MPI launcher yourself"));
  if (self.empty())
    return run.report(ErrorLine::message(
        "--ranks: cannot find this program (/proc/self/exe)"));
  std::vector<std::string> command =
      mpirunCommand(mpirun, self, args, n, where);
  run.out << kMe << "starting " << n << " rank" << (n == 1 ? "" : "s") << ": "
          << shellLine(command) << "\n";
  run.out.flush();
  std::string launchError;
  int code = runRankLauncher(command, launchError);
  if (code >= 0)
    return code;
  return run.report(ErrorLine::message(launchError));
}

/// This process's place in the job (one rank, or one of mpirun's): only
/// rank 0 compiles, prints and writes; an error on any rank ends them all.
Exit joinJob(TrainRun &run) {
  const cli::ParsedOptions &o = run.options;
  comm::Collectives &ranks = comm::Collectives::get();
  std::string error;
  if (!ranks.initialize(error))
    return run.report(ErrorLine::message(error));
  run.ranks = &ranks;
  run.leader = ranks.rank() == 0;
  run.job = ranks.size() > 1;
  // A stop forwarded while rank 0 compiles or the ranks load counts at the
  // end of the first step.
  if (run.job)
    runtime::catchEarlyStopSignal();
  // A rank outlives no launcher: its mpirun (or orted) killed outright,
  // it stops as on SIGTERM (saving at the end of its step).
  if (comm::startedAsRank())
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (auto r = o.get("--ranks");
      r && *cli::parseCount(*r, true) != ranks.size()) {
    std::optional<comm::SlurmStep> step = comm::slurmStep();
    run.err << kMe << "error: --ranks " << *r << " but this job has "
            << ranks.size() << " rank" << (ranks.size() == 1 ? "" : "s")
            << (step && step->tasks > 1 ? " (srun starts the ranks: srun -n " +
                                              *r + " --mpi=pmix gptc train ...)"
                                        : std::string())
            << "\n";
    return 2;
  }
  if (auto mb = o.get("--bucket-mb")) {
    int64_t v = *cli::parseCount(*mb, true);
    if (v > 1024)
      return run.fail("--bucket-mb " + *mb + " is more than 1024");
    ranks.setBucketBytes(v << 20);
  }
  ranks.setWatchdogSeconds(
      double(*cli::parseCount(o.get("--collective-timeout").value_or("600"))));
  return std::nullopt;
}

/// The spec's key and the ranks it trains on, before compiling; in a job
/// (or with --ranks) it trains on the job's ranks. Sets `outDir`, the
/// bundle's directory in the compile cache, and `keyed`: whether a bundle
/// there can be reused (its key known).
Exit planSpec(const PlanHook &plan, TrainRun &run, const std::string &spec,
              std::vector<std::string> &overrides, std::string &outDir,
              bool &keyed) {
  const cli::ParsedOptions &o = run.options;
  SpecPlan planned;
  planned.ranks = run.ranks->size();
  std::string note;
  ErrorLine error;
  bool planOk =
      !plan || (run.job || o.has("--ranks")
                    ? planForRanks(plan, spec, overrides, compileFlags(o),
                                   run.ranks->size(), planned, note, error)
                    : plan(spec, overrides, compileFlags(o), planned, error));
  if (!planOk)
    return run.leader ? run.report(error) : 1; // rank 0 says it
  if (!note.empty())
    run.say() << kMe << "note: " << note << "\n";
  const int64_t specRanks = planned.ranks, jobRanks = run.ranks->size();
  if (specRanks != jobRanks)
    return run.fail(spec + ": training.ranks is " + std::to_string(specRanks) +
                    " and this job has " + std::to_string(jobRanks) +
                    (specRanks > 1 ? "; start it with mpirun -np " +
                                         std::to_string(specRanks) +
                                         " gptc train ... (or --ranks " +
                                         std::to_string(specRanks) + ")"
                                   : ""));
  std::string cacheError;
  outDir = compileCacheBundleDir(spec, planned.key, cacheError);
  if (outDir.empty())
    return run.fail(cacheError);
  keyed = !planned.key.empty();
  return std::nullopt;
}

/// Compiles the spec into `outDir` on rank 0, or reuses the bundle there
/// when it was compiled from the same spec, flags and gptc; the ranks agree
/// on the outcome.
Exit compileOrReuse(const CompileHook &compile, TrainRun &run,
                    const std::string &spec,
                    const std::vector<std::string> &overrides,
                    const std::string &outDir, bool keyed) {
  // One compile at a time in the bundle's directory: a second `gptc train`
  // of the same spec waits for the first's bundle and reuses it (it would
  // otherwise compile it again beside it).
  std::optional<CompileLock> compileLock;
  if (run.leader) {
    compileLock.emplace(outDir);
    if (!compileLock->held()) {
      run.say() << kMe << "waiting for another gptc compiling into "
                << compileLock->directory() << "\n";
      run.say().flush();
      compileLock->wait();
    }
  }
  // A bundle there runs as this process: only one this user alone wrote.
  std::string foreign;
  if (access(outDir.c_str(), F_OK) == 0 && !isTrustedBundle(outDir, foreign))
    return run.fail(outDir + ": not reusing or replacing this bundle: " +
                    foreign + " (remove it, or train from another directory)");
  bool compiled = true;
  Manifest cached;
  std::string stale;
  bool reuse =
      keyed && isDirectory(outDir) && checkBundleFiles(outDir, cached, stale);
  if (run.leader && reuse) {
    run.say() << kMe << "reusing " << outDir
              << " (compiled before from the same spec, flags and gptc)\n";
    run.say().flush();
  } else if (run.leader) {
    if (!stale.empty())
      run.say() << kMe << "recompiling " << outDir << ": " << stale << "\n";
    run.say() << kMe << "compiling " << spec << " -> " << outDir << "\n";
    run.say().flush();
    auto started = std::chrono::steady_clock::now();
    ErrorLine error;
    compiled =
        compile(spec, overrides, compileFlags(run.options), outDir, error);
    if (compiled) {
      char took[64];
      std::snprintf(took, sizeof(took), "%.1f",
                    std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - started)
                        .count());
      run.say() << kMe << "compiled in " << took << " s\n";
    } else {
      run.report(error);
      run.err.flush();
    }
  }
  std::string agreeError;
  if (run.job && !run.ranks->agree("compile of " + spec,
                                   compiled ? "ok" : "failed", agreeError))
    return 1; // rank 0 said why
  return compiled ? Exit() : Exit(1);
}

/// A spec compiles into a bundle first (on rank 0; the others wait);
/// `bundle` becomes the bundle's directory.
Exit compileSpec(const CompileHook &compile, const PlanHook &plan,
                 TrainRun &run, std::string &bundle) {
  std::string error;
  if (!checkRegularFile(bundle, "spec", error))
    return run.fail(error);
  if (!compile)
    return run.fail(bundle + ": this program cannot compile specs; pass a "
                             "bundle directory");
  std::vector<std::string> overrides = specOverrides(run.options);
  std::string outDir;
  bool keyed = false;
  if (Exit e = planSpec(plan, run, bundle, overrides, outDir, keyed))
    return e;
  if (Exit e = compileOrReuse(compile, run, bundle, overrides, outDir, keyed))
    return e;
  bundle = outDir;
  return std::nullopt;
}

/// A bundle directory takes no compiler options.
Exit checkBundleOnlyOptions(TrainRun &run, const std::string &bundle) {
  for (const char *specOnly : {"--set", "--dtype", "--no-fuse", "--target"})
    if (run.options.has(specOnly)) {
      run.err << kMe << "error: " << specOnly << " applies when a spec is "
              << "compiled; " << bundle << " is a compiled bundle (recompile "
              << "it with gptc compile SPEC " << specOnly << " ...)\n";
      return 2;
    }
  return std::nullopt;
}

/// A bundle directory, and not a checkpoint (or a directory of them)
/// where a bundle belongs: that names the command that continues it.
Exit checkIsBundle(TrainRun &run, const std::string &bundle) {
  if (!isDirectory(bundle))
    return run.fail(bundle + ": no such bundle directory");
  if (access((bundle + "/manifest.json").c_str(), F_OK) == 0)
    return std::nullopt;
  std::string found, from, sha, ignored;
  if (findCheckpoint(bundle, found, ignored) &&
      readCheckpointBundle(found, from, sha, ignored))
    return run.fail(bundle +
                    (found == bundle
                         ? " is a checkpoint"
                         : " holds checkpoints (the newest " + found + ")") +
                    " of the bundle " + from +
                    ", not a bundle; continue with: gptc train " + from +
                    " --resume " + bundle);
  return std::nullopt;
}

/// What a run trains: the bundle opened on its device, and the run's
/// configuration.
struct OpenedRun {
  Manifest manifest;
  StepLibrary step;
  std::unique_ptr<StepDevice> device;
  TrainConfig config;
  RunClaim claim; ///< rank 0's hold on the checkpoint directory
};

/// Opens the bundle on the device its target runs on and checks the run's
/// configuration and outputs before it starts (and, in a job, that every
/// rank runs the same).
Exit openRun(TrainRun &run, const std::string &bundle, OpenedRun &opened) {
  std::string error;
  opened.device = openStepDevice(bundle, error);
  if (!opened.device ||
      !openBundle(bundle, opened.manifest, opened.step, error) ||
      !checkRunnable(opened.manifest, run.ranks->size(), error) ||
      !joinDeviceRanks(opened.manifest, error))
    return run.fail(error);
  TrainConfig &config = opened.config;
  config = makeConfig(run.options, opened.manifest);
  if (opened.manifest.stepFlops > 0) {
    std::optional<double> tflops;
    if (auto v = run.options.get("--peak-tflops"))
      tflops = cli::parseNumber(*v);
    StatedPeak peak = statedPeak(opened.manifest, opened.device->name(), tflops,
                                 cpuThreadsPerRank(comm::localRanks()));
    config.peakFlops = peak.flops;
    config.peakSource = peak.source;
  }
  if (!checkScheduleFit(opened.manifest, config.steps,
                        isSpecPath(run.options.positionals[0]), error))
    return run.fail(error);
  if (run.leader && !config.saveParamsPath.empty() &&
      !checkWritableDestination(config.saveParamsPath, error))
    return run.fail("--save-params: " + error);
  if (!settleCheckpoints(run.options, run.leader, config, opened.claim, error))
    return run.fail(error);
  if (run.leader && !config.logPath.empty() &&
      !checkWritableDestination(config.logPath, error))
    return run.fail("--log: " + error);
  if (run.leader && !config.tensorboardDir.empty() &&
      (!makeDirectories(config.tensorboardDir, error) ||
       !checkWritableDestination(config.tensorboardDir + "/events.out.tfevents",
                                 error)))
    return run.fail("--tensorboard: " + error);
  if (run.job && !checkSameJob(opened.manifest, config, error)) {
    // Every rank found the same difference: rank 0 says it.
    if (run.leader)
      run.err << kMe << "error: " << error << "\n";
    return 1;
  }
  return std::nullopt;
}

/// A CPU run that cannot fit in this machine's memory stops here, before
/// its arena is allocated (every rank checks its own machine and they
/// agree); --force-memory runs it anyway.
Exit checkMemoryFits(TrainRun &run, const Manifest &manifest) {
  if (manifest.target != "cpu" || run.options.has("--force-memory"))
    return std::nullopt;
  std::string memoryError, error;
  bool fits =
      checkRunFits(manifest.arenaBytes, comm::localRanks(), memoryError);
  int64_t failing = fits ? 0 : 1;
  if (run.job && !run.ranks->maxOverRanks(failing, failing, error))
    return run.fail(error);
  if (!failing)
    return std::nullopt;
  if (run.leader)
    run.err << kMe << "error: " << run.options.positionals[0] << ": "
            << (fits ? "another machine of the job: the run does not fit "
                       "in its memory"
                     : memoryError)
            << "\n";
  return 1;
}

/// Trains; the exit code says how it ended. Stopped by a signal: the
/// shell's code for it (130 for Ctrl-C). A stop mpirun forwarded (SIGUSR1)
/// is the job's clean end: 0, so that mpirun reports no failed rank (gptc
/// train --ranks exits 128 + its signal).
int trainToEnd(TrainRun &run, OpenedRun &opened) {
  printHeader(opened.manifest, opened.config, *opened.device, run.say());
  TrainResult result;
  std::string error;
  if (!train(opened.manifest, opened.step, *opened.device, opened.config,
             run.say(), result, error))
    return run.fail(error);
  if (run.job && result.stoppedBySignal == SIGUSR1)
    return 0;
  return result.stoppedBySignal ? 128 + result.stoppedBySignal : 0;
}

} // namespace

int runTrainCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &allErr, const CompileHook &compile,
                    const PlanHook &plan) {
  // In a job every rank meets the same usage, spec or configuration error:
  // rank 0 says it, once (a rank's own failure goes through
  // Collectives::fail, one line naming the rank).
  std::ostringstream quiet;
  TrainRun run(out, comm::laterRank() ? quiet : allErr);
  if (Exit e = parseArguments(args, run))
    return *e;
  if (Exit e = launchRanksIfAsked(args, plan, run))
    return *e;
  if (Exit e = joinJob(run))
    return *e;
  std::string bundle = run.options.positionals[0];
  if (Exit e = isSpecPath(bundle) ? compileSpec(compile, plan, run, bundle)
                                  : checkBundleOnlyOptions(run, bundle))
    return *e;
  if (Exit e = checkIsBundle(run, bundle))
    return *e;
  OpenedRun opened;
  if (Exit e = openRun(run, bundle, opened))
    return *e;
  if (Exit e = checkMemoryFits(run, opened.manifest))
    return *e;
  return trainToEnd(run, opened);
}

const char kTrainHelp[] =
    R"(  gptc train SPEC|DIR --data GLOB [--val GLOB] [--steps N] [--seed S]
                                 train a spec (compiled first) or a bundle on
                                 the CPU (see gptc train --help)
)";

} // namespace commands
} // namespace gptc
