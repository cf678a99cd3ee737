//===- Compile.h - Spec -> IR stages and the step bundle --------*- C++ -*-===//

#ifndef GPTC_DRIVER_COMPILE_H
#define GPTC_DRIVER_COMPILE_H

#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"
#include "runtime/ErrorLine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <string>
#include <vector>

namespace gptc {

class PhaseTimes;

/// Registers the dialects and LLVM IR translations gptc needs in `ctx`.
void prepareContext(mlir::MLIRContext &ctx);

/// Called as each stage of the pipeline ends (its name: --emit=NAME).
using StageDone = std::function<void(const char *stage)>;

class PhaseTimes;
/// Each stage's end as a phase of `times` ("MLIR pipeline: NAME"): a long
/// compile says where it is. Empty (one pass pipeline) without `times`.
StageDone pipelineStageTimes(PhaseTimes *times);

/// The frontend module (@forward and @update) of `spec`, run through the
/// pipeline up to `stage`. Null after errors were emitted on `ctx`. With
/// `stageDone`, the stages run one after another and each says when it ends
/// (a long compile's progress); without, they run as one pass pipeline.
mlir::OwningOpRef<mlir::ModuleOp>
compileToStage(mlir::MLIRContext &ctx, const ModelSpec &spec, Stage stage,
               Target target = Target::CPU, bool fuse = true,
               bool kernelMarks = false, const StageDone &stageDone = {});

/// The first line `gptc compile --emit=STAGE` prints, naming what the IR
/// below it is (`gptc compile SPEC --from FILE` reads it back):
///   // gptc compile --emit=linalg --target=cpu [--no-fuse] of tiny-r08
std::string emitHeader(const ModelSpec &spec, Stage stage, Target target,
                       bool fuse);

/// What starts the lines of the resolved spec an --emit dump ends with, so
/// that `gptc compile DUMP.mlir -o DIR` needs nothing else.
inline constexpr const char *kEmbeddedSpecPrefix = "//| ";

/// Prints the trailer of an --emit dump: `spec`'s resolved YAML (extends
/// merged, overrides applied), each line after kEmbeddedSpecPrefix.
void printEmbeddedSpec(const ModelSpec &spec, llvm::raw_ostream &os);

/// The module in `path` (an --emit dump of `spec`, perhaps edited) run
/// through the rest of the pipeline up to `stage`, with the target and
/// fusion its header names. Null after errors were emitted on `ctx` (an
/// unreadable file, a missing header, another spec or target, a stage
/// past `stage`).
mlir::OwningOpRef<mlir::ModuleOp>
continueFromIR(mlir::MLIRContext &ctx, const ModelSpec &spec,
               const std::string &path, Stage stage, Target target, bool fuse);

/// One kernel's PTX for one chip.
struct PTXKernel {
  std::string name, chip, ptx;
};

/// The PTX of every distinct kernel of a module at Stage::PTX (one per
/// gpu.binary, named as its entry point), for every chip of kPTXChips
/// (chip by chip, kernels in order of first launch). False after errors
/// were emitted on the module's context.
bool collectPTX(mlir::ModuleOp module, std::vector<PTXKernel> &kernels);

/// The same from a module at Stage::LLVM (a copy goes through the PTX
/// stage; `module` is unchanged).
bool emitPTX(mlir::ModuleOp module, std::vector<PTXKernel> &kernels);

/// Whether `gptc compile -o OUT` may write OUT: it does not exist (and its
/// parent can take it), or it is an empty directory or a bundle gptc wrote
/// (its manifest names a gptc-step format; only a bundle's files in it).
/// Checked before compiling, so that a refusal comes at once; writeBundle
/// checks again before it swaps.
bool checkBundleDestination(const std::string &outDir, std::string &error);

/// Writes the bundle of docs/artifact.md into `outDir` from a module at
/// Stage::LLVM: step.so, manifest.json and spec.yaml (the resolved spec:
/// `extends:` merged, overrides applied, so that the bundle stands alone).
/// CPU: step.so is the step's object code linked with libomp. CUDA: a host
/// step.so whose entry points launch the PTX embedded in it through MLIR's
/// GPU runtime calls (mgpuModuleLoadJIT, mgpuLaunchKernel, ...) and call
/// the CUDA runtime for temporaries and GEMMs (runtime/cuda/StepCallbacks.h);
/// the process provides those (gptc train, or gptc-emu-check). The CPU
/// step's module is consumed: its body is erased once translated to LLVM
/// IR, whose memory it gives back.
struct BundleOptions {
  /// Threads that optimise and compile the step (0: one per core).
  unsigned jobs = 0;
  /// The CPU step.so is compiled for: "native" (this machine's CPU and
  /// features) or an LLVM CPU name (x86-64-v3, znver3, sapphirerapids...).
  std::string cpu = "native";
  /// Where the phases' times go (gptc compile --time), if anywhere.
  PhaseTimes *times = nullptr;
};
bool writeBundle(mlir::ModuleOp module, const ModelSpec &spec, Target target,
                 const std::string &outDir, std::string &error,
                 const BundleOptions &options = {});

/// What `gptc train SPEC` keys its compiled bundle by, before compiling:
/// the SHA-256 (hex) of the resolved spec (extends merged, overrides
/// applied), the flags that change the bundle (fusion, target) and gptc's
/// own executable; and the ranks the spec trains on, its global batch and
/// its sequences per rank and micro-step. False and `error` (the spec's
/// located error) when the spec does not parse or check.
bool planSpecBundle(const std::string &specPath,
                    const std::vector<std::string> &overrides, bool fuse,
                    Target target, std::string &key, int64_t &ranks,
                    int64_t &batch, int64_t &deviceBatch,
                    runtime::ErrorLine &error);

/// compileToStage(LLVM) + writeBundle for `target`, for `gptc train SPEC`.
/// False and `error`: the spec's located error, or what failed after it
/// parsed.
bool compileSpecToBundle(const std::string &specPath,
                         const std::vector<std::string> &overrides,
                         const std::string &outDir, runtime::ErrorLine &error,
                         bool fuse = true, Target target = Target::CPU,
                         const BundleOptions &options = {});

/// The target --target names ("cpu", "cuda"); false and `error` (one line
/// listing the targets) for another name.
bool parseTargetName(const std::string &name, Target &target,
                     runtime::ErrorLine &error);

} // namespace gptc

#endif // GPTC_DRIVER_COMPILE_H
