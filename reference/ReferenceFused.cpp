//===- ReferenceFused.cpp - Reference semantics: rms_norm, attention ------===//

#include "reference/ReferenceModels.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::ref::detail {
namespace {

/// x' = input (+ residual); y = x' / sqrt(mean(x'^2, -1) + eps) (* weight).
LogicalResult evalRMSNorm(RMSNormOp op, ArrayRef<HostTensor> in,
                          EvalResults &out) {
  unsigned next = 1;
  const HostTensor *residual = op.getResidual() ? &in[next++] : nullptr;
  const HostTensor *weight = op.getWeight() ? &in[next++] : nullptr;
  HostTensor x = in[0];
  if (residual)
    for (int64_t i = 0, e = x.size(); i < e; ++i)
      x[i] += (*residual)[i];
  double eps = op.getEps().convertToDouble();
  int64_t n = x.shape.empty() ? 1 : x.shape.back();
  int64_t rows = x.size() / std::max<int64_t>(n, 1);
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

/// softmax(scale q k^T + mask) v per batch and head; see #gpt.mask
/// (GPTAttrs.td). A query row with no allowed key yields zeros.
LogicalResult evalAttention(AttentionOp op, ArrayRef<HostTensor> in,
                            EvalResults &out) {
  const HostTensor &q = in[0], &k = in[1], &v = in[2];
  unsigned next = 3;
  const HostTensor *tokens = op.getTokens() ? &in[next++] : nullptr;
  const HostTensor *window = op.getWindow() ? &in[next++] : nullptr;
  MaskAttr mask = op.getMask();
  double scale = op.getScale().convertToDouble();
  int64_t B = q.shape[0], H = q.shape[1], T = q.shape[2], D = q.shape[3];
  int64_t S = k.shape[2]; // key length (equal to T by the op's types)
  int64_t W = window ? asIndex((*window)[0]) : 0;
  constexpr int64_t kBlock = 128;

  // Document ids: doc[b, t] = number of bos tokens in tokens[b, 0..t].
  SmallVector<int64_t, 2> docShape = {B, S};
  HostTensor doc(docShape);
  if (mask.hasDocument()) {
    double bos = static_cast<double>(mask.getBos());
    for (int64_t b = 0; b < B; ++b) {
      double count = 0.0;
      for (int64_t t = 0; t < S; ++t) {
        count += (*tokens)[b * S + t] == bos ? 1.0 : 0.0;
        doc[b * S + t] = count;
      }
    }
  }
  auto allowed = [&](int64_t b, int64_t i, int64_t j) {
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
    }
    if (mask.hasDocument() && doc[b * S + i] != doc[b * S + j])
      return false;
    return true;
  };

  HostTensor r(resultShape(op));
  std::vector<double> scores(S);
  std::vector<char> ok(S);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const double *Q = q.data.data() + (b * H + h) * T * D;
      const double *K = k.data.data() + (b * H + h) * S * D;
      const double *V = v.data.data() + (b * H + h) * S * D;
      double *O = r.data.data() + (b * H + h) * T * D;
      for (int64_t i = 0; i < T; ++i) {
        double mx = -std::numeric_limits<double>::infinity();
        bool any = false;
        for (int64_t j = 0; j < S; ++j) {
          ok[j] = allowed(b, i, j);
          if (!ok[j])
            continue;
          double s = 0.0;
          for (int64_t d = 0; d < D; ++d)
            s += Q[i * D + d] * K[j * D + d];
          scores[j] = scale * s;
          mx = std::max(mx, scores[j]);
          any = true;
        }
        if (!any)
          continue; // row stays zero
        double z = 0.0;
        for (int64_t j = 0; j < S; ++j)
          if (ok[j]) {
            scores[j] = std::exp(scores[j] - mx);
            z += scores[j];
          }
        for (int64_t j = 0; j < S; ++j)
          if (ok[j]) {
            double p = scores[j] / z;
            for (int64_t d = 0; d < D; ++d)
              O[i * D + d] += p * V[j * D + d];
          }
      }
    }
  out.push_back(std::move(r));
  return success();
}

} // namespace

void attachFusedModels(MLIRContext *ctx) {
  attach<RMSNormOp, evalRMSNorm>(ctx);
  attach<AttentionOp, evalAttention>(ctx);
}

} // namespace gptc::ref::detail
