//===- Parameters.h - The trainable parameters a spec implies ---*- C++ -*-===//
//
// The parameter list is a pure function of the ModelSpec: names, shapes,
// initialisation rules and the optimizer group each parameter belongs to.
// MLIRGen uses the same list (in the same order) for the forward function's
// arguments; the runtime manifest will be written from it.
//
// Names:
//   wte                          (padded_vocab, d)
//   lm_head                      (padded_vocab, d)       untied only
//   value_embeds.{j}             (padded_vocab, d)       value embeddings
//   blocks.{i}.attn.qkv          (3 d, d)                fused QKV
//   blocks.{i}.attn.{q,k,v}      (d, d)                  separate QKV
//   blocks.{i}.attn.proj         (d, d)
//   blocks.{i}.mlp.fc            (ratio d, d)
//   blocks.{i}.mlp.proj          (d, ratio d)
//   blocks.{i}.lambdas           (2)                     shortcut_x0
//   blocks.{i}.attn.value_lambdas (2)                    value mixing
//   skip_weights                 (n_layer / 2)           unet_skips
//
// Linear weights are stored (out, in) as in PyTorch: y = x W^T.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_PARAMETERS_H
#define GPTC_FRONTEND_PARAMETERS_H

#include "ModelSpec.h"

#include <optional>
#include <string>
#include <vector>

namespace gptc {

/// Values: element k is initValues[k] (the small learned mixing vectors,
/// e.g. blocks.{i}.lambdas = [1, 0]).
enum class InitRule { Normal, Zero, Ones, Constant, Values };

struct ParameterInfo {
  std::string name;
  std::vector<int64_t> shape;
  InitRule init = InitRule::Normal;
  double initValue = 0.0;         ///< std for Normal, the value for Constant
  std::vector<double> initValues; ///< the elements, for Values
  int group = -1;                 ///< index into ModelSpec::groups
};

struct SpecError;

/// Lists the parameters of `spec` in a fixed order (embeddings, blocks in
/// order, then scalars and head). Groups are not assigned.
std::vector<ParameterInfo> enumerateParameters(const ModelSpec &spec);

/// Glob match with `*` (any run of characters, including dots).
bool globMatch(const std::string &pattern, const std::string &name);

/// Assigns each parameter to the one group whose patterns match it.
/// Returns an error message naming the spec location when a parameter matches
/// no group or more than one, a group matches no parameter, or a Muon group
/// holds anything but a 2-D matrix of the blocks; empty on success.
std::string assignGroups(const ModelSpec &spec,
                         std::vector<ParameterInfo> &params);

/// Same, reporting the failure as a SpecError (see SpecParser.h) whose key
/// and location name the group (or `optimizer.groups`) at fault.
bool assignGroups(const ModelSpec &spec, std::vector<ParameterInfo> &params,
                  SpecError &error);

/// Number of value-embedding tables and, for each layer, the table it reads
/// (-1 = none).
int valueEmbeddingTables(const ModelShape &m);
std::vector<int> valueEmbeddingLayout(const ModelShape &m);

/// Window size (tokens) of layer `layer` at `step` of training.steps:
///   long  = max(g, round_g(start + (end - start) * step / steps))
///   short = max(g, floor_g(long / 2))
/// with g = window_granularity and round_g the window_rounding (floor or
/// ceil to a multiple of g), computed exactly in integers. Without a window
/// (window_unit none) it is training.seq_len.
int64_t windowTokens(const ModelSpec &spec, int64_t step, int64_t layer);

} // namespace gptc

#endif // GPTC_FRONTEND_PARAMETERS_H
