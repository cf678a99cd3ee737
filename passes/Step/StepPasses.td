//===- StepPasses.td - gptc passes -------------------------*- tablegen -*-===//
//
// Stage 3: the step's entry points. Included by passes/Passes.td (one pass-
// declaration file for the library).
//
//===----------------------------------------------------------------------===//

def BuildStepPass : Pass<"gptc-build-step", "mlir::ModuleOp"> {
  let summary = "Build the arena entry points of the training step";
  let description = [{
    From `@forward`, `@forward_grad` (gptc-autodiff) and `@update` (the
    optimizer), whose arguments and results name their arena slots with
    `gpt.name`, builds `@gptc_grad_step`, `@gptc_update_step` and
    `@gptc_eval_step`, each taking the whole arena as a `memref<Nxi8>`
    (runtime/gptrt.h). The grad step accumulates the loss and the gradients
    scaled by 1/grad-accum; with `ranks` > 1 each micro-step's loss and
    gradients are first averaged over the ranks (`comm.all_reduce avg`, one
    per gradient: gptc-lower-comm issues each as soon as its gradient is
    final and the runtime packs them into buckets), and so is the eval
    loss. Slot offsets are 64-byte aligned and recorded in
    the module attribute `gptc.arena`, a `#gpt.arena` layout. The three
    tensor functions become private (inline them afterwards). Unset (0),
    `ranks` and `grad-accum` are the module's `gpt.ranks` and
    `gpt.grad_accum` (the frontend records the spec's); set, they must agree
    with them (passes/Step/TrainingShape.h).
  }];
  let options = [
    Option<"gradAccum", "grad-accum", "int64_t", /*default=*/"0",
           "Micro-steps per optimizer step (gradients are averaged); 0: the "
           "module's gpt.grad_accum (1 without it)">,
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "Data-parallel ranks: > 1 averages every micro-step's gradients "
           "and loss, and the eval loss, over the ranks (comm.all_reduce "
           "avg); 0: the module's gpt.ranks (1 without it)">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::comm::CommDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpt::GPTDialect"];
}

def CountStepFlopsPass : Pass<"gptc-count-step-flops", "mlir::ModuleOp"> {
  let summary = "Count a training step's matrix-product FLOPs";
  let description = [{
    Sums the FLOPs of the matrix products (ops implementing
    `ProductFlopsOpInterface`: gpt.matmul, gpt.matmul_add, gpt.attention at
    the pairs its mask allows at most, gpt.attention_grad) of one optimizer
    step on one rank: `@gptc_grad_step` once a micro-step (the module's
    `gpt.grad_accum`) and `@gptc_update_step` once. The count goes into the
    module attribute `gptc.step_flops` (i64), which the bundle's manifest
    carries as `step_flops`: the numerator of the MFU `gptc train` prints.
    A module without `@gptc_grad_step` (before gptc-build-step) is left
    alone.
  }];
}
