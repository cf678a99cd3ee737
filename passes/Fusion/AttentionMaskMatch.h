//===- AttentionMaskMatch.h - Recognise attention masks ---------*- C++ -*-===//
//
// gptc-fuse-attention's view of a mask: the i1 [B|1, 1, T, T] tensor of
// allowed (query, key) pairs as the frontend builds it, read back as a
// #gpt.mask with its run-time operands.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_FUSION_ATTENTIONMASKMATCH_H
#define GPTC_PASSES_FUSION_ATTENTIONMASKMATCH_H

#include "dialects/GPT/GPTDialect.h"

namespace gptc::fusion {

struct MaskMatch {
  mlir::gpt::MaskAttr mask;
  mlir::Value tokens; ///< [B, T] input tokens (document mask)
  mlir::Value window; ///< 0-d i64 window in tokens (sliding window)
};

/// Reads `allowed` (null: no mask) as a conjunction of
///   causal:   compare le (iota 3, iota 2)
///   window:   compare lt (iota 2 - iota 3, W)               (tokens)
///             compare lt (iota 2 / 128 - iota 3 / 128, W / 128) (blocks)
///   document: compare eq (doc as [B,1,T,1], doc as [B,1,1,T]) with
///             doc = cumsum(cast(compare eq (tokens, bos)), 1)
/// joined by select(a, b, false) and seen through broadcasts. Fails on
/// anything else, or on a kind that appears twice.
mlir::FailureOr<MaskMatch> matchAttentionMask(mlir::Value allowed,
                                              mlir::MLIRContext *ctx);

} // namespace gptc::fusion

#endif // GPTC_PASSES_FUSION_ATTENTIONMASKMATCH_H
