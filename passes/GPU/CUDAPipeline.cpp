//===- CUDAPipeline.cpp - CUDA code generation ----------------------------===//
//
// See CUDAPipeline.h; the stages before it in passes/Pipeline.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/GPU/CUDAPipeline.h"

#include "passes/Passes.h"
#include "passes/PipelineText.h"
#include "passes/TargetDescription.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;

namespace gptc {

void buildCUDACodegenPipeline(OpPassManager &pm,
                              const TargetDescription &target) {
  // The warp- and block-level ops as gpu and nvvm ops first:
  // convert-parallel-loops-to-gpu only moves ops it knows into a launch.
  // Elementwise nests 16 bytes a thread (gptc-vector-elementwise), row
  // reductions a warp per row (gptc-warp-reductions). Then each nest a
  // grid of 256-thread blocks (gptc-thread-blocks), blocks
  // and threads mapped onto the grid's and the block's x dimension.
  addPipelineText(pm, "func.func(gptc-lower-block-barriers),"
                      "func.func(gptc-lower-warp-mma),"
                      "func.func(gptc-vector-elementwise),"
                      "func.func(gptc-warp-reductions),"
                      "func.func(gptc-thread-blocks),"
                      "func.func(gpu-map-parallel-loops),"
                      "func.func(convert-parallel-loops-to-gpu),"
                      "func.func(gptc-workgroup-tiles),"
                      "func.func(lower-affine),canonicalize,cse");
  // A thread's reduction loop carries its accumulator in a register, in
  // the loop's order (the CPU's sums reassociate for its vector lanes).
  pm.addNestedPass<func::FuncOp>(
      createRegisterAccumulatorsPass({/*reassociate=*/false,
                                      /*allAccumulations=*/true}));
  if (target.movesHostComputeToDevice())
    pm.addNestedPass<func::FuncOp>(createHostComputeToDevicePass());
  pm.addNestedPass<func::FuncOp>(createSinkGlobalsPass());
  // Every arena view's offset from the runtime (GPTC_DEBUG_BUFFERS=1
  // places each buffer apart).
  pm.addPass(createArenaBufferUnitsPass());
}

void addKernelOutlining(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createNameKernelsPass());
  // Constants (extents, strides, the block size) into the kernels: a
  // division by a known extent is a multiply and shift, not a 64-bit
  // division by a kernel parameter, and the guard compares with a literal.
  addPipelineText(pm, "func.func(gpu-launch-sink-index-computations),"
                      "gpu-kernel-outlining");
  pm.addPass(createDedupKernelsPass());
}

/// NVPTX's shared-memory pointers as 32 bits (its `nvptx-short-ptr`):
/// shared memory is at most 228 KiB, so an address in it needs no 64-bit
/// arithmetic. The option belongs to the NVPTX target machine, which
/// gpu-module-to-binary makes in this process.
static void useShortSharedPointers() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find("nvptx-short-ptr");
  if (found != options.end())
    static_cast<llvm::cl::opt<bool> *>(found->second)->setValue(true);
}

void buildPTXPipeline(OpPassManager &pm) {
  useShortSharedPointers();
  // Outline as the NVVM pipeline would (its own outlining then has nothing
  // left to do), merge identical kernels, and serialise each kernel for
  // every chip: gpu-lower-to-nvvm-pipeline attaches the first chip's
  // target itself, the others are attached here, and gpu-module-to-binary
  // emits one object per target.
  addKernelOutlining(pm);
  pm.addPass(createSharedTileRegistersPass());
  pm.addPass(createExternDynamicSharedPass());
  // No host wait after each launch: the step's work is one stream.
  pm.addNestedPass<func::FuncOp>(createStreamLaunchesPass());
  for (size_t i = 1; i < kPTXChips.size(); ++i)
    addPipelineText(pm, std::string("nvvm-attach-target{chip=") + kPTXChips[i] +
                            " features=+ptx80}");
  // Each kernel lowered to NVVM on its own, at the index width its module's
  // data layout gives (32 bits where gptc-kernel-index-width proves every
  // index fits): upstream's pipeline below would lower nvgpu and arith ops
  // with the host's 64-bit index before it reaches the kernels. Memref
  // arguments are bare pointers, which both widths pass alike.
  addPipelineText(pm, "gpu.module(gptc-kernel-index-width,"
                      "convert-vector-to-scf,convert-scf-to-cf,"
                      "expand-strided-metadata,lower-affine,"
                      "gptc-nvgpu-to-nvvm,"
                      "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},"
                      "reconcile-unrealized-casts)");
  addPipelineText(pm, std::string("gpu-lower-to-nvvm-pipeline{cubin-chip=") +
                          kPTXChips[0] +
                          " cubin-features=+ptx80 cubin-format=isa"
                          " kernel-bare-ptr-calling-convention=1}");
}

} // namespace gptc
