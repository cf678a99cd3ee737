//===- CountStepFlops.cpp - A training step's matrix-product FLOPs --------===//
//
// gptc-count-step-flops: the model FLOPs of one optimizer step on one rank,
// from the ops' ProductFlopsOpInterface, as the module attribute
// gptc.step_flops (the manifest's step_flops; gptc train's MFU).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPT/GPTDialect.h"
#include "passes/Step/TrainingShape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace gptc {
#define GEN_PASS_DEF_COUNTSTEPFLOPSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

double flopsOf(func::FuncOp fn) {
  double flops = 0;
  if (fn)
    fn.walk(
        [&](gpt::ProductFlopsOpInterface op) { flops += op.productFlops(); });
  return flops;
}

struct CountStepFlopsPass
    : gptc::impl::CountStepFlopsPassBase<CountStepFlopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto grad = module.lookupSymbol<func::FuncOp>("gptc_grad_step");
    if (!grad)
      return;
    FailureOr<int64_t> microSteps = gptc::trainingCount(
        module, gptc::kGradAccumAttr, 0, "gptc-count-step-flops", "grad-accum");
    if (failed(microSteps))
      return signalPassFailure();
    double flops =
        double(*microSteps) * flopsOf(grad) +
        flopsOf(module.lookupSymbol<func::FuncOp>("gptc_update_step"));
    module->setAttr("gptc.step_flops",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     static_cast<int64_t>(flops)));
  }
};

} // namespace
