//===- Pipeline.h - The gptc compilation pipeline ---------------*- C++ -*-===//

#ifndef GPTC_PASSES_PIPELINE_H
#define GPTC_PASSES_PIPELINE_H

#include "passes/GPU/CUDAPipeline.h"
#include "passes/TargetDescription.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace gptc {

/// The stages of the pipeline, in order; `gptc compile --emit=STAGE` stops
/// after the named one.
enum class Stage {
  GPT,     ///< forward graph (+ @update) in gpt/optim, from the frontend
  Fused,   ///< attention, RMSNorm, rotary and the loss fused (unless
           ///< PipelineOptions::fuse is off)
  Grad,    ///< + @forward_grad from gptc-autodiff
  Step,    ///< arena entry points, optimizer lowered: all gpt
  Linalg,  ///< linalg on tensors, elementwise chains fused
  Buffers, ///< bufferized, GEMMs as runtime calls
  Loops,   ///< kernels as scf.parallel loop nests
  LLVM,    ///< CPU: LLVM dialect (OpenMP + vectorizable loops);
           ///< CUDA: kernels as gpu.launch (block x thread loops)
  PTX,     ///< CUDA only: every distinct kernel outlined and translated to
           ///< PTX for sm_80 and sm_90 (gpu.binary ops)
};

struct PipelineOptions {
  Stage stopAfter = Stage::LLVM;
  /// The stage the input module is at (a --emit dump of it); none: the
  /// frontend's module (Stage::GPT). Must come before stopAfter.
  std::optional<Stage> startAfter;
  /// Micro-steps per optimizer step; 0: the module's gpt.grad_accum.
  int64_t gradAccum = 1;
  /// Data-parallel ranks (training.ranks): > 1 averages gradients and
  /// losses over the ranks and splits Newton-Schulz among them; 0: the
  /// module's gpt.ranks (passes/Step/TrainingShape.h).
  int64_t ranks = 1;
  /// The machine the kernels run on and how they are shaped (a build
  /// paired with the CPU's brackets every kernel nest by
  /// gptc_kernel_mark calls, the same IDs on both targets).
  TargetDescription target;
  /// Fusion: gptc-fuse-attention, -rmsnorm, -rotary, -cross-entropy, and
  /// Newton-Schulz batched with GEMM epilogues; without it (--no-fuse)
  /// every op stays a primitive all the way down.
  bool fuse = true;
};

/// Adds the passes that take a module from `options.startAfter` (default
/// Stage::GPT) to `options.stopAfter`, one phase a stage; stage 7 is the
/// target's code generation (buildCPUCodegenPipeline,
/// buildCUDACodegenPipeline), stage 8 the PTX (buildPTXPipeline).
void buildGPTCPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers `gptc-pipeline` (with the options above) for gptc-opt.
void registerGPTCPipeline();

/// One stage of the pipeline: its name (--emit=NAME, gptc-opt's
/// start-after / stop-after) and what its dump holds.
struct StageInfo {
  Stage stage;
  const char *name;
  const char *description;
};

/// Every stage in pipeline order: the one table of stage names and
/// descriptions; stageName, parseStage, the command-line values of gptc and
/// gptc-opt and gptc's --help are made from it.
llvm::ArrayRef<StageInfo> stageTable();

/// Stage names as used by --emit.
const char *stageName(Stage stage);
std::optional<Stage> parseStage(const std::string &name);
/// "gpt, fused, ..., ptx": the names in pipeline order, for messages.
std::string stageNameList(bool withPTX = true);

/// A command-line option modifier (like llvm::cl::values) that makes the
/// stages of stageTable() the option's values; withPTX false leaves out
/// Stage::PTX (the pass pipeline ends at Stage::LLVM).
struct StageValues {
  bool withPTX = true;
  template <class Opt> void apply(Opt &option) const {
    for (const StageInfo &info : stageTable())
      if (withPTX || info.stage != Stage::PTX)
        option.getParser().addLiteralOption(info.name, info.stage,
                                            info.description);
  }
};

} // namespace gptc

#endif // GPTC_PASSES_PIPELINE_H
