//===- TrainCommand.h - `gptc train` ----------------------------*- C++ -*-===//
//
//   gptc train BUNDLE_DIR|SPEC.yaml [--data GLOB] [--val GLOB] [--steps N]
//              [--seed S] [--val-every N] [--val-tokens N]
//              [--set key=value]...
//
// Trains a compiled bundle (docs/artifact.md, opened and verified by
// runtime/Bundle.h) with runtime/Trainer.h; the defaults come from its
// manifest, not from a spec. Given a spec instead, compiles it first through
// the CompileHook the driver passes in (into SPEC-BASENAME-KEY.gptc/ in the
// working directory, or in the user's cache (CompileCache.h) when that is
// not writable; KEY
// digests the resolved spec, the flags and gptc itself, so a second run
// with the same ones reuses the bundle and another variant gets its own).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_TRAINCOMMAND_H
#define GPTC_COMMANDS_TRAINCOMMAND_H

#include "commands/CommandOptions.h"
#include "runtime/ErrorLine.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace gptc {

namespace commands {

/// How a spec compiles beside its keys: fusion on or off, and the target
/// (--target's name: "cpu", "cuda").
struct CompileFlags {
  bool noFuse = false;
  std::string target = "cpu";
};

/// Compiles `spec` with `overrides` ("key=value" each; --dtype D comes as
/// training.dtype=D) and `flags` into the bundle directory `outDir`.
/// Returns false and sets `error` (one line: the spec's located error, or
/// a message).
using CompileHook = std::function<bool(
    const std::string &spec, const std::vector<std::string> &overrides,
    const CompileFlags &flags, const std::string &outDir,
    runtime::ErrorLine &error)>;

/// What a spec resolves to without compiling it.
struct SpecPlan {
  std::string key;   ///< a hex digest of everything the bundle depends on
  int64_t ranks = 1; ///< training.ranks
  int64_t batch = 0, deviceBatch = 0; ///< training.batch, device_batch
};

/// Resolves `spec` with `overrides` without compiling it. Returns false
/// and sets `error` (one line: the spec's located error, or a message).
using PlanHook = std::function<bool(
    const std::string &spec, const std::vector<std::string> &overrides,
    const CompileFlags &flags, SpecPlan &plan, runtime::ErrorLine &error)>;

/// Its lines in `gptc --help`'s Commands section.
extern const char kTrainHelp[];

/// `args` are the arguments after `train`. Returns the exit code: 0 on
/// success (and for --help), 1 on an error (one line on `err`), 2 on a usage
/// error. With `plan`, a spec compiles into SPEC-BASENAME-KEY.gptc (the
/// first 12 digits of its key), reused when it is there and verifies.
int runTrainCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err, const CompileHook &compile,
                    const PlanHook &plan = nullptr);

/// The --help text.
const char *trainCommandUsage();

/// The options of `gptc train` (--dtype and --no-fuse are the compiler's:
/// the driver passes them to the compile hook).
const std::vector<cli::OptionSpec> &trainOptions();

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_TRAINCOMMAND_H
