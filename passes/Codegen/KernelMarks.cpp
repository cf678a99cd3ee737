//===- KernelMarks.cpp - Bracket every kernel nest with marks -------------===//
//
// scf.parallel ... (a kernel nest, not nested in another)
//   =>
// func.call @gptc_kernel_mark(ID, 0)
// scf.parallel ...
// func.call @gptc_kernel_mark(ID, 1)
//
// IDs number the nests of the module in program order, the same on the CPU
// and CUDA targets: gptc-emu-check compares each kernel's arena writes
// between the two (`gptc compile --kernel-marks`). A nest that rounds
// values to bf16 and computes on in f32 (arith.truncf to bf16 whose users
// are all arith.extf: the attention's probabilities with bf16 products)
// opens with phase 2 instead of 0: its results may differ by the rounding
// of a value whose last f32 bit differs between the targets (their exp),
// and gptc-emu-check compares them at bf16 precision.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <vector>

namespace gptc {
#define GEN_PASS_DEF_KERNELMARKSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct KernelMarksPass
    : public gptc::impl::KernelMarksPassBase<KernelMarksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    Type i64 = b.getI64Type();
    auto type = b.getFunctionType({i64, i64}, {});
    b.setInsertionPointToEnd(module.getBody());
    auto decl =
        func::FuncOp::create(b, module.getLoc(), "gptc_kernel_mark", type);
    decl.setPrivate();
    std::vector<scf::ParallelOp> nests;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk<WalkOrder::PreOrder>([&](scf::ParallelOp op) {
        nests.push_back(op);
        return WalkResult::skip();
      });
    int64_t id = 0;
    for (scf::ParallelOp op : nests) {
      const bool roundsInside =
          op.walk([](arith::TruncFOp trunc) {
              bool roundTrip = trunc.getType().isBF16() && !trunc->use_empty();
              for (Operation *user : trunc->getUsers())
                roundTrip &= isa<arith::ExtFOp>(user);
              return roundTrip ? WalkResult::interrupt()
                               : WalkResult::advance();
            }).wasInterrupted();
      auto mark = [&](int64_t phase) {
        Value a = arith::ConstantIntOp::create(b, op.getLoc(), i64, id);
        Value p = arith::ConstantIntOp::create(b, op.getLoc(), i64, phase);
        func::CallOp::create(b, op.getLoc(), decl, ValueRange{a, p});
      };
      b.setInsertionPoint(op);
      mark(roundsInside ? 2 : 0);
      b.setInsertionPointAfter(op);
      mark(1);
      ++id;
    }
  }
};

} // namespace
