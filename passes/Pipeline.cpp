//===- Pipeline.cpp - The gptc compilation pipeline -----------------------===//
//
// The pipeline as phases, one a stage, each a function that adds its
// passes; `gptc` and `gptc-opt --gptc-pipeline` both use it. Stage 7 is
// the target's code generation (passes/CPU/CPUPipeline.cpp,
// passes/GPU/CUDAPipeline.cpp). Upstream passes are named in their textual
// form so that the pipeline reads like the docs.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipeline.h"

#include "passes/Passes.h"
#include "passes/PipelineText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace gptc {

namespace {

/// 1. Fusion of the forward graph: masked attention, RMSNorm, rotary and
///    the cross-entropy become gpt.attention, gpt.rms_norm, gpt.rotary and
///    gpt.cross_entropy, whose VJPs autodiff then uses.
void addFusionPhase(OpPassManager &pm, const PipelineOptions &options) {
  if (!options.fuse)
    return;
  pm.addNestedPass<func::FuncOp>(createFuseAttentionPass());
  pm.addNestedPass<func::FuncOp>(createFuseRMSNormPass());
  pm.addNestedPass<func::FuncOp>(createFuseRotaryPass());
  pm.addNestedPass<func::FuncOp>(createFuseCrossEntropyPass());
  pm.addPass(createCanonicalizerPass());
}

/// 2. Reverse-mode autodiff of @forward.
void addAutodiffPhase(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createAutodiffPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// 3. Arena entry points; the optimizer as gpt math; everything inlined.
void addStepPhase(OpPassManager &pm, const PipelineOptions &options) {
  BuildStepPassOptions step;
  step.gradAccum = options.gradAccum;
  step.ranks = options.ranks;
  pm.addPass(createBuildStepPass(step));
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  // The first gptc-lower-optim runs on the module: it declares the runtime
  // calls of the SVD backend there (a run on a function may not).
  LowerOptimPassOptions lower;
  lower.gemmEpilogues = options.fuse;
  // ranks 0 (gptc-opt without ranks=): the module's, known only when the
  // passes run; the distributing pass is then in the pipeline and decides.
  const bool distributed = options.ranks != 1;
  if (options.fuse || distributed) {
    // Newton-Schulz of same-shape parameters batched (fused builds), split
    // among the ranks (distributed ones), then lowered.
    LowerOptimPassOptions keep;
    keep.keepNewtonSchulz = true;
    pm.addPass(createLowerOptimPass(keep));
    if (options.fuse)
      pm.addNestedPass<func::FuncOp>(createFuseNewtonSchulzPass());
    if (distributed) {
      DistributeNewtonSchulzPassOptions split;
      split.ranks = options.ranks;
      pm.addNestedPass<func::FuncOp>(createDistributeNewtonSchulzPass(split));
    }
    pm.addNestedPass<func::FuncOp>(createLowerOptimPass(lower));
  } else {
    pm.addPass(createLowerOptimPass(lower));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The step's matrix-product FLOPs (the manifest's step_flops: MFU), while
  // its products are still gpt ops.
  pm.addPass(createCountStepFlopsPass());
}

/// 4. Kernels as linalg on tensors; elementwise chains fused.
void addLinalgPhase(OpPassManager &pm, const PipelineOptions &options) {
  const TargetDescription &target = options.target;
  LowerToLinalgPassOptions toLinalg;
  toLinalg.gpuKernels = target.shapesKernelsForGPU();
  // The embedding gradient by sorted positions on both targets: the same
  // kernels (so a paired build pairs each with the CPU's), and on the CPU
  // parallel over the table instead of a serial loop over the positions
  // with a parallel region per row.
  toLinalg.sortedEmbeddingGrad = true;
  toLinalg.tensorCores = target.usesTensorCores();
  pm.addNestedPass<func::FuncOp>(createLowerToLinalgPass(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // CUDA: a weight gradient's long sum over the tokens in parts that fill
  // the device, summed by a kernel that elementwise fusion then extends.
  if (target.splitsLongSums())
    pm.addNestedPass<func::FuncOp>(createSplitKPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  // CPU: a scalar read once outside the kernel keeps its loops vectorised.
  // CUDA: the host cannot read device memory; kernels read it themselves.
  if (target.hoistsScalarOperands())
    pm.addNestedPass<func::FuncOp>(createHoistScalarOperandsPass());
  // CUDA: a reduction with few results (a scalar's gradient, Newton-Schulz
  // norms) in two deterministic kernels instead of a handful of threads.
  if (target.splitsLongSums())
    pm.addNestedPass<func::FuncOp>(createSplitReductionsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// 5. Buffers: one-shot bufferization, deallocation, GEMM library calls,
///    temporaries placed in the arena by liveness.
void addBuffersPhase(OpPassManager &pm, const PipelineOptions &options) {
  // Collectives as runtime calls on buffers (distributed builds only).
  if (options.ranks != 1)
    pm.addPass(createLowerCommPass());
  pm.addNestedPass<func::FuncOp>(createWriteSlotsInPlacePass());
  // Each destination its own init: bufferization's analysis is then linear
  // in the step, not cubic in the depth (one shared zero tensor was the
  // init of every GEMM).
  pm.addNestedPass<func::FuncOp>(createUnshareInitsPass());
  // A kernel whose result is inserted into a slice of a larger tensor (the
  // two halves of a rotary embedding, a concatenation) writes into that
  // slice directly instead of into a temporary that is then copied.
  addPipelineText(pm, "eliminate-empty-tensors");
  addPipelineText(pm, "one-shot-bufferize{bufferize-function-boundaries "
                      "function-boundary-type-conversion=identity-layout-map}");
  addPipelineText(pm, "canonicalize");
  pm.addPass(createGemmToBlasPass());
  pm.addNestedPass<func::FuncOp>(createCopyToLinalgPass());
  // The step's temporaries into the workspace first: the deallocation
  // pipeline is then left with the few buffers of loops (its simplification
  // is quadratic in the buffers one dealloc frees).
  pm.addPass(createPlanBuffersPass());
  addPipelineText(pm, "buffer-deallocation-pipeline,canonicalize");
  pm.addPass(createExportLayoutPass());
}

/// 6. Every kernel an scf.parallel nest.
void addLoopsPhase(OpPassManager &pm, const PipelineOptions &) {
  addPipelineText(pm,
                  "func.func(convert-linalg-to-parallel-loops),canonicalize");
}

/// 7. The target's code generation (targetTable()), after the kernel
///    marks of a build paired with the CPU's.
void addCodegenPhase(OpPassManager &pm, const PipelineOptions &options) {
  if (options.target.marksKernels())
    pm.addPass(createKernelMarksPass());
  targetInfo(options.target.target()).buildCodegen(pm, options.target);
}

/// 8. The kernels' binaries, for a target that has them (CUDA: PTX for
///    every chip).
void addPTXPhase(OpPassManager &pm, const PipelineOptions &options) {
  if (auto build = targetInfo(options.target.target()).buildBinaries)
    build(pm);
}

/// The phases in pipeline order, each named by the stage it ends in (the
/// Stage::GPT module is the frontend's: no phase).
struct Phase {
  Stage stage;
  void (*add)(OpPassManager &, const PipelineOptions &);
};
constexpr Phase kPhases[] = {
    {Stage::Fused, addFusionPhase},    {Stage::Grad, addAutodiffPhase},
    {Stage::Step, addStepPhase},       {Stage::Linalg, addLinalgPhase},
    {Stage::Buffers, addBuffersPhase}, {Stage::Loops, addLoopsPhase},
    {Stage::LLVM, addCodegenPhase},    {Stage::PTX, addPTXPhase},
};

} // namespace

void buildGPTCPipeline(OpPassManager &pm, const PipelineOptions &options) {
  if (options.startAfter && *options.startAfter >= options.stopAfter) {
    PipelineOptionsErrorPassOptions error;
    error.message =
        std::string("gptc-pipeline: start-after=") +
        stageName(*options.startAfter) +
        " must come before stop-after=" + stageName(options.stopAfter);
    pm.addPass(createPipelineOptionsErrorPass(error));
    return;
  }
  // The phases after the input's stage, up to and including stopAfter's.
  for (const Phase &phase : kPhases)
    if ((!options.startAfter || phase.stage > *options.startAfter) &&
        phase.stage <= options.stopAfter)
      phase.add(pm, options);
}

llvm::ArrayRef<StageInfo> stageTable() {
  static const StageInfo table[] = {
      {Stage::GPT, "gpt",
       "forward graph in gpt primitives (+ @update in optim ops), as the "
       "frontend writes them; every op located at the YAML key that "
       "configured it (--mlir-print-debuginfo shows locations)"},
      {Stage::Fused, "fused",
       "masked attention, RMSNorm, rotary and the loss as gpt.attention, "
       "gpt.rms_norm, gpt.rotary, gpt.cross_entropy (gptc-fuse-attention, "
       "-rmsnorm, -rotary, -cross-entropy; not with --no-fuse)"},
      {Stage::Grad, "grad",
       "+ @forward_grad, the backward graph made by gptc-autodiff"},
      {Stage::Step, "step",
       "arena entry points; the optimizer lowered to gpt math, Newton-Schulz "
       "fused and (ranks > 1) distributed"},
      {Stage::Linalg, "linalg",
       "kernels as linalg on tensors, elementwise chains fused"},
      {Stage::Buffers, "buffers",
       "bufferized, GEMMs as runtime calls, temporaries in the arena"},
      {Stage::Loops, "loops", "every kernel an scf.parallel nest"},
      {Stage::LLVM, "llvm",
       "CPU: LLVM dialect (OpenMP + loops); with --target=cuda: every kernel "
       "a gpu.launch (block- and thread-level loops)"},
      {Stage::PTX, "ptx",
       "with --target=cuda: PTX of every kernel for sm_80 and sm_90"},
  };
  return table;
}

const char *stageName(Stage stage) {
  for (const StageInfo &info : stageTable())
    if (info.stage == stage)
      return info.name;
  return "?";
}

std::optional<Stage> parseStage(const std::string &name) {
  for (const StageInfo &info : stageTable())
    if (name == info.name)
      return info.stage;
  return std::nullopt;
}

std::string stageNameList(bool withPTX) {
  std::string names;
  for (const StageInfo &info : stageTable())
    if (withPTX || info.stage != Stage::PTX)
      names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

namespace {
struct PipelineCLOptions : PassPipelineOptions<PipelineCLOptions> {
  Option<Stage> stopAfter{*this, "stop-after",
                          llvm::cl::desc("Last stage to run"),
                          llvm::cl::init(Stage::LLVM), StageValues{false}};
  Option<Stage> startAfter{
      *this, "start-after",
      llvm::cl::desc("The stage the input is at (a gptc compile --emit=STAGE "
                     "dump): run the stages after it"),
      llvm::cl::init(Stage::GPT), StageValues{false}};
  Option<int64_t> gradAccum{
      *this, "grad-accum",
      llvm::cl::desc("Micro-steps per optimizer step (default: the module's "
                     "gpt.grad_accum, which gptc records from the spec)"),
      llvm::cl::init(0)};
  Option<int64_t> ranks{
      *this, "ranks",
      llvm::cl::desc("Data-parallel ranks (default: the module's gpt.ranks, "
                     "which gptc records from the spec)"),
      llvm::cl::init(0)};
  Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc(
          "Fuse attention, RMSNorm, rotary, cross-entropy, Newton-Schulz"),
      llvm::cl::init(true)};
};
} // namespace

void registerGPTCPipeline() {
  PassPipelineRegistration<PipelineCLOptions>(
      "gptc-pipeline",
      "The gptc pipeline from a frontend module (@forward, @update) to LLVM",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions options;
        options.stopAfter = cl.stopAfter;
        if (cl.startAfter != Stage::GPT)
          options.startAfter = cl.startAfter;
        options.gradAccum = cl.gradAccum;
        options.ranks = cl.ranks;
        options.fuse = cl.fuse;
        buildGPTCPipeline(pm, options);
      });
}

} // namespace gptc
