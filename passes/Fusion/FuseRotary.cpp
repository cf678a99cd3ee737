//===- FuseRotary.cpp - The gptc-fuse-rotary pass -------------------------===//
//
// The frontend writes rotary as halves, products and a concatenation:
//
//   x1 = slice(x, half 0)        x2 = slice(x, half 1)
//   c = broadcast(cos)           s = broadcast(sin)
//   y = concat(x1 c + x2 s, x2 c - x1 s, last dim)   => gpt.rotary x, cos, sin
//
// Unfused, each half is a kernel, the concatenation another, and the
// backward slices and pads; gpt.rotary is one pass each way. Every
// intermediate must have no user outside the pattern.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/SoleUse.h"
#include "passes/Passes.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-fuse-rotary"

namespace gptc {
#define GEN_PASS_DEF_FUSEROTARYPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;
using gptc::fusion::onlyUsedBy;

namespace {

/// One product of the pattern: a half of x times a broadcast table.
struct Product {
  SliceOp half;
  BroadcastOp table;
};

/// `mul` as slice(x) * broadcast(table), in either order.
std::optional<Product> matchProduct(Value v, Operation *user) {
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul || !onlyUsedBy(v, {user}))
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto half = mul->getOperand(side).getDefiningOp<SliceOp>();
    auto table = mul->getOperand(1 - side).getDefiningOp<BroadcastOp>();
    if (half && table)
      return Product{half, table};
  }
  return std::nullopt;
}

/// Which half of its input `slice` takes along the last dimension (0 or
/// 1), or -1 when it is not a half (other offsets zero).
int64_t halfIndex(SliceOp slice) {
  auto in = cast<RankedTensorType>(slice.getInput().getType());
  auto out = cast<RankedTensorType>(slice.getType());
  int64_t rank = in.getRank(), width = in.getShape().back();
  if (rank == 0 || width % 2 != 0 || out.getShape().back() != width / 2 ||
      out.getShape().drop_back() != in.getShape().drop_back())
    return -1;
  ArrayRef<int64_t> offsets = slice.getOffsets();
  if (llvm::any_of(offsets.drop_back(), [](int64_t o) { return o != 0; }))
    return -1;
  return offsets.back() == 0 ? 0 : offsets.back() == width / 2 ? 1 : -1;
}

/// Whether `table` is what gpt.rotary takes for `x`: its rank and element
/// type, the half's width last, every other dimension 1 or x's.
bool tablesFit(RankedTensorType x, RankedTensorType table) {
  if (table.getRank() != x.getRank() ||
      table.getElementType() != x.getElementType() ||
      table.getShape().back() * 2 != x.getShape().back())
    return false;
  for (int64_t i = 0; i + 1 < x.getRank(); ++i)
    if (table.getDimSize(i) != 1 && table.getDimSize(i) != x.getDimSize(i))
      return false;
  return true;
}

struct FuseRotary : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(concat.getType());
    if (concat.getInputs().size() != 2 ||
        int64_t(concat.getDim()) != type.getRank() - 1)
      return rewriter.notifyMatchFailure(concat, "not two halves, last dim");
    auto add = concat.getInputs()[0].getDefiningOp<AddOp>();
    auto sub = concat.getInputs()[1].getDefiningOp<SubOp>();
    if (!add || !sub || !onlyUsedBy(add, {concat}) ||
        !onlyUsedBy(sub, {concat}))
      return rewriter.notifyMatchFailure(concat, "not (add, sub)");
    // y1 = x1 c + x2 s; y2 = x2 c - x1 s.
    std::optional<Product> x1c = matchProduct(add.getLhs(), add),
                           x2s = matchProduct(add.getRhs(), add),
                           x2c = matchProduct(sub.getLhs(), sub),
                           x1s = matchProduct(sub.getRhs(), sub);
    if (!x1c || !x2s || !x2c || !x1s)
      return rewriter.notifyMatchFailure(concat, "not four half products");
    Value x = x1c->half.getInput();
    Value cos = x1c->table.getInput(), sin = x2s->table.getInput();
    auto same = [&](Product p, int64_t half, Value table) {
      return p.half.getInput() == x && halfIndex(p.half) == half &&
             p.table.getInput() == table;
    };
    if (x.getType() != type || !same(*x1c, 0, cos) || !same(*x2s, 1, sin) ||
        !same(*x2c, 1, cos) || !same(*x1s, 0, sin) || cos == sin ||
        cos.getType() != sin.getType())
      return rewriter.notifyMatchFailure(concat, "not a rotation of x");
    // The halves and broadcasts may be shared by the products only.
    SmallVector<Operation *> products = {
        add.getLhs().getDefiningOp(), add.getRhs().getDefiningOp(),
        sub.getLhs().getDefiningOp(), sub.getRhs().getDefiningOp()};
    for (Product p : {*x1c, *x2s, *x2c, *x1s})
      for (Value v : {p.half.getResult(), p.table.getResult()})
        if (!llvm::all_of(v.getUsers(), [&](Operation *u) {
              return llvm::is_contained(products, u);
            }))
          return rewriter.notifyMatchFailure(concat, "a half or table is "
                                                     "read elsewhere");
    if (!tablesFit(type, cast<RankedTensorType>(cos.getType())))
      return rewriter.notifyMatchFailure(concat, "tables of another shape");
    rewriter.replaceOpWithNewOp<RotaryOp>(concat, type, x, cos, sin,
                                          /*inverse=*/false);
    return success();
  }
};

struct FuseRotaryPass : gptc::impl::FuseRotaryPassBase<FuseRotaryPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseRotary>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
