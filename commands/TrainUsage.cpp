//===- TrainUsage.cpp - gptc train --help ---------------------------------===//

#include "commands/TrainCommand.h"

namespace gptc {
namespace commands {

const std::vector<cli::OptionSpec> &trainOptions() {
  static const std::vector<cli::OptionSpec> table = {
      {"--data", nullptr, cli::ValueKind::String},
      {"--val", nullptr, cli::ValueKind::String},
      {"--steps", nullptr, cli::ValueKind::String},
      {"--seed", nullptr, cli::ValueKind::String},
      {"--val-every", nullptr, cli::ValueKind::String},
      {"--val-tokens", nullptr, cli::ValueKind::String},
      {"--save-params", nullptr, cli::ValueKind::String},
      {"--save-every", nullptr, cli::ValueKind::String},
      {"--checkpoint-dir", nullptr, cli::ValueKind::String},
      {"--keep", nullptr, cli::ValueKind::String},
      {"--resume", nullptr, cli::ValueKind::String},
      {"--init", nullptr, cli::ValueKind::String},
      {"--log", nullptr, cli::ValueKind::String},
      {"--tensorboard", nullptr, cli::ValueKind::String},
      {"--log-every", nullptr, cli::ValueKind::String},
      {"--stop-after", nullptr, cli::ValueKind::String},
      {"--peak-tflops", nullptr, cli::ValueKind::String},
      {"--set", nullptr, cli::ValueKind::Repeated},
      {"--dtype", nullptr, cli::ValueKind::String},
      {"--no-fuse", nullptr, cli::ValueKind::None},
      {"--target", nullptr, cli::ValueKind::String},
      {"--bucket-mb", nullptr, cli::ValueKind::String},
      {"--ranks", nullptr, cli::ValueKind::String},
      {"--hosts", nullptr, cli::ValueKind::String},
      {"--hostfile", nullptr, cli::ValueKind::String},
      {"--force", nullptr, cli::ValueKind::None},
      {"--force-memory", nullptr, cli::ValueKind::None},
      {"--collective-timeout", nullptr, cli::ValueKind::String}};
  return table;
}

const char *trainCommandUsage() {
  return "usage: gptc train BUNDLE_DIR|SPEC.yaml [options]\n"
         "\n"
         "Trains a compiled bundle (the directory `gptc compile SPEC -o DIR`\n"
         "writes: manifest.json, step.so, spec.yaml). Given a spec, compiles\n"
         "it first into SPEC-BASENAME-KEY.gptc/ in the working directory (or\n"
         "in $XDG_CACHE_HOME/gptc, ~/.cache/gptc, when that is not\n"
         "writable), KEY a digest of the\n"
         "resolved spec, the flags and gptc itself: a later run with the\n"
         "same ones reuses that bundle. Prints one line per\n"
         "step, the validation loss every --val-every steps and a summary.\n"
         "Defaults come from the bundle's manifest (the spec's training,\n"
         "data and validation keys).\n"
         "\n"
         "options:\n"
         "  --data GLOB        training shards (default: the spec's "
         "data.train)\n"
         "  --val GLOB         validation shards (default: data.val)\n"
         "  --steps N          the run's optimizer steps (default:\n"
         "                     training.steps); the lr, momentum and window\n"
         "                     schedules span them (their warm-up and decay\n"
         "                     scale by N / training.steps)\n"
         "  --seed S           parameter init seed (default: "
         "training.seed)\n"
         "  --val-every N      validate every N steps, 0 = only at the end\n"
         "                     (default: validation.every)\n"
         "  --val-tokens N     validation tokens, 0 = no validation\n"
         "                     (default: validation.tokens)\n"
         "  --save-params FILE after the last step, write the parameters to\n"
         "                     FILE (float32; format in runtime/ParamFile.h)\n"
         "  --save-every N     every N steps and after the last one, save a\n"
         "                     checkpoint: DIR/step_S/ with "
         "model.safetensors,\n"
         "                     optimizer.safetensors, checkpoint.json\n"
         "  --checkpoint-dir DIR  where checkpoints go (default checkpoints;\n"
         "                     given alone: one checkpoint after the last "
         "step)\n"
         "  --keep K           keep only the newest K checkpoints\n"
         "  --force            save into a --checkpoint-dir that holds\n"
         "                     another run's checkpoints (they may be\n"
         "                     replaced or, with --keep, removed)\n"
         "  --force-memory     train although the run needs more memory than\n"
         "                     this machine has available (refused\n"
         "                     otherwise, before anything is allocated)\n"
         "  --resume PATH      continue from a checkpoint (a step_S "
         "directory,\n"
         "                     or a directory of them: the newest); --steps\n"
         "                     stays the total\n"
         "  --init FILE        start from the weights of a safetensors file\n"
         "                     (tensors named as the manifest's parameters)\n"
         "  --log FILE.jsonl   also write each step and validation as a JSON\n"
         "                     line (step, loss, lr_mult and each group's lr,\n"
         "                     tokens, tok/s, mfu, elapsed); with --resume, "
         "the\n"
         "                     lines after the resumed step are dropped and\n"
         "                     the run goes on from there; gptc plot\n"
         "                     FILE.jsonl -o loss.png draws it\n"
         "  --stop-after K     end this run after K steps of the --steps run\n"
         "                     (its schedules still span --steps; with\n"
         "                     --checkpoint-dir, --resume goes on)\n"
         "  --log-every K      print every K-th step's line (and the first\n"
         "                     and the last; --log and --tensorboard still\n"
         "                     get every step)\n"
         "  --peak-tflops X    the peak (TFLOP/s a rank) the step line's MFU\n"
         "                     is against (default: the GPU's datasheet\n"
         "                     peak, or the CPU's f32 FMA rate measured at\n"
         "                     start)\n"
         "  --tensorboard DIR  also write each step's loss, lr_mult, lr and\n"
         "                     tok/s and each validation's loss as\n"
         "                     TensorBoard events, a new file in DIR per run\n"
         "                     (made if missing; tensorboard --logdir DIR)\n"
         "  --set key=value    override a spec key (specs only; repeatable;\n"
         "                     --set key value works too)\n"
         "  --dtype D          the same as --set training.dtype=D (specs "
         "only)\n"
         "  --no-fuse          compile without attention/RMSNorm fusion "
         "(specs\n"
         "                     only)\n"
         "  --target T         compile the spec for T: cpu (the default) or\n"
         "                     cuda (the GPU's step, trained on the GPU that\n"
         "                     libcuda.so.1 opens; specs only)\n"
         "  --ranks N          start the job's N ranks with mpirun (found on\n"
         "                     PATH); the same as mpirun -np N gptc train "
         "...;\n"
         "                     a spec compiles for N ranks (its global batch\n"
         "                     kept, device_batch derived)\n"
         "  --hosts H1:S1,H2:S2  with --ranks, the ranks' hosts and slots\n"
         "                     (mpirun --host; e.g. node1:8,node2:8)\n"
         "  --hostfile FILE    with --ranks, mpirun's hostfile instead\n"
         "  --bucket-mb N      with several ranks, pack gradient all-reduces\n"
         "                     into buckets of N MiB (default 25)\n"
         "  --collective-timeout S  with several ranks, end the job when a\n"
         "                     rank waits more than S seconds in a step's\n"
         "                     collective (a rank stopped or hung; default\n"
         "                     600, 0 = never)\n"
         "  -h, --help         show this help\n"
         "\n"
         "A bundle compiled with training.ranks = N trains data-parallel on N\n"
         "ranks, started by MPI: mpirun -np N gptc train BUNDLE_DIR (every\n"
         "rank reads its slice of each batch; rank 0 prints and writes\n"
         "files). A spec trains on the job's ranks, as torchrun runs a\n"
         "script: mpirun -np N gptc train SPEC.yaml (or --ranks N) compiles\n"
         "it for N ranks on rank 0, keeping training.batch and its\n"
         "micro-steps and deriving training.device_batch.\n"
         "Across hosts (--hosts, --hostfile) gptc, the data and the output\n"
         "directories must have the same paths on every host; under srun\n"
         "(srun --mpi=pmix -n N gptc train ...) each task is one rank and\n"
         "nothing is launched. gptc train prints the mpirun line it runs.\n"
         "\n"
         "Ctrl-C (SIGINT), SIGTERM, SIGHUP (the terminal closed) or SIGPIPE\n"
         "(the output's reader gone) finishes the current step, saves a\n"
         "checkpoint, prints the summary and exits with 128 + the signal\n"
         "(130 for Ctrl-C); a second Ctrl-C, SIGTERM or SIGHUP stops at\n"
         "once. With --ranks N the same: the ranks stop at the same step\n"
         "and rank 0 saves. Under mpirun started by hand, kill -USR1 the\n"
         "mpirun process for that stop (mpirun forwards SIGUSR1; its own\n"
         "Ctrl-C ends the job at once, without a checkpoint).\n";
}

} // namespace commands
} // namespace gptc
