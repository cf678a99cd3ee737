//===- Pipeline.cpp - The gptc compilation pipeline -----------------------===//
//
// One function builds the whole pipeline, stage by stage; `gptc` and
// `gptc-opt --gptc-pipeline` both use it. Upstream passes are named in
// their textual form so that the pipeline reads like the docs.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace gptc {

namespace {

/// Appends a textual pipeline (nested under the module); aborts on a typo,
/// which is a bug in this file, not a user error.
void addText(OpPassManager &pm, const std::string &text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("gptc: bad pipeline text: " + text));
}

} // namespace

void buildGPTCPipeline(OpPassManager &out, const PipelineOptions &options) {
  // With startAfter, the passes of the stages up to it go to a pass manager
  // that is dropped: the input is already past them.
  if (options.startAfter && *options.startAfter >= options.stopAfter) {
    PipelineOptionsErrorPassOptions error;
    error.message =
        std::string("gptc-pipeline: start-after=") +
        stageName(*options.startAfter) +
        " must come before stop-after=" + stageName(options.stopAfter);
    out.addPass(createPipelineOptionsErrorPass(error));
    return;
  }
  OpPassManager skipped(out.getOpAnchorName(), out.getNesting());
  OpPassManager *pm = options.startAfter ? &skipped : &out;
  auto done = [&](Stage s) {
    if (options.startAfter == s)
      pm = &out;
    return options.stopAfter == s;
  };
  if (done(Stage::GPT))
    return;

  // 1. Fusion of the forward graph: masked attention, RMSNorm, rotary and
  //    the cross-entropy become gpt.attention, gpt.rms_norm, gpt.rotary and
  //    gpt.cross_entropy, whose VJPs autodiff then uses.
  if (options.fuse) {
    pm->addNestedPass<func::FuncOp>(createFuseAttentionPass());
    pm->addNestedPass<func::FuncOp>(createFuseRMSNormPass());
    pm->addNestedPass<func::FuncOp>(createFuseRotaryPass());
    pm->addNestedPass<func::FuncOp>(createFuseCrossEntropyPass());
    pm->addPass(createCanonicalizerPass());
  }
  if (done(Stage::Fused))
    return;

  // 2. Reverse-mode autodiff of @forward.
  pm->addPass(createAutodiffPass());
  pm->addPass(createCanonicalizerPass());
  pm->addPass(createCSEPass());
  if (done(Stage::Grad))
    return;

  // 3. Arena entry points; the optimizer as gpt math; everything inlined.
  BuildStepPassOptions step;
  step.gradAccum = options.gradAccum;
  step.ranks = options.ranks;
  pm->addPass(createBuildStepPass(step));
  pm->addPass(createInlinerPass());
  pm->addPass(createSymbolDCEPass());
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
    pm->addPass(createLowerOptimPass(keep));
    if (options.fuse)
      pm->addNestedPass<func::FuncOp>(createFuseNewtonSchulzPass());
    if (distributed) {
      DistributeNewtonSchulzPassOptions split;
      split.ranks = options.ranks;
      pm->addNestedPass<func::FuncOp>(createDistributeNewtonSchulzPass(split));
    }
    pm->addNestedPass<func::FuncOp>(createLowerOptimPass(lower));
  } else {
    pm->addPass(createLowerOptimPass(lower));
  }
  pm->addPass(createCanonicalizerPass());
  pm->addPass(createCSEPass());
  if (done(Stage::Step))
    return;

  // 4. Kernels as linalg on tensors; elementwise chains fused.
  const bool cuda = options.target == Target::CUDA;
  LowerToLinalgPassOptions toLinalg;
  toLinalg.gpuKernels = cuda;
  // The embedding gradient by sorted positions on both targets: the same
  // kernels (so a --kernel-marks build pairs each with the CPU's), and on
  // the CPU parallel over the table instead of a serial loop over the
  // positions with a parallel region per row.
  toLinalg.sortedEmbeddingGrad = true;
  // A --kernel-marks build (gptc-emu-check) keeps the CPU's scalar
  // attention forward: the tensor-core kernel has no CPU counterpart with
  // the same buffers (bf16 operands).
  toLinalg.tensorCores = !options.kernelMarks;
  pm->addNestedPass<func::FuncOp>(createLowerToLinalgPass(toLinalg));
  pm->addPass(createCanonicalizerPass());
  pm->addPass(createCSEPass());
  // CUDA: a weight gradient's long sum over the tokens in parts that fill
  // the device, summed by a kernel that elementwise fusion then extends.
  if (cuda && !options.kernelMarks)
    pm->addNestedPass<func::FuncOp>(createSplitKPass());
  pm->addNestedPass<func::FuncOp>(createFuseElementwisePass());
  // CPU: a scalar read once outside the kernel keeps its loops vectorised.
  // CUDA: the host cannot read device memory; kernels read it themselves
  // (but for --kernel-marks builds, which keep the CPU's host structure).
  if (!cuda || options.kernelMarks)
    pm->addNestedPass<func::FuncOp>(createHoistScalarOperandsPass());
  // CUDA: a reduction with few results (a scalar's gradient, Newton-Schulz
  // norms) in two deterministic kernels instead of a handful of threads.
  if (cuda && !options.kernelMarks)
    pm->addNestedPass<func::FuncOp>(createSplitReductionsPass());
  pm->addPass(createCanonicalizerPass());
  pm->addPass(createCSEPass());
  if (done(Stage::Linalg))
    return;

  // 5. Buffers: one-shot bufferization, deallocation, GEMM library calls,
  //    temporaries placed in the arena by liveness.
  // Collectives as runtime calls on buffers (distributed builds only).
  if (distributed)
    pm->addPass(createLowerCommPass());
  pm->addNestedPass<func::FuncOp>(createWriteSlotsInPlacePass());
  // Each destination its own init: bufferization's analysis is then linear
  // in the step, not cubic in the depth (one shared zero tensor was the
  // init of every GEMM).
  pm->addNestedPass<func::FuncOp>(createUnshareInitsPass());
  // A kernel whose result is inserted into a slice of a larger tensor (the
  // two halves of a rotary embedding, a concatenation) writes into that
  // slice directly instead of into a temporary that is then copied.
  addText(*pm, "eliminate-empty-tensors");
  addText(*pm, "one-shot-bufferize{bufferize-function-boundaries "
               "function-boundary-type-conversion=identity-layout-map}");
  addText(*pm, "canonicalize");
  pm->addPass(createGemmToBlasPass());
  pm->addNestedPass<func::FuncOp>(createCopyToLinalgPass());
  // The step's temporaries into the workspace first: the deallocation
  // pipeline is then left with the few buffers of loops (its simplification
  // is quadratic in the buffers one dealloc frees).
  pm->addPass(createPlanBuffersPass());
  addText(*pm, "buffer-deallocation-pipeline,canonicalize");
  pm->addPass(createExportLayoutPass());
  if (done(Stage::Buffers))
    return;

  // 6. Every kernel an scf.parallel nest.
  addText(*pm, "func.func(convert-linalg-to-parallel-loops),canonicalize");
  if (done(Stage::Loops))
    return;
  if (options.kernelMarks)
    pm->addPass(createKernelMarksPass());

  // 7. CUDA: the same nests mapped onto gpu.launch (buildPTXPipeline
  //    takes them to PTX).
  if (options.target == Target::CUDA) {
    // Each nest a grid of 256-thread blocks (gptc-thread-blocks), blocks
    // and threads mapped onto the grid's and the block's x dimension.
    addText(*pm, "func.func(gptc-thread-blocks),"
                 "func.func(gpu-map-parallel-loops),"
                 "func.func(convert-parallel-loops-to-gpu),"
                 "func.func(gptc-workgroup-tiles),"
                 "func.func(lower-affine),canonicalize,cse");
    // A thread's reduction loop carries its accumulator in a register, in
    // the loop's order (the CPU's sums reassociate for its vector lanes).
    pm->addNestedPass<func::FuncOp>(
        createRegisterAccumulatorsPass({/*reassociate=*/false}));
    if (!options.kernelMarks)
      pm->addNestedPass<func::FuncOp>(createHostComputeToDevicePass());
    pm->addNestedPass<func::FuncOp>(createSinkGlobalsPass());
    // Every arena view's offset from the runtime (GPTC_DEBUG_BUFFERS=1
    // places each buffer apart).
    pm->addPass(createArenaBufferUnitsPass());
    if (done(Stage::LLVM))
      return;
    // 8. CUDA: PTX for every chip.
    buildPTXPipeline(*pm);
    return;
  }

  // 7. CPU: OpenMP across cores over all but the innermost dimension,
  //    rows vectorized by LLVM -O3.
  pm->addNestedPass<func::FuncOp>(createSequentialInnermostPass());
  pm->addNestedPass<func::FuncOp>(createRegisterAccumulatorsPass());
  pm->addNestedPass<func::FuncOp>(createApproximateExpPass());
  // Each distinct kernel nest one small function: LLVM then optimises it
  // once, and the step's functions compile in parallel (emitObject).
  pm->addPass(createOutlineKernelsPass());
  // The step's functions in parts: code generation holds one function at
  // a time, so a deep model's compile memory stays that of a part.
  pm->addPass(createSplitHostPass());
  addText(*pm, "func.func(lower-affine),convert-scf-to-openmp,"
               "func.func(convert-math-to-llvm),convert-math-to-libm,"
               "convert-vector-to-llvm,expand-strided-metadata,lower-affine,"
               "finalize-memref-to-llvm,"
               "convert-scf-to-cf,convert-openmp-to-llvm,convert-arith-to-llvm,"
               "convert-func-to-llvm,"
               "convert-cf-to-llvm,reconcile-unrealized-casts");
  pm->addPass(createRoundToBf16Pass());
}

void addKernelOutlining(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createNameKernelsPass());
  addText(pm, "gpu-kernel-outlining");
  pm.addPass(createDedupKernelsPass());
}

void buildPTXPipeline(OpPassManager &pm) {
  // Outline as the NVVM pipeline would (its own outlining then has nothing
  // left to do), merge identical kernels, and serialise each kernel for
  // every chip: gpu-lower-to-nvvm-pipeline attaches the first chip's
  // target itself, the others are attached here, and gpu-module-to-binary
  // emits one object per target.
  addKernelOutlining(pm);
  pm.addPass(createSharedTileRegistersPass());
  // No host wait after each launch: the step's work is one stream.
  pm.addNestedPass<func::FuncOp>(createStreamLaunchesPass());
  for (size_t i = 1; i < kPTXChips.size(); ++i)
    addText(pm, std::string("nvvm-attach-target{chip=") + kPTXChips[i] +
                    " features=+ptx80}");
  addText(pm, std::string("gpu-lower-to-nvvm-pipeline{cubin-chip=") +
                  kPTXChips[0] + " cubin-features=+ptx80 cubin-format=isa}");
}

llvm::ArrayRef<StageInfo> stageTable() {
  static const StageInfo table[] = {
      {Stage::GPT, "gpt",
       "forward graph in gpt primitives (+ @update in optim ops), as the "
       "frontend writes them; every op located at the YAML key that "
       "configured it (--mlir-print-debuginfo shows locations)"},
      {Stage::Fused, "fused",
       "masked attention, RMSNorm and the loss as gpt.attention, "
       "gpt.rms_norm, gpt.cross_entropy (gptc-fuse-attention, -rmsnorm, "
       "-cross-entropy; not with --no-fuse)"},
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
      llvm::cl::desc("Fuse attention, RMSNorm, cross-entropy, Newton-Schulz"),
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
