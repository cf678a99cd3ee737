//===- LowerWarpMma.cpp - The gptc-lower-warp-mma pass --------------------===//
//
// gptgpu.warp_mma => nvvm.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// and the llvm.extractvalue of each of its four results; cp.async's commit
// and wait groups => their nvvm ops. See the pass description in
// passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#define DEBUG_TYPE "gptc-lower-warp-mma"

namespace gptc {
#define GEN_PASS_DEF_LOWERWARPMMAPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

void lowerWarpMma(gptgpu::WarpMmaOp mma) {
  OpBuilder b(mma);
  Location loc = mma.getLoc();
  Type f32 = b.getF32Type();
  auto result =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, result,
      ValueRange{mma.getA0(), mma.getA1(), mma.getA2(), mma.getA3()},
      ValueRange{mma.getB0(), mma.getB1()},
      ValueRange{mma.getC0(), mma.getC1(), mma.getC2(), mma.getC3()},
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  for (int64_t i = 0; i < 4; ++i)
    mma->getResult(i).replaceAllUsesWith(
        LLVM::ExtractValueOp::create(b, loc, d, i));
  mma.erase();
}

struct LowerWarpMmaPass : gptc::impl::LowerWarpMmaPassBase<LowerWarpMmaPass> {
  void runOnOperation() override {
    getOperation().walk([](gptgpu::WarpMmaOp mma) { lowerWarpMma(mma); });
    getOperation().walk([](gptgpu::AsyncCopyCommitOp commit) {
      OpBuilder b(commit);
      NVVM::CpAsyncCommitGroupOp::create(b, commit.getLoc());
      commit.erase();
    });
    getOperation().walk([](gptgpu::AsyncCopyWaitOp wait) {
      OpBuilder b(wait);
      NVVM::CpAsyncWaitGroupOp::create(b, wait.getLoc(), wait.getPendingAttr());
      wait.erase();
    });
  }
};

} // namespace
