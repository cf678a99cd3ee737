//===- Passes.td - gptc passes -----------------------------*- tablegen -*-===//

#ifndef GPTC_PASSES_TD
#define GPTC_PASSES_TD

include "mlir/Pass/PassBase.td"

// One file of pass declarations a folder, in the order the stages run
// them; CPU and CUDA code generation (and the passes only one target runs,
// at whatever stage) in their targets' folders.
include "Fusion/FusionPasses.td"
include "Autodiff/AutodiffPasses.td"
include "Step/StepPasses.td"
include "Optimizer/OptimizerPasses.td"
include "Lowering/LoweringPasses.td"
include "Buffers/BuffersPasses.td"
include "Codegen/CodegenPasses.td"
include "CPU/CPUPasses.td"
include "GPU/GPUPasses.td"

def PipelineOptionsErrorPass : Pass<"gptc-pipeline-options-error",
                                    "mlir::ModuleOp"> {
  let summary = "Fail with a message: contradictory pipeline options";
  let description = [{
    A pass pipeline builder cannot fail; when `gptc-pipeline`'s options
    contradict each other (start-after not before stop-after) the pipeline
    is this one pass, which emits `message` as an error on the module and
    fails when it runs.
  }];
  let options = [
    Option<"message", "message", "std::string", /*default=*/"\"\"",
           "The error to report">,
  ];
}

#endif // GPTC_PASSES_TD
