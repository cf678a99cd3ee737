//===- Trainer.cpp - The training loop ------------------------------------===//

#include "runtime/Trainer.h"
#include "runtime/DocumentSeparator.h"
#include "runtime/ParamFile.h"
#include "runtime/StopSignals.h"
#include "runtime/TrainerText.h"

#include "runtime/Arena.h"
#include "runtime/Checkpoint.h"
#include "runtime/Divergence.h"
#include "runtime/Files.h"
#include "runtime/TensorBoardEvents.h"
#include "runtime/comm/Collectives.h"
#include "runtime/data/DataLoader.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>

namespace gptc {
namespace runtime {

namespace {

double seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int64_t peakRssKiB() {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return 0;
  return int64_t(ru.ru_maxrss); // KiB on Linux
}

/// The loop's state: the arena, the loaders and the slots it touches.
class Loop {
public:
  Loop(const Manifest &m, const StepLibrary &step, StepDevice &device,
       const TrainConfig &config, std::ostream &out)
      : m(m), step(step), device(device), config(config), out(out) {}

  bool init(TrainResult &result, std::string &error);
  bool run(TrainResult &result, std::string &error);

private:
  bool initValidation(TrainResult &result, std::string &error);
  bool validate(int64_t stepsDone, TrainResult &result, std::string &error);
  /// The device copies of the slots the loop writes or reads.
  bool put(const Slot *s, std::string &error) {
    return device.upload(s->offset, s->numBytes(), error);
  }
  bool get(const Slot *s, std::string &error) {
    return device.download(s->offset, s->numBytes(), error);
  }
  bool putBatch(std::string &error) {
    return put(slot.tokens, error) && put(slot.targets, error) &&
           put(slot.step, error);
  }
  /// Copies back the slots named PREFIX*, with one wait.
  bool getSlots(const char *prefix, std::string &error);
  bool getParameters(std::string &error) { return getSlots("param.", error); }
  bool zeroGradients(std::string &error);
  /// The stop signal any rank received (0: none), the same on every rank.
  bool agreedStop(int &signal, std::string &error) {
    signal = stopRequested();
    if (config.worldSize == 1)
      return true;
    int64_t max = 0;
    if (!comm::Collectives::get().maxOverRanks(signal, max, error))
      return false;
    signal = int(max);
    return true;
  }
  /// Restores --resume's checkpoint or --init's weights into the arena.
  bool restore(std::string &error);
  /// Writes checkpointDir/step_`done` (rank 0; every rank calls it).
  bool saveCheckpoint(int64_t done, std::string &error);
  bool writeCheckpoint(int64_t done, std::string &error);
  bool call(void (StepLibrary::*entry)(gptc_arena_ref *) const,
            const char *name, std::string &error) {
    return device.run(name, [&] { (step.*entry)(device.ref()); }, error);
  }
  void line(const char *text) {
    out << text << "\n";
    out.flush();
  }
  /// Appends one JSON object (its fields, without braces) to --log.
  bool logLine(const char *type, int64_t step, const char *fields,
               std::string &error);
  /// Writes the same values to --tensorboard as scalars of `step`.
  bool boardScalars(int64_t step,
                    const std::vector<std::pair<std::string, double>> &values,
                    std::string &error);
  /// --log with --resume: drops the log's lines after the resumed step and
  /// carries its elapsed time on.
  bool continueLog(std::string &error);
  /// Seconds since the run started.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         startTime)
        .count();
  }

  const Manifest &m;
  const StepLibrary &step;
  StepDevice &device;
  const TrainConfig &config;
  std::ostream &out;

  Arena arena;
  data::DataLoader trainLoader, valLoader;
  std::unique_ptr<DivergenceGuard> divergence;
  bool validating = false;
  CheckpointState resumed;       ///< what --resume read
  int64_t firstStep = 0;         ///< steps done before this run
  int64_t savedStep = -1;        ///< the step of the last checkpoint written
  bool saveFailedOnDisk = false; ///< the last save failed writing files
  std::string laterNoted;        ///< a later checkpoint already named
  std::FILE *log = nullptr;      ///< --log, on rank 0
  double trainSeconds = 0;       ///< this run's training steps, summed
  double valSeconds = 0;         ///< this run's validations, summed
  int64_t valRuns = 0;           ///< validations this run timed

  std::chrono::steady_clock::time_point startTime =
      std::chrono::steady_clock::now();

public:
  ~Loop() {
    if (log)
      std::fclose(log);
  }

private:
  struct {
    const Slot *tokens, *targets, *step, *loss, *evalLoss, *lrMult;
  } slot = {};
  int32_t *tokens = nullptr, *targets = nullptr;
  int64_t *stepSlot = nullptr;
  float *loss = nullptr, *evalLoss = nullptr, *lrMult = nullptr;
  /// --tensorboard's event file, on rank 0.
  std::unique_ptr<TensorBoardWriter> board;
};

bool Loop::init(TrainResult &result, std::string &error) {
  if (!step.isLoaded()) {
    error = "the step library is not loaded";
    return false;
  }
  if (!arena.allocate(m, error))
    return false;
  arena.initialize(config.seed);
  if (!restore(error))
    return false;
  divergence = std::make_unique<DivergenceGuard>(m, arena);
  if (resumed.haveFirstLoss)
    divergence->restoreFirstLoss(resumed.firstLoss);
  tokens = arena.i32("tokens");
  targets = arena.i32("targets");
  stepSlot = arena.i64("step");
  loss = arena.f32("loss");
  evalLoss = arena.f32("eval_loss");
  lrMult = arena.f32("lr_mult");
  if (!tokens || !targets || !stepSlot || !loss || !evalLoss) {
    error = m.path + ": missing runtime slots"; // readManifest checks these
    return false;
  }
  slot = {m.findSlot("tokens"), m.findSlot("targets"),   m.findSlot("step"),
          m.findSlot("loss"),   m.findSlot("eval_loss"), m.findSlot("lr_mult")};
  // The schedules span the run's steps (optim.lr_schedule's total_steps),
  // written before the slots go to the device.
  if (m.findSlot("total_steps"))
    *arena.i64("total_steps") = config.steps;
  device.useBufferUnits(step.bufferUnits());
  if (!device.attach(arena, error))
    return false;

  data::DataLoaderOptions o;
  o.pattern = config.trainPattern;
  o.batchSize = m.deviceBatch;
  o.seqLen = m.seqLen;
  o.vocabSize = m.vocabSize;
  o.prefetch = config.prefetch;
  o.rank = config.rank;
  o.worldSize = config.worldSize;
  if (!trainLoader.init(o, error))
    return false;
  // A document mask needs the shards' own document separator.
  if (m.documentMask &&
      !checkDocumentSeparator(trainLoader.files()[0], m.bosToken, error))
    return false;
  if (!config.resumePath.empty()) {
    // The batches continue where the checkpoint's run stopped, in the
    // same shards.
    const auto &files = trainLoader.files();
    size_t at = resumed.data.shard;
    std::string name = at < files.size()
                           ? files[at].substr(files[at].find_last_of('/') + 1)
                           : "";
    if (at >= files.size() || name != resumed.shardName ||
        trainLoader.shardSizes()[at] != resumed.shardTokens) {
      error = config.resumePath + "/checkpoint.json: data.shard_file: the " +
              "checkpoint's run was reading " + resumed.shardName + " (" +
              withThousands(resumed.shardTokens) +
              " tokens) as training shard " + std::to_string(at) + ", but " +
              config.trainPattern + " is other data";
      return false;
    }
    if (!trainLoader.seek(resumed.data, error)) {
      error = config.resumePath + "/checkpoint.json: data.position: " + error;
      return false;
    }
  }
  result.firstStep = firstStep;
  if (!config.logPath.empty() && config.rank == 0) {
    if (firstStep > 0 && !continueLog(error))
      return false;
    log = std::fopen(config.logPath.c_str(), firstStep > 0 ? "a" : "w");
    if (!log) {
      error =
          config.logPath + ": cannot write the log: " + std::strerror(errno);
      return false;
    }
  }
  if (!config.tensorboardDir.empty() && config.rank == 0) {
    board = std::make_unique<TensorBoardWriter>();
    if (!board->open(config.tensorboardDir, firstStep > 0 ? firstStep + 1 : 0,
                     error))
      return false;
  }
  return initValidation(result, error);
}

bool Loop::continueLog(std::string &error) {
  struct stat st;
  if (::stat(config.logPath.c_str(), &st) != 0)
    return true; // a new log for the resumed run
  // A FIFO or a device there is not read (it would block or never end).
  if (!checkRegularFile(config.logPath, "log (--log)", error))
    return false;
  std::ifstream in(config.logPath);
  if (!in)
    return true;
  std::string kept, text;
  double lastElapsed = 0;
  bool dropped = false;
  static const std::regex stepField(R"("step": (\d+))"),
      elapsedField(R"("elapsed": ([0-9.e+-]+))");
  for (std::string row; std::getline(in, row);) {
    std::smatch m;
    if (std::regex_search(row, m, stepField) &&
        std::stoll(m[1].str()) > firstStep) {
      dropped = true;
      continue;
    }
    if (std::regex_search(row, m, elapsedField))
      lastElapsed = std::strtod(m[1].str().c_str(), nullptr);
    kept += row + "\n";
  }
  // The run continues the checkpoint's: its clock goes on from the last
  // line the log kept.
  startTime -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(lastElapsed));
  if (!dropped)
    return true;
  // Lines of steps after the checkpoint (a run that went on, or crashed,
  // past it) are this run's to write again: dropped, atomically.
  std::string tmp = config.logPath + ".tmp";
  std::ofstream outFile(tmp, std::ios::trunc);
  outFile << kept;
  outFile.close();
  if (!outFile || std::rename(tmp.c_str(), config.logPath.c_str()) != 0) {
    error =
        config.logPath + ": cannot rewrite the log: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  line(("log " + config.logPath + ": dropped the lines after step " +
        std::to_string(firstStep) + " (the run resumes there)")
           .c_str());
  return true;
}

bool Loop::logLine(const char *type, int64_t step, const char *fields,
                   std::string &error) {
  if (!log)
    return true;
  const int64_t tokens =
      step * m.microBatchTokens() * m.gradAccum * config.worldSize;
  if (std::fprintf(log,
                   "{\"type\": \"%s\", \"step\": %lld, %s, \"tokens\": %lld, "
                   "\"elapsed\": %.3f}\n",
                   type, (long long)step, fields, (long long)tokens,
                   elapsed()) < 0 ||
      std::fflush(log) != 0) {
    error = config.logPath + ": cannot write the log: " + std::strerror(errno);
    return false;
  }
  return true;
}

bool Loop::boardScalars(
    int64_t step, const std::vector<std::pair<std::string, double>> &values,
    std::string &error) {
  for (const auto &[tag, value] : values)
    if (board && !board->scalar(tag, step, value, error))
      return false;
  return true;
}

bool Loop::restore(std::string &error) {
  if (!config.initPath.empty()) {
    if (!loadInitialWeights(m, arena, config.initPath, error))
      return false;
    line(("initialised from " + config.initPath + " (" +
          std::to_string(m.params.size()) + " parameters)")
             .c_str());
    return true;
  }
  if (config.resumePath.empty())
    return true;
  if (!loadCheckpoint(m, arena, config.resumePath, resumed, error))
    return false;
  line(("resumed from " + config.resumePath + " (step " +
        std::to_string(resumed.step) + ")")
           .c_str());
  // Its schedules spanned the run it was saved in; from here they span
  // this one's --steps.
  if (resumed.runSteps > 0 && resumed.runSteps != config.steps)
    line(("note: the checkpoint's run was " + std::to_string(resumed.runSteps) +
          " steps; the schedules now span --steps " +
          std::to_string(config.steps))
             .c_str());
  firstStep = resumed.step;
  savedStep = firstStep;
  if (firstStep > config.steps) {
    error = config.resumePath + "/checkpoint.json: step: the checkpoint is " +
            "at step " + std::to_string(firstStep) + ", past --steps " +
            std::to_string(config.steps);
    return false;
  }
  return true;
}

bool Loop::saveCheckpoint(int64_t done, std::string &error) {
  // Every rank comes here at the same steps and agrees on whether rank 0's
  // write worked (a failed one is tried again at the next chance); the
  // others wait for it outside the collective watchdog (a slow disk is no
  // dead rank).
  if (done == savedStep)
    return true;
  bool ok = config.rank != 0 || writeCheckpoint(done, error);
  if (config.worldSize > 1) {
    bool anyFailed = false;
    std::string waitError;
    if (!comm::Collectives::get().waitForCheckpointWrite(!ok, anyFailed,
                                                         waitError)) {
      error = waitError;
      saveFailedOnDisk = false;
      return false;
    }
    if (config.rank != 0) {
      // Rank 0 says the rest (a warning, or the run's error).
      saveFailedOnDisk = anyFailed;
      if (anyFailed && error.empty())
        error = "rank 0 could not save the checkpoint of step " +
                std::to_string(done);
      ok = !anyFailed;
    }
  }
  if (ok)
    savedStep = done;
  return ok;
}

bool Loop::writeCheckpoint(int64_t done, std::string &error) {
  if (!config.checkpointDirClaimed) {
    line(("not saving a checkpoint: " + config.unclaimedReason).c_str());
    savedStep = done;
    return true;
  }
  if (!getParameters(error) || !getSlots("state.", error))
    return false;
  CheckpointState state;
  state.step = done;
  state.runId = config.runId;
  state.runSteps = config.steps;
  state.seed = config.seed;
  state.data = trainLoader.nextPosition();
  const std::string &file = trainLoader.files()[state.data.shard];
  state.shardName = file.substr(file.find_last_of('/') + 1);
  state.shardTokens = trainLoader.shardSizes()[state.data.shard];
  state.tokenizer = tokenizerRecordOfShard(trainLoader.files()[0]);
  state.haveFirstLoss = divergence->firstLossSeen(state.firstLoss);
  std::string written, later;
  saveFailedOnDisk = false;
  if (!runtime::saveCheckpoint(m, arena, state, config.checkpointDir,
                               config.keep, config.keepUnrecorded, written,
                               later, error)) {
    saveFailedOnDisk = true;
    return false;
  }
  savedStep = done;
  line(("saved checkpoint " + written).c_str());
  if (!later.empty() && later != laterNoted) {
    laterNoted = later;
    line(("note: " + later + " is later than this run and was left " +
          "(another run's); --resume " + config.checkpointDir +
          " takes the newest")
             .c_str());
  }
  return true;
}

bool Loop::initValidation(TrainResult &result, std::string &error) {
  if (config.valTokens <= 0)
    return true;
  // Every validation batch is split among the ranks like a training one.
  const int64_t bt = m.microBatchTokens() * config.worldSize;
  int64_t wanted = config.valTokens / bt;
  if (wanted == 0) {
    error = "validation tokens " + std::to_string(config.valTokens) +
            " are fewer than one batch of B*T = " + std::to_string(bt);
    return false;
  }
  // Probe the shards (training mode) for the batches they hold.
  data::DataLoaderOptions o;
  o.pattern = config.valPattern;
  o.batchSize = m.deviceBatch;
  o.seqLen = m.seqLen;
  o.vocabSize = m.vocabSize;
  o.rank = config.rank;
  o.worldSize = config.worldSize;
  if (!valLoader.init(o, error))
    return false;
  int64_t available = 0;
  for (uint64_t n : valLoader.shardSizes())
    available += int64_t((n - 1) / uint64_t(bt));
  int64_t used = std::min(wanted, available);
  if (used * bt != config.valTokens) {
    std::string why =
        used < wanted
            ? "the val shards hold " +
                  withThousands(int64_t(valLoader.totalTokens())) + " tokens"
            : "whole batches of B*T = " + withThousands(bt);
    out << "note: validating on " << withThousands(used * bt) << " of the "
        << withThousands(config.valTokens) << " validation tokens (" << why
        << ")\n";
  }
  o.valTokens = used * bt;
  if (!valLoader.init(o, error))
    return false;
  result.valTokens = o.valTokens;
  validating = true;
  return true;
}

bool Loop::validate(int64_t stepsDone, TrainResult &result,
                    std::string &error) {
  const double started = elapsed();
  valLoader.reset();
  double sum = 0.0;
  int64_t batches = valLoader.valSteps();
  // The compiled step computes its schedules (the attention window) from
  // the step counter: validate with those of the steps done.
  *stepSlot = stepsDone;
  for (int64_t i = 0; i < batches; ++i) {
    if (!valLoader.next(tokens, targets, error) || !putBatch(error) ||
        !call(&StepLibrary::evalStep, "gptc_eval_step", error) ||
        !get(slot.evalLoss, error))
      return false;
    sum += double(*evalLoss);
  }
  double mean = sum / double(batches);
  valSeconds += elapsed() - started;
  ++valRuns;
  result.val.push_back({stepsDone, mean});
  char buf[128];
  std::snprintf(buf, sizeof(buf), "val step %lld/%lld | val_loss %.4f",
                (long long)stepsDone, (long long)config.steps, mean);
  line(buf);
  std::snprintf(buf, sizeof(buf), "\"val_loss\": %s", jsonNumber(mean).c_str());
  if (!logLine("val", stepsDone, buf, error) ||
      !boardScalars(stepsDone, {{"val/loss", mean}}, error))
    return false;
  if (!std::isfinite(mean)) {
    error = "val_loss is " + std::string(std::isnan(mean) ? "nan" : "inf") +
            " at step " + std::to_string(stepsDone);
    return false;
  }
  return true;
}

bool Loop::getSlots(const char *prefix, std::string &error) {
  std::vector<ByteRange> ranges;
  for (const Slot &s : m.slots)
    if (s.name.rfind(prefix, 0) == 0)
      ranges.push_back({s.offset, s.numBytes()});
  return device.downloadRanges(ranges, error);
}

bool Loop::zeroGradients(std::string &error) {
  for (const Slot &s : m.slots)
    if ((s.name.rfind("grad.", 0) == 0 || s.name == "loss") &&
        !device.zero(s.offset, s.numBytes(), error))
      return false;
  return true;
}

bool Loop::run(TrainResult &result, std::string &error) {
  using Clock = std::chrono::steady_clock;
  const int64_t n = config.steps;
  // --stop-after: this run ends there; the schedules still span n.
  const int64_t end = config.stopAfter > 0 ? std::min(n, config.stopAfter) : n;
  const int64_t tokensPerStep =
      m.microBatchTokens() * m.gradAccum * config.worldSize;
  std::vector<double> stepSeconds, commSeconds;
  comm::Collectives &collectives = comm::Collectives::get();
  // A signal reaches the ranks at different moments: they agree at the end
  // of every step (agreedStop) and stop together.
  StopOnSignal stopOnSignal(config.stopOnSignal);
  if (validating && config.valEvery > 0 && firstStep == 0 &&
      !validate(0, result, error))
    return false;

  int64_t last = firstStep;
  for (int64_t s = firstStep; s < end; ++s) {
    Clock::time_point start = Clock::now();
    collectives.takeWaitSeconds(); // not validation's
    // With accumulation the grad step adds into the gradient slots; without,
    // it overwrites them (gptc-build-step).
    if (m.gradAccum > 1 && !zeroGradients(error))
      return false;
    *stepSlot = s;
    for (int64_t micro = 0; micro < m.gradAccum; ++micro)
      if (!trainLoader.next(tokens, targets, error) || !putBatch(error) ||
          !call(&StepLibrary::gradStep, "gptc_grad_step", error))
        return false;
    // What the step's end needs from the device, in one wait: the loss,
    // the schedule's multiplier, the groups' norms (the divergence guard).
    std::vector<ByteRange> results;
    for (const Slot *s : {slot.loss, slot.lrMult, divergence->normsSlot()})
      if (s)
        results.push_back({s->offset, s->numBytes()});
    if (!call(&StepLibrary::updateStep, "gptc_update_step", error) ||
        !device.downloadRanges(results, error))
      return false;
    double dt = seconds(start, Clock::now());
    stepSeconds.push_back(dt);
    commSeconds.push_back(collectives.takeWaitSeconds());
    result.losses.push_back(*loss);

    // The groups' learning rates this step: base x the schedule's
    // multiplier (the multiplier alone, labelled, for a manifest without
    // the groups' rates).
    const double mult = lrMult ? double(*lrMult) : 1.0;
    std::string rates, jsonRates;
    for (const Manifest::GroupRate &g : m.groupRates) {
      char r[96];
      std::snprintf(r, sizeof(r), "%s%s %.3g", rates.empty() ? "" : ", ",
                    g.name.c_str(), g.lr * mult);
      rates += r;
      jsonRates += (jsonRates.empty() ? "\"" : ", \"") + g.name +
                   "\": " + jsonNumber(g.lr * mult, 6);
    }
    std::string text = "step " + std::to_string(s + 1) + "/" +
                       std::to_string(n) + " | loss " + fixed(*loss, 6);
    if (lrMult)
      text += rates.empty()
                  ? " | lr mult " + shortNumber(mult)
                  : " | lr " + rates + " (x" + shortNumber(mult) + ")";
    int64_t rate = dt > 0 ? int64_t(double(tokensPerStep) / dt) : 0;
    // The model FLOPs of the step over its time, against the stated peak.
    const double mfu = config.peakFlops > 0 && m.stepFlops > 0 && dt > 0
                           ? double(m.stepFlops) / dt / config.peakFlops
                           : -1.0;
    // Elapsed since the run started; the rest at this run's mean pace of
    // training steps and of validations (saves are neither).
    trainSeconds += dt;
    double sinceStart = elapsed();
    double eta = etaSeconds(
        trainSeconds, s + 1 - firstStep, end - s - 1, valSeconds, valRuns,
        validating ? validationsLeft(s + 1, end, config.valEvery) : 0);
    char buf[256];
    std::snprintf(
        buf, sizeof(buf), " | %s tok/s%s | %.3g s | %s elapsed, eta %s",
        withThousands(rate).c_str(),
        mfu >= 0 ? (" | mfu " + fixed(100.0 * mfu, 1) + "%").c_str() : "", dt,
        clockText(sinceStart).c_str(), clockText(eta).c_str());
    // --log-every K: every K-th step's line, and the first and the last.
    const bool shown = config.logEvery <= 1 || s == firstStep ||
                       (s + 1) % config.logEvery == 0 || s + 1 == end;
    if (shown)
      line((text + buf).c_str());
    std::string fields = "\"loss\": " + jsonNumber(*loss) +
                         ", \"lr_mult\": " + jsonNumber(mult, 6);
    if (!jsonRates.empty())
      fields += ", \"lr\": {" + jsonRates + "}";
    fields += ", \"tok_per_s\": " + std::to_string(rate);
    if (mfu >= 0)
      fields += ", \"mfu\": " + jsonNumber(mfu, 4);
    if (!logLine("train", s + 1, fields.c_str(), error))
      return false;
    std::vector<std::pair<std::string, double>> scalars = {
        {"train/loss", *loss}, {"train/lr_mult", mult}};
    for (const Manifest::GroupRate &g : m.groupRates)
      scalars.push_back({"train/lr/" + g.name, g.lr * mult});
    scalars.push_back({"train/tok_per_s", double(rate)});
    if (mfu >= 0)
      scalars.push_back({"train/mfu", mfu});
    if (!boardScalars(s + 1, scalars, error))
      return false;
    if (!divergence->check(s + 1, double(*loss), error))
      return false;
    int64_t done = s + 1;
    last = done;
    if (!agreedStop(result.stoppedBySignal, error))
      return false;
    if (result.stoppedBySignal) {
      line(("stopping after step " + std::to_string(done) + " (" +
            (result.stoppedBySignal == SIGUSR1
                 ? std::string("SIGUSR1: a stop forwarded by mpirun")
                 : std::string(strsignal(result.stoppedBySignal))) +
            ")")
               .c_str());
      if (!saveCheckpoint(done, error))
        return false;
      break;
    }
    bool due = config.valEvery > 0 && done % config.valEvery == 0;
    if (validating && (due || done == end) && !validate(done, result, error))
      return false;
    if (config.saveEvery > 0 && done % config.saveEvery == 0 &&
        !saveCheckpoint(done, error)) {
      // A periodic save that the file system refused (disk full, a path
      // taken) costs no training: warn, keep the last good checkpoint and
      // try again at the next interval. A device error ends the run.
      if (!saveFailedOnDisk)
        return false;
      line(("warning: checkpoint at step " + std::to_string(done) +
            " not saved: " + error + "; training goes on, " +
            (savedStep >= 0 ? "this run's last checkpoint is step_" +
                                  std::to_string(savedStep)
                            : std::string("this run has saved none yet")) +
            (done + config.saveEvery <= end
                 ? ", next try at step " +
                       std::to_string(done + config.saveEvery)
                 : std::string(", next try at the run's end")))
               .c_str());
      error.clear();
    }
  }
  if (validating && n == firstStep && config.valEvery == 0 &&
      !validate(n, result, error))
    return false;
  // A signal during the last validation still saves and says so.
  if (!agreedStop(result.stoppedBySignal, error))
    return false;
  if ((config.saveEvery > 0 || config.saveAtEnd || result.stoppedBySignal) &&
      !saveCheckpoint(last, error))
    return false;
  if (!result.stoppedBySignal)
    result.stoppedBySignal = stopRequested(); // during the last save

  // Mean step time without the warm-up steps; a run too short to have
  // steps after them times all of its steps, and says so.
  const int64_t ran = int64_t(stepSeconds.size());
  const int64_t warmup = std::max<int64_t>(config.timingSkipSteps, 0);
  int64_t skip = ran > warmup + 1 ? warmup : 0;
  double total = 0.0, waiting = 0.0;
  for (int64_t s = skip; s < ran; ++s) {
    total += stepSeconds[size_t(s)];
    waiting += commSeconds[size_t(s)];
  }
  result.commWaitShare = total > 0 ? waiting / total : 0.0;
  result.timedSteps = ran - skip;
  result.meanStepSeconds = result.timedSteps ? total / result.timedSteps : 0.0;
  result.tokensPerSecond = result.meanStepSeconds > 0
                               ? double(tokensPerStep) / result.meanStepSeconds
                               : 0.0;
  result.peakRssKiB = peakRssKiB();

  char buf[512];
  int len =
      firstStep > 0 || result.stoppedBySignal
          ? (last == firstStep
                 ? std::snprintf(buf, sizeof(buf),
                                 "%s: no steps (at %lld of %lld)",
                                 result.stoppedBySignal ? "stopped" : "done",
                                 (long long)last, (long long)n)
                 : std::snprintf(buf, sizeof(buf),
                                 "%s: steps %lld-%lld of %lld",
                                 result.stoppedBySignal ? "stopped" : "done",
                                 (long long)(firstStep + 1), (long long)last,
                                 (long long)n))
      : end < n
          ? std::snprintf(buf, sizeof(buf),
                          "done: steps 1-%lld of %lld (--stop-after)",
                          (long long)last, (long long)n)
          : std::snprintf(buf, sizeof(buf), "done: %lld steps", (long long)n);
  // The last validation, labelled with its step when steps ran after it
  // (a stopped run, or --val-every not dividing the steps).
  if (!result.val.empty()) {
    const ValPoint &v = result.val.back();
    len += std::snprintf(buf + len, sizeof(buf) - size_t(len),
                         " | val_loss %.4f", v.loss);
    if (v.step != last)
      len += std::snprintf(buf + len, sizeof(buf) - size_t(len),
                           " at step %lld", (long long)v.step);
    if (result.val.size() > 1)
      len += std::snprintf(
          buf + len, sizeof(buf) - size_t(len), " (first %.4f at step %lld)",
          result.val.front().loss, (long long)result.val.front().step);
  }
  if (result.timedSteps > 0) {
    std::string over =
        std::to_string(result.timedSteps) +
        (result.timedSteps == 1 ? " step" : " steps") +
        (skip ? " (the first " + std::to_string(skip) + " skipped as warm-up)"
         : warmup > 0 && ran <= warmup + 1
             ? " (warm-up included: the run is too short to skip " +
                   std::to_string(warmup) + ")"
             : std::string());
    len += std::snprintf(
        buf + len, sizeof(buf) - size_t(len),
        " | %.3g s/step over %s | %s tok/s", result.meanStepSeconds,
        over.c_str(), withThousands(int64_t(result.tokensPerSecond)).c_str());
    if (config.peakFlops > 0 && m.stepFlops > 0 && result.meanStepSeconds > 0)
      len +=
          std::snprintf(buf + len, sizeof(buf) - size_t(len), " | mfu %.1f%%",
                        100.0 * double(m.stepFlops) / result.meanStepSeconds /
                            config.peakFlops);
  }
  if (config.worldSize > 1 && result.timedSteps > 0)
    len += std::snprintf(buf + len, sizeof(buf) - size_t(len),
                         " | %d ranks, %.1f%% waiting on communication",
                         config.worldSize, 100.0 * result.commWaitShare);
  std::snprintf(buf + len, sizeof(buf) - size_t(len), " | peak RSS %.1f MiB",
                double(result.peakRssKiB) / 1024.0);
  line(buf);
  if (!config.saveParamsPath.empty() && config.rank == 0) {
    if (!getParameters(error) ||
        !saveParams(m, arena, config.saveParamsPath, error))
      return false;
    line(("saved parameters to " + config.saveParamsPath).c_str());
  }
  return true;
}

} // namespace

bool train(const Manifest &manifest, const StepLibrary &step,
           StepDevice &device, const TrainConfig &config, std::ostream &out,
           TrainResult &result, std::string &error) {
  result = TrainResult();
  Loop loop(manifest, step, device, config, out);
  return loop.init(result, error) && loop.run(result, error);
}

bool train(const Manifest &manifest, const StepLibrary &step,
           const TrainConfig &config, std::ostream &out, TrainResult &result,
           std::string &error) {
  HostStepDevice cpu;
  return train(manifest, step, cpu, config, out, result, error);
}

} // namespace runtime
} // namespace gptc
