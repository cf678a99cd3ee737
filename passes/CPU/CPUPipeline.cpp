//===- CPUPipeline.cpp - CPU code generation ------------------------------===//
//
// See CPUPipeline.h; the stages before it in passes/Pipeline.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/CPU/CPUPipeline.h"

#include "passes/Passes.h"
#include "passes/PipelineText.h"
#include "passes/TargetDescription.h"

using namespace mlir;

namespace gptc {

void buildCPUCodegenPipeline(OpPassManager &pm, const TargetDescription &) {
  pm.addNestedPass<func::FuncOp>(createSequentialInnermostPass());
  pm.addNestedPass<func::FuncOp>(createRegisterAccumulatorsPass());
  pm.addNestedPass<func::FuncOp>(createApproximateExpPass());
  // Each distinct kernel nest one small function: LLVM then optimises it
  // once, and the step's functions compile in parallel (emitObject).
  pm.addPass(createOutlineKernelsPass());
  // The step's functions in parts: code generation holds one function at
  // a time, so a deep model's compile memory stays that of a part.
  pm.addPass(createSplitHostPass());
  addPipelineText(
      pm, "func.func(lower-affine),convert-scf-to-openmp,"
          "func.func(convert-math-to-llvm),convert-math-to-libm,"
          "convert-vector-to-llvm,expand-strided-metadata,lower-affine,"
          "finalize-memref-to-llvm,"
          "convert-scf-to-cf,convert-openmp-to-llvm,convert-arith-to-llvm,"
          "convert-func-to-llvm,"
          "convert-cf-to-llvm,reconcile-unrealized-casts");
  pm.addPass(createRoundToBf16Pass());
}

} // namespace gptc
