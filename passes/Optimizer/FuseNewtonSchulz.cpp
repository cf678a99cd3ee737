//===- FuseNewtonSchulz.cpp - The gptc-fuse-newton-schulz pass ------------===//
//
// optim.newton_schulz %a : tensor<MxNxf32>        (one per parameter)
// optim.newton_schulz %b : tensor<MxNxf32>        (same shape, same settings)
//   =>
// %s = concat(reshape(%a, 1xMxN), reshape(%b, 1xMxN)) : tensor<2xMxNxf32>
// %o = optim.newton_schulz %s : tensor<2xMxNxf32>
// %oa = reshape(slice(%o, 0)), %ob = reshape(slice(%o, 1))
//
// so that the batch's GEMMs (X X^T, A A or A X, and the update product) are
// each one strided batched call instead of one call per parameter. The
// ops of the function are put back in dependence order afterwards.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Optim/OptimDialect.h"

#include "mlir/Analysis/TopologicalSortUtils.h"

#include <algorithm>
#include <map>

#define DEBUG_TYPE "gptc-fuse-newton-schulz"

namespace gptc {
#define GEN_PASS_DEF_FUSENEWTONSCHULZPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Ops that may share one batched call: same matrix type, same settings.
std::string batchKey(optim::NewtonSchulzOp op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op.getInput().getType();
  for (NamedAttribute attr : op->getAttrs())
    os << " " << attr.getName() << "=" << attr.getValue();
  return key;
}

void batch(ArrayRef<optim::NewtonSchulzOp> group, OpBuilder &b) {
  optim::NewtonSchulzOp first = group.front();
  auto type = cast<RankedTensorType>(first.getInput().getType());
  int64_t n = static_cast<int64_t>(group.size());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  Type elt = type.getElementType();
  auto one = RankedTensorType::get({1, rows, cols}, elt);
  auto stacked = RankedTensorType::get({n, rows, cols}, elt);
  SmallVector<Location> locs;
  for (optim::NewtonSchulzOp op : group)
    locs.push_back(op.getLoc());
  Location loc = b.getFusedLoc(locs);

  SmallVector<Value> parts;
  for (optim::NewtonSchulzOp op : group)
    parts.push_back(gpt::ReshapeOp::create(b, op.getLoc(), one, op.getInput()));
  Value x = gpt::ConcatOp::create(b, loc, stacked, parts, 0);
  auto fused = optim::NewtonSchulzOp::create(
      b, loc, stacked, x, first.getStepsAttr(), first.getCoefficientsAttr(),
      first.getEpsAttr(), first.getFormAttr(), first.getTransposeAttr(),
      first.getNormalizeAttr(), first.getComputeDtypeAttr());
  for (size_t i = 0; i < group.size(); ++i) {
    optim::NewtonSchulzOp op = group[i];
    Value slice = gpt::SliceOp::create(
        b, op.getLoc(), one, fused.getResult(),
        b.getDenseI64ArrayAttr({static_cast<int64_t>(i), 0, 0}));
    op.getResult().replaceAllUsesWith(
        gpt::ReshapeOp::create(b, op.getLoc(), type, slice));
    op.erase();
  }
}

struct FuseNewtonSchulzPass
    : gptc::impl::FuseNewtonSchulzPassBase<FuseNewtonSchulzPass> {
  using FuseNewtonSchulzPassBase::FuseNewtonSchulzPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    std::map<std::string, SmallVector<optim::NewtonSchulzOp>> groups;
    std::vector<std::string> order;
    for (auto op : block.getOps<optim::NewtonSchulzOp>()) {
      auto type = cast<RankedTensorType>(op.getInput().getType());
      if (type.getRank() != 2 || !type.hasStaticShape())
        continue;
      std::string key = batchKey(op);
      if (!groups.count(key))
        order.push_back(key);
      groups[key].push_back(op);
    }
    bool changed = false;
    OpBuilder b(&getContext());
    b.setInsertionPoint(block.getTerminator());
    size_t limit = static_cast<size_t>(std::max<int64_t>(maxBatch, 1));
    for (const std::string &key : order) {
      ArrayRef<optim::NewtonSchulzOp> group = groups[key];
      for (size_t start = 0; start < group.size(); start += limit) {
        ArrayRef<optim::NewtonSchulzOp> chunk =
            group.slice(start, std::min(limit, group.size() - start));
        if (chunk.size() > 1) {
          batch(chunk, b);
          changed = true;
        }
      }
    }
    // The batched op sits before the terminator; put every op back after
    // what it uses (the block is straight-line SSA).
    if (changed && !sortTopologically(&block, block.without_terminator()))
      func.emitError("gptc-fuse-newton-schulz: cannot order the update");
  }
};

} // namespace
