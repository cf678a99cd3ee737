//===- PipelineOptionsError.cpp - Contradictory pipeline options ----------===//
//
// buildGPTCPipeline's way to report options that contradict each other: a
// pipeline builder cannot fail, so the pipeline becomes this one pass,
// which fails with the message when it runs.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace gptc {
#define GEN_PASS_DEF_PIPELINEOPTIONSERRORPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct PipelineOptionsErrorPass
    : public gptc::impl::PipelineOptionsErrorPassBase<
          PipelineOptionsErrorPass> {
  using PipelineOptionsErrorPassBase::PipelineOptionsErrorPassBase;
  void runOnOperation() override {
    getOperation().emitError(message);
    signalPassFailure();
  }
};

} // namespace
