//===- TrainCommand.h - `gptc train` ----------------------------*- C++ -*-===//
//
//   gptc train BUNDLE_DIR|SPEC.yaml [--data GLOB] [--val GLOB] [--steps N]
//              [--seed S] [--val-every N] [--val-tokens N]
//              [--set key=value]...
//
// Trains a compiled bundle (docs/artifact.md, opened and verified by
// runtime/Bundle.h) with runtime/Trainer.h; the defaults come from its
// manifest, not from a spec. Given a spec instead, compiles it first through
// the CompileHook the driver passes in (into SPEC-BASENAME.gptc/ in the
// working directory, or under $TMPDIR when that is not writable).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_TOOLS_GPTC_TRAINCOMMAND_H
#define GPTC_TOOLS_GPTC_TRAINCOMMAND_H

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

/// Compiles `spec` with `overrides` ("key=value" each; --dtype D comes as
/// training.dtype=D) and fusion on or off into the bundle directory
/// `outDir`. Returns false and sets `error` (one line).
using CompileHook = std::function<bool(
    const std::string &spec, const std::vector<std::string> &overrides,
    bool noFuse, const std::string &outDir, std::string &error)>;

/// `args` are the arguments after `train`. Returns the exit code: 0 on
/// success (and for --help), 1 on an error (one line on `err`), 2 on a usage
/// error.
int runTrainCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err, const CompileHook &compile);

/// The --help text.
const char *trainCommandUsage();

} // namespace runtime
} // namespace gptc

#endif // GPTC_TOOLS_GPTC_TRAINCOMMAND_H
