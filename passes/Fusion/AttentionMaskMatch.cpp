//===- AttentionMaskMatch.cpp - Recognise attention masks -----------------===//

#include "passes/Fusion/AttentionMaskMatch.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::fusion {
namespace {

constexpr int64_t kBlock = 128;

Value throughBroadcast(Value v) {
  while (auto bc = v.getDefiningOp<BroadcastOp>())
    v = bc.getInput();
  return v;
}

/// The integer of a splat gpt.constant.
std::optional<int64_t> splatInt(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APInt>().getSExtValue();
}

/// An iota along dimension `dim` of a [.., T, T] tensor (2: query position,
/// 3: key position).
bool isPosition(Value v, int64_t dim) {
  auto iota = throughBroadcast(v).getDefiningOp<IotaOp>();
  if (!iota)
    return false;
  auto t = cast<RankedTensorType>(iota.getType());
  return t.getRank() == 4 && static_cast<int64_t>(iota.getDim()) == dim &&
         t.getDimSize(2) == t.getDimSize(3);
}

/// `x / 128` of an integer tensor: returns x.
Value blockOf(Value v) {
  auto div = v.getDefiningOp<DivOp>();
  if (!div || splatInt(div.getRhs()) != kBlock)
    return nullptr;
  return div.getLhs();
}

/// A 0-d i64 window, broadcast (through a reshape) to the mask's shape.
Value scalarWindow(Value v) {
  v = throughBroadcast(v);
  if (auto r = v.getDefiningOp<ReshapeOp>())
    v = r.getInput();
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 0 || !t.getElementType().isInteger(64))
    return nullptr;
  return v;
}

/// doc ids of a [B, T] token tensor: (tokens, bos).
std::optional<std::pair<Value, int64_t>> documentIds(Value v) {
  auto cumsum = v.getDefiningOp<CumsumOp>();
  if (!cumsum || cumsum.getDim() != 1)
    return std::nullopt;
  auto cast = cumsum.getInput().getDefiningOp<CastOp>();
  auto isBos = cast ? cast.getInput().getDefiningOp<CompareOp>() : nullptr;
  if (!isBos || isBos.getPredicate() != CompareKind::eq)
    return std::nullopt;
  std::optional<int64_t> bos = splatInt(isBos.getRhs());
  if (!bos || *bos < 0)
    return std::nullopt;
  return std::make_pair(isBos.getLhs(), *bos);
}

/// doc ids laid out along `dim` of [B, 1, T, T] (2: queries, 3: keys).
std::optional<std::pair<Value, int64_t>> documentAlong(Value v, int64_t dim) {
  auto reshape = throughBroadcast(v).getDefiningOp<ReshapeOp>();
  if (!reshape)
    return std::nullopt;
  auto t = cast<RankedTensorType>(reshape.getType());
  if (t.getRank() != 4 || t.getDimSize(dim == 2 ? 3 : 2) != 1)
    return std::nullopt;
  return documentIds(reshape.getInput());
}

/// `(w + 127) / 128` (ceil(w / 128)): returns w.
Value ceilBlocksOf(Value v) {
  Value sum = blockOf(v);
  auto add = sum ? sum.getDefiningOp<AddOp>() : nullptr;
  if (!add || splatInt(add.getRhs()) != kBlock - 1)
    return nullptr;
  return add.getLhs();
}

struct Builder {
  bool causal = false;
  /// The window of `q - k < w` (tokens), and of `q/128 - k/128 < w/128`
  /// (floor) or `< ceil(w/128)` (!floor).
  Value tokenWindow, blockWindow;
  bool floorBlocks = false;
  Value tokens;
  int64_t bos = -1;

  LogicalResult add(Value v) {
    v = throughBroadcast(v);
    if (auto select = v.getDefiningOp<SelectOp>()) {
      if (splatInt(select.getFalseValue()) != 0)
        return failure();
      return success(succeeded(add(select.getCondition())) &&
                     succeeded(add(select.getTrueValue())));
    }
    auto cmp = v.getDefiningOp<CompareOp>();
    if (!cmp)
      return failure();
    Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    switch (cmp.getPredicate()) {
    case CompareKind::le:
      if (causal || !isPosition(lhs, 3) || !isPosition(rhs, 2))
        return failure();
      causal = true;
      return success();
    case CompareKind::lt:
      return addWindow(lhs, rhs);
    case CompareKind::eq: {
      auto q = documentAlong(lhs, 2), k = documentAlong(rhs, 3);
      if (tokens || !q || !k || q != k)
        return failure();
      tokens = q->first, bos = q->second;
      return success();
    }
    default:
      return failure();
    }
  }

  /// dist < bound with dist = q - k (tokens) or q/128 - k/128 (blocks).
  LogicalResult addWindow(Value dist, Value bound) {
    auto sub = dist.getDefiningOp<SubOp>();
    Value w = scalarWindow(bound);
    if (!sub || !w)
      return failure();
    if (isPosition(sub.getLhs(), 2) && isPosition(sub.getRhs(), 3)) {
      if (tokenWindow)
        return failure();
      tokenWindow = w;
      return success();
    }
    Value qb = blockOf(sub.getLhs()), kb = blockOf(sub.getRhs());
    if (blockWindow || !qb || !kb || !isPosition(qb, 2) || !isPosition(kb, 3))
      return failure();
    if (Value ceil = ceilBlocksOf(w)) {
      blockWindow = ceil;
      return success();
    }
    blockWindow = blockOf(w);
    floorBlocks = true;
    return success(blockWindow != nullptr);
  }

  /// The window rule the comparisons make, and its operand: one rule, or
  /// the element rule inside ceil-counted blocks of the same window.
  FailureOr<std::pair<WindowUnit, Value>> window() const {
    if (!tokenWindow && !blockWindow)
      return std::make_pair(WindowUnit::none, Value());
    if (!blockWindow)
      return std::make_pair(WindowUnit::tokens, tokenWindow);
    if (floorBlocks && !tokenWindow)
      return std::make_pair(WindowUnit::blocks, blockWindow);
    if (!floorBlocks && tokenWindow == blockWindow)
      return std::make_pair(WindowUnit::record_blocks, tokenWindow);
    return failure();
  }
};

} // namespace

FailureOr<MaskMatch> matchAttentionMask(Value allowed, MLIRContext *ctx) {
  Builder b;
  if (allowed && failed(b.add(allowed)))
    return failure();
  FailureOr<std::pair<WindowUnit, Value>> window = b.window();
  if (failed(window))
    return failure();
  return MaskMatch{MaskAttr::get(ctx, b.causal, window->first, b.bos), b.tokens,
                   window->second};
}

} // namespace gptc::fusion
