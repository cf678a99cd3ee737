//===- ReferenceFused.cpp - Reference semantics: fused ops
//-----------------===//

#include "reference/ReferenceModels.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::ref::detail {
namespace {

/// The operands of rms_norm / rms_norm_grad seen row by row: x = input
/// (+ residual), the optional weight, rows of n elements.
struct NormRows {
  HostTensor x;
  const HostTensor *weight = nullptr;
  int64_t n = 1, rows = 0;
};

/// `first` is the index of the first optional operand (residual, weight).
template <typename OpT>
NormRows normRows(OpT op, ArrayRef<HostTensor> in, unsigned first) {
  NormRows r;
  unsigned next = first;
  const HostTensor *residual = op.getResidual() ? &in[next++] : nullptr;
  r.weight = op.getWeight() ? &in[next++] : nullptr;
  r.x = in[0];
  if (residual)
    for (int64_t i = 0, e = r.x.size(); i < e; ++i)
      r.x[i] += (*residual)[i];
  r.n = r.x.shape.empty() ? 1 : r.x.shape.back();
  r.rows = r.x.size() / std::max<int64_t>(r.n, 1);
  return r;
}

/// x' = input (+ residual); y = x' / sqrt(mean(x'^2, -1) + eps) (* weight).
LogicalResult evalRMSNorm(RMSNormOp op, ArrayRef<HostTensor> in,
                          EvalResults &out) {
  NormRows nr = normRows(op, in, 1);
  HostTensor x = std::move(nr.x);
  const HostTensor *weight = nr.weight;
  double eps = op.getEps().convertToDouble();
  int64_t n = nr.n, rows = nr.rows;
  for (int64_t row = 0; row < rows; ++row) {
    double *v = x.data.data() + row * n;
    double ms = 0.0;
    for (int64_t j = 0; j < n; ++j)
      ms += v[j] * v[j];
    double inv = 1.0 / std::sqrt(ms / static_cast<double>(n) + eps);
    for (int64_t j = 0; j < n; ++j)
      v[j] *= inv * (weight ? (*weight)[j] : 1.0);
  }
  out.push_back(std::move(x));
  return success();
}

/// dx = r gw - x r^3 mean(gw x) per row, x = input (+ residual),
/// r = 1 / sqrt(mean(x^2) + eps), gw = grad (* weight).
LogicalResult evalRMSNormGrad(RMSNormGradOp op, ArrayRef<HostTensor> in,
                              EvalResults &out) {
  NormRows nr = normRows(op, in, 2);
  const HostTensor &x = nr.x, &g = in[1];
  const HostTensor *weight = nr.weight;
  double eps = op.getEps().convertToDouble();
  int64_t n = nr.n, rows = nr.rows;
  HostTensor dx(resultShape(op));
  for (int64_t row = 0; row < rows; ++row) {
    const double *v = x.data.data() + row * n;
    const double *gr = g.data.data() + row * n;
    double ms = 0.0, dot = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      double gw = gr[j] * (weight ? (*weight)[j] : 1.0);
      ms += v[j] * v[j];
      dot += gw * v[j];
    }
    double r = 1.0 / std::sqrt(ms / static_cast<double>(n) + eps);
    double corr = r * r * r * dot / static_cast<double>(n);
    for (int64_t j = 0; j < n; ++j) {
      double gw = gr[j] * (weight ? (*weight)[j] : 1.0);
      dx[row * n + j] = r * gw - v[j] * corr;
    }
  }
  out.push_back(std::move(dx));
  return success();
}

/// Which (query, key) pairs attend, as #gpt.mask defines it
/// (GPTAttrs.td); the document ids come from the tokens operand.
class AttentionMask {
public:
  AttentionMask(MaskAttr mask, const HostTensor *tokens,
                const HostTensor *window, int64_t B, int64_t S)
      : mask(mask), S(S), doc(SmallVector<int64_t, 2>{B, S}) {
    W = window ? asIndex((*window)[0]) : 0;
    if (!mask.hasDocument())
      return;
    // doc[b, t] = number of bos tokens in tokens[b, 0..t].
    double bos = static_cast<double>(mask.getBos());
    for (int64_t b = 0; b < B; ++b) {
      double count = 0.0;
      for (int64_t t = 0; t < S; ++t) {
        count += (*tokens)[b * S + t] == bos ? 1.0 : 0.0;
        doc[b * S + t] = count;
      }
    }
  }

  bool allowed(int64_t b, int64_t i, int64_t j) const {
    constexpr int64_t kBlock = 128;
    if (mask.getCausal() && j > i)
      return false;
    switch (mask.getWindow()) {
    case WindowUnit::none:
      break;
    case WindowUnit::tokens:
      if (!(i - j < W))
        return false;
      break;
    case WindowUnit::blocks:
      if (!(i / kBlock - j / kBlock < W / kBlock))
        return false;
      break;
    case WindowUnit::record_blocks:
      if (!(i - j < W) ||
          !(i / kBlock - j / kBlock < (W + kBlock - 1) / kBlock))
        return false;
      break;
    }
    return !mask.hasDocument() || doc[b * S + i] == doc[b * S + j];
  }

private:
  MaskAttr mask;
  int64_t S, W = 0;
  HostTensor doc;
};

/// The attention probabilities of one (batch, head): p[i * S + j], zero
/// where masked; a query row with no allowed key is all zeros. With `lse`,
/// also each row's log-sum-exp of its allowed scores in lse[i] (-inf for a
/// row without keys).
std::vector<double> probabilities(const AttentionMask &mask, int64_t b,
                                  const double *Q, const double *K, int64_t T,
                                  int64_t S, int64_t D, double scale,
                                  double *lse = nullptr) {
  std::vector<double> p(T * S, 0.0);
  for (int64_t i = 0; i < T; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < S; ++j) {
      if (!mask.allowed(b, i, j))
        continue;
      double s = 0.0;
      for (int64_t d = 0; d < D; ++d)
        s += Q[i * D + d] * K[j * D + d];
      p[i * S + j] = scale * s;
      mx = std::max(mx, scale * s);
    }
    if (lse)
      lse[i] = mx;
    if (mx == -std::numeric_limits<double>::infinity())
      continue;
    double z = 0.0;
    for (int64_t j = 0; j < S; ++j)
      if (mask.allowed(b, i, j))
        z += p[i * S + j] = std::exp(p[i * S + j] - mx);
    for (int64_t j = 0; j < S; ++j)
      p[i * S + j] /= z;
    if (lse)
      lse[i] = mx + std::log(z);
  }
  return p;
}

/// softmax(scale q k^T + mask) v per batch and head, and each row's
/// log-sum-exp; see #gpt.mask (GPTAttrs.td). A query row with no allowed
/// key yields zeros (and an lse of -inf).
LogicalResult evalAttention(AttentionOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  const HostTensor &q = in[0], &k = in[1], &v = in[2];
  unsigned next = 3;
  const HostTensor *tokens = op.getTokens() ? &in[next++] : nullptr;
  const HostTensor *window = op.getWindow() ? &in[next++] : nullptr;
  double scale = op.getScale().convertToDouble();
  int64_t B = q.shape[0], H = q.shape[1], T = q.shape[2], D = q.shape[3];
  int64_t S = k.shape[2]; // key length (equal to T by the op's types)
  AttentionMask mask(op.getMask(), tokens, window, B, S);
  HostTensor r(resultShape(op, 0)), lse(resultShape(op, 1));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      int64_t bh = b * H + h;
      const double *Q = q.data.data() + bh * T * D;
      const double *K = k.data.data() + bh * S * D;
      const double *V = v.data.data() + bh * S * D;
      double *O = r.data.data() + bh * T * D;
      std::vector<double> p = probabilities(mask, b, Q, K, T, S, D, scale,
                                            lse.data.data() + bh * T);
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < S; ++j)
          for (int64_t d = 0; d < D; ++d)
            O[i * D + d] += p[i * S + j] * V[j * D + d];
    }
  out.push_back(std::move(r));
  out.push_back(std::move(lse));
  return success();
}

/// dq, dk, dv of attention from the probabilities, computed afresh (not
/// from the lse operand, so that a wrong lse shows as a difference from
/// the compiled kernels): dv = p^T do, dp = do v^T,
/// ds = p (dp - rowsum(do * o)), dq = scale ds k, dk = scale ds^T q.
LogicalResult evalAttentionGrad(AttentionGradOp op, ArrayRef<HostTensor> in,
                                EvalResults &out) {
  const HostTensor &q = in[0], &k = in[1], &v = in[2], &o = in[3],
                   &dout = in[5];
  unsigned next = 6;
  const HostTensor *tokens = op.getTokens() ? &in[next++] : nullptr;
  const HostTensor *window = op.getWindow() ? &in[next++] : nullptr;
  double scale = op.getScale().convertToDouble();
  int64_t B = q.shape[0], H = q.shape[1], T = q.shape[2], D = q.shape[3];
  int64_t S = k.shape[2];
  AttentionMask mask(op.getMask(), tokens, window, B, S);
  HostTensor dq(resultShape(op, 0)), dk(resultShape(op, 1)),
      dv(resultShape(op, 2));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      int64_t bh = b * H + h;
      const double *Q = q.data.data() + bh * T * D;
      const double *K = k.data.data() + bh * S * D;
      const double *V = v.data.data() + bh * S * D;
      const double *O = o.data.data() + bh * T * D;
      const double *dO = dout.data.data() + bh * T * D;
      double *dQ = dq.data.data() + bh * T * D;
      double *dK = dk.data.data() + bh * S * D;
      double *dV = dv.data.data() + bh * S * D;
      std::vector<double> p = probabilities(mask, b, Q, K, T, S, D, scale);
      for (int64_t i = 0; i < T; ++i) {
        double rowDot = 0.0;
        for (int64_t d = 0; d < D; ++d)
          rowDot += dO[i * D + d] * O[i * D + d];
        for (int64_t j = 0; j < S; ++j) {
          double pij = p[i * S + j];
          if (pij == 0.0)
            continue;
          double dp = 0.0;
          for (int64_t d = 0; d < D; ++d) {
            dp += dO[i * D + d] * V[j * D + d];
            dV[j * D + d] += pij * dO[i * D + d];
          }
          double ds = scale * pij * (dp - rowDot);
          for (int64_t d = 0; d < D; ++d) {
            dQ[i * D + d] += ds * K[j * D + d];
            dK[j * D + d] += ds * Q[i * D + d];
          }
        }
      }
    }
  out.push_back(std::move(dq));
  out.push_back(std::move(dk));
  out.push_back(std::move(dv));
  return success();
}

/// The rows of a cross-entropy: `rows` rows of `n` logits, and per row
/// the max and the sum of exp(logit - max).
struct SoftmaxRows {
  int64_t n = 1, rows = 0;
  std::vector<double> max, sumExp;
};

SoftmaxRows softmaxRows(const HostTensor &logits) {
  SoftmaxRows r;
  r.n = logits.shape.back();
  r.rows = logits.size() / std::max<int64_t>(r.n, 1);
  r.max.assign(r.rows, -std::numeric_limits<double>::infinity());
  r.sumExp.assign(r.rows, 0.0);
  for (int64_t row = 0; row < r.rows; ++row) {
    const double *l = logits.data.data() + row * r.n;
    for (int64_t j = 0; j < r.n; ++j)
      r.max[row] = std::max(r.max[row], l[j]);
    for (int64_t j = 0; j < r.n; ++j)
      r.sumExp[row] += std::exp(l[j] - r.max[row]);
  }
  return r;
}

/// nll = max + log(sum exp(l - max)) - l[target], per row.
LogicalResult evalCrossEntropy(CrossEntropyOp op, ArrayRef<HostTensor> in,
                               EvalResults &out) {
  const HostTensor &logits = in[0], &targets = in[1];
  SoftmaxRows s = softmaxRows(logits);
  if (failed(checkIds(op, targets, s.n, "target")))
    return failure();
  HostTensor nll(resultShape(op));
  for (int64_t row = 0; row < s.rows; ++row)
    nll[row] = s.max[row] + std::log(s.sumExp[row]) -
               logits[row * s.n + asIndex(targets[row])];
  out.push_back(std::move(nll));
  return success();
}

/// dl = g (exp(l - max) / sum - [j == target]), per row.
LogicalResult evalCrossEntropyGrad(CrossEntropyGradOp op,
                                   ArrayRef<HostTensor> in, EvalResults &out) {
  const HostTensor &logits = in[0], &targets = in[1], &grad = in[2];
  SoftmaxRows s = softmaxRows(logits);
  if (failed(checkIds(op, targets, s.n, "target")))
    return failure();
  HostTensor dl(resultShape(op));
  for (int64_t row = 0; row < s.rows; ++row) {
    for (int64_t j = 0; j < s.n; ++j)
      dl[row * s.n + j] = grad[row] *
                          std::exp(logits[row * s.n + j] - s.max[row]) /
                          s.sumExp[row];
    dl[row * s.n + asIndex(targets[row])] -= grad[row];
  }
  out.push_back(std::move(dl));
  return success();
}

/// x [..., D] in halves x1, x2; c, s [..., D/2] broadcast (size-1 dims):
/// y1 = x1 c + x2 s, y2 = x2 c - x1 s; inverse: y1 = x1 c - x2 s,
/// y2 = x2 c + x1 s.
LogicalResult evalRotary(RotaryOp op, ArrayRef<HostTensor> in,
                         EvalResults &out) {
  const HostTensor &x = in[0], &c = in[1], &s = in[2];
  const int64_t rank = x.rank(), half = x.shape.back() / 2;
  const bool inverse = op.getInverse();
  HostTensor y(x.shape);
  SmallVector<int64_t, 4> index(size_t(rank), 0), at(size_t(rank), 0);
  for (int64_t row = 0, rows = x.size() / x.shape.back(); row < rows; ++row) {
    // The row's index (all but the last dimension), and the tables' row.
    for (int64_t i = rank - 2, r = row; i >= 0; --i) {
      index[size_t(i)] = r % x.shape[size_t(i)];
      r /= x.shape[size_t(i)];
      at[size_t(i)] = c.shape[size_t(i)] == 1 ? 0 : index[size_t(i)];
    }
    const double *xr = x.data.data() + row * 2 * half;
    double *yr = y.data.data() + row * 2 * half;
    for (int64_t j = 0; j < half; ++j) {
      at[size_t(rank - 1)] = j;
      double cv = c.data[size_t(c.offset(at))],
             sv = s.data[size_t(s.offset(at))];
      double x1 = xr[j], x2 = xr[j + half];
      yr[j] = inverse ? x1 * cv - x2 * sv : x1 * cv + x2 * sv;
      yr[j + half] = inverse ? x2 * cv + x1 * sv : x2 * cv - x1 * sv;
    }
  }
  out.push_back(std::move(y));
  return success();
}

} // namespace

void attachFusedModels(MLIRContext *ctx) {
  attach<RotaryOp, evalRotary>(ctx);
  attach<RMSNormOp, evalRMSNorm>(ctx);
  attach<RMSNormGradOp, evalRMSNormGrad>(ctx);
  attach<AttentionOp, evalAttention>(ctx);
  attach<AttentionGradOp, evalAttentionGrad>(ctx);
  attach<CrossEntropyOp, evalCrossEntropy>(ctx);
  attach<CrossEntropyGradOp, evalCrossEntropyGrad>(ctx);
}

} // namespace gptc::ref::detail
