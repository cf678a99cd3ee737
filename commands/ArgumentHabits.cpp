//===- ArgumentHabits.cpp - Other trainers' flags, read the gptc way ------===//

#include "commands/ArgumentHabits.h"
#include "runtime/ErrorLine.h"

#include <utility>

namespace gptc::cli {

namespace {

/// Flags of other trainers and what gptc has instead.
struct ForeignFlag {
  const char *name;
  const char *instead;
};

constexpr const char *kLearningRate =
    "learning rates belong to the spec's optimizer groups: --set "
    "optimizer.groups.NAME.lr=VALUE (gptc check SPEC lists the groups and "
    "their rates)";
constexpr const char *kBatch =
    "--set training.batch=N (sequences per optimizer step over all ranks) "
    "or --set training.device_batch=N (per rank and micro-step)";
constexpr const char *kSteps =
    "gptc train --steps N (or --set training.steps=N; the schedule's "
    "warmup_steps and decay_steps are in steps too)";
constexpr const char *kEvery = "gptc train --val-every N";
constexpr const char *kRanks =
    "gptc train --ranks N (the bundle must be compiled with "
    "--set training.ranks=N)";
constexpr const char *kDevice =
    "gptc compile SPEC --target=cuda (or --target=cpu, the default)";
constexpr const char *kSeqLen = "--set training.seq_len=T";

constexpr ForeignFlag kForeign[] = {
    {"--lr", kLearningRate},
    {"--learning_rate", kLearningRate},
    {"--learning-rate", kLearningRate},
    {"--batch_size", kBatch},
    {"--batch-size", kBatch},
    {"--micro_batch_size", kBatch},
    {"--max_iters", kSteps},
    {"--max-iters", kSteps},
    {"--num_iterations", kSteps},
    {"--iters", kSteps},
    {"--max_steps", kSteps},
    {"--eval_interval", kEvery},
    {"--val_loss_every", kEvery},
    {"--nproc_per_node", kRanks},
    {"--nproc-per-node", kRanks},
    {"--device", kDevice},
    {"--block_size", kSeqLen},
    {"--sequence_length", kSeqLen},
    {"--seq_len", kSeqLen},
    {"--out_dir", "gptc compile SPEC -o DIR (a bundle), gptc train "
                  "--checkpoint-dir DIR (checkpoints)"},
    {"--init_from", "gptc train --resume CHECKPOINT or --init FILE"},
};

/// The name of `--flag=value` or `--flag`.
std::string flagName(const std::string &arg) {
  return arg.substr(0, arg.find('='));
}

} // namespace

bool normalizeArguments(const std::string &command,
                        std::vector<std::string> &args, std::ostream &err) {
  const std::string me = runtime::errorPrefix("gptc " + command + ": ");
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      out.insert(out.end(), args.begin() + long(i), args.end());
      break;
    }
    const std::string name = flagName(arg);
    for (const ForeignFlag &f : kForeign)
      if (name == f.name) {
        err << me << "gptc has no " << f.name << ": " << f.instead << "\n";
        return false;
      }
    // --set KEY VALUE, the habit of tools whose --set takes two words.
    if (arg == "--set" && i + 2 < args.size() &&
        args[i + 1].find('=') == std::string::npos && !args[i + 2].empty() &&
        args[i + 2][0] != '-') {
      out.push_back("--set=" + args[i + 1] + "=" + args[i + 2]);
      i += 2;
      continue;
    }
    if (name == "--dtype") {
      std::string value = arg.size() > name.size()
                              ? arg.substr(name.size() + 1)
                              : (i + 1 < args.size() ? args[i + 1] : "");
      if (!value.empty() && value != "f32" && value != "bf16" &&
          value != "f64") {
        err << me << "--dtype " << value
            << ": not a training dtype; gptc trains in f32, bf16 (the 16-bit "
               "one: f32 master weights, bf16 GEMMs) or f64\n";
        return false;
      }
    }
    out.push_back(arg);
  }
  args = std::move(out);
  return true;
}

} // namespace gptc::cli
