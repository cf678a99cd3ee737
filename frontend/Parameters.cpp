//===- Parameters.cpp - The trainable parameters a spec implies -----------===//
//
// Implements Parameters.h: the parameter list (names, shapes, init rules),
// glob matching, optimizer-group assignment, the value-embedding layout and
// the sliding-window schedule.
//
//===----------------------------------------------------------------------===//

#include "frontend/Parameters.h"
#include "frontend/SpecParser.h"

#include <algorithm>

namespace gptc {

namespace {

/// Builds one ParameterInfo.
ParameterInfo makeParameter(std::string name, std::vector<int64_t> shape,
                            InitRule init, double initValue = 0.0) {
  ParameterInfo p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  p.init = init;
  p.initValue = initValue;
  return p;
}

/// A small vector initialised element by element.
ParameterInfo makeVector(std::string name, std::vector<double> values) {
  ParameterInfo p;
  p.name = std::move(name);
  p.shape = {static_cast<int64_t>(values.size())};
  p.init = InitRule::Values;
  p.initValues = std::move(values);
  return p;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

/// Floor division for a non-negative numerator and a positive divisor.
int64_t floorDiv(int64_t num, int64_t den) { return num / den; }
int64_t ceilDiv(int64_t num, int64_t den) { return (num + den - 1) / den; }

} // namespace

std::vector<ParameterInfo> enumerateParameters(const ModelSpec &spec) {
  const ModelShape &m = spec.model;
  const int64_t d = m.dModel;
  const int64_t vocab = m.paddedVocab();
  std::vector<ParameterInfo> params;

  // Embeddings.
  const double embedStd =
      m.embeddingInitStd > 0 ? m.embeddingInitStd : m.initStd;
  params.push_back(
      makeParameter("wte", {vocab, d}, InitRule::Normal, embedStd));
  for (int j = 0, e = valueEmbeddingTables(m); j < e; ++j)
    params.push_back(makeParameter("value_embeds." + std::to_string(j),
                                   {vocab, d}, InitRule::Normal, embedStd));

  // Blocks, in order.
  const InitRule outInit =
      m.outProjZeroInit ? InitRule::Zero : InitRule::Normal;
  const bool valueMixing =
      m.valueResidual || m.valueEmbeddings != ValueEmbeddings::None;
  for (int64_t i = 0; i < m.nLayer; ++i) {
    const std::string block = "blocks." + std::to_string(i) + ".";
    if (m.attention.qkv == QKVLayout::Fused) {
      params.push_back(makeParameter(block + "attn.qkv", {3 * d, d},
                                     InitRule::Normal, m.initStd));
    } else {
      for (const char *proj : {"q", "k", "v"})
        params.push_back(makeParameter(block + "attn." + proj, {d, d},
                                       InitRule::Normal, m.initStd));
    }
    params.push_back(
        makeParameter(block + "attn.proj", {d, d}, outInit, m.initStd));
    params.push_back(makeParameter(block + "mlp.fc", {m.mlpHidden(), d},
                                   InitRule::Normal, m.initStd));
    params.push_back(makeParameter(block + "mlp.proj", {d, m.mlpHidden()},
                                   outInit, m.initStd));
    if (m.shortcutX0)
      params.push_back(makeVector(block + "lambdas", {1.0, 0.0}));
    if (valueMixing)
      params.push_back(makeVector(block + "attn.value_lambdas", {0.5, 0.5}));
  }

  // Scalars, then the head.
  if (m.unetSkips)
    params.push_back(
        makeParameter("skip_weights", {m.nLayer / 2}, InitRule::Ones, 1.0));
  if (!m.tiedEmbedding)
    params.push_back(makeParameter(
        "lm_head", {vocab, d},
        m.lmHeadZeroInit ? InitRule::Zero : InitRule::Normal, m.initStd));
  return params;
}

bool globMatch(const std::string &pattern, const std::string &name) {
  // Iterative wildcard matching with backtracking to the last `*`.
  size_t p = 0, n = 0;
  size_t starP = std::string::npos, starN = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      starP = p++;
      starN = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (starP != std::string::npos) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

bool assignGroups(const ModelSpec &spec, std::vector<ParameterInfo> &params,
                  SpecError &error) {
  auto fail = [&](const std::string &key, const std::string &message) {
    error.loc = spec.locOf(key);
    error.key = key;
    error.message = message;
    return false;
  };
  auto matches = [](const OptimizerGroup &group, const std::string &name) {
    return std::any_of(
        group.params.begin(), group.params.end(),
        [&](const std::string &pattern) { return globMatch(pattern, name); });
  };

  std::vector<bool> groupUsed(spec.groups.size(), false);
  for (ParameterInfo &param : params) {
    param.group = -1;
    for (size_t g = 0; g < spec.groups.size(); ++g) {
      const OptimizerGroup &group = spec.groups[g];
      if (!matches(group, param.name))
        continue;
      const std::string paramsKey =
          "optimizer.groups." + group.name + ".params";
      if (param.group >= 0)
        return fail(paramsKey, "parameter '" + param.name +
                                   "' matches both group '" +
                                   spec.groups[param.group].name +
                                   "' and group '" + group.name +
                                   "'; each parameter needs exactly one group");
      if (group.kind == OptimizerKind::Muon) {
        if (param.shape.size() != 2)
          return fail(paramsKey, "muon group '" + group.name + "' matches '" +
                                     param.name + "' of shape " +
                                     shapeString(param.shape) +
                                     "; muon takes 2-D matrices only");
        if (param.name.rfind("blocks.", 0) != 0)
          return fail(paramsKey,
                      "muon group '" + group.name + "' matches '" + param.name +
                          "'; muon takes the hidden matrices of the blocks "
                          "only (embeddings and the head go to adam)");
      }
      param.group = static_cast<int>(g);
      groupUsed[g] = true;
    }
    if (param.group < 0)
      return fail("optimizer.groups",
                  "parameter '" + param.name + "' of shape " +
                      shapeString(param.shape) + " matches no optimizer group");
  }
  for (size_t g = 0; g < spec.groups.size(); ++g)
    if (!groupUsed[g])
      return fail("optimizer.groups." + spec.groups[g].name + ".params",
                  "group '" + spec.groups[g].name +
                      "' matches no parameter of this model");
  return true;
}

std::string assignGroups(const ModelSpec &spec,
                         std::vector<ParameterInfo> &params) {
  SpecError error;
  if (assignGroups(spec, params, error))
    return "";
  return error.str();
}

int valueEmbeddingTables(const ModelShape &m) {
  switch (m.valueEmbeddings) {
  case ValueEmbeddings::None:
    return 0;
  case ValueEmbeddings::Mirrored:
    return static_cast<int>(std::max<int64_t>(m.nLayer / 2, 0));
  case ValueEmbeddings::Ends:
    return 3;
  }
  return 0;
}

std::vector<int> valueEmbeddingLayout(const ModelShape &m) {
  const int64_t n = std::max<int64_t>(m.nLayer, 0);
  std::vector<int> layout(n, -1);
  switch (m.valueEmbeddings) {
  case ValueEmbeddings::None:
    break;
  case ValueEmbeddings::Mirrored: {
    // Encoder layer i reads table i; decoder layer n/2 + i reads n/2-1-i.
    const int64_t half = n / 2;
    for (int64_t i = 0; i < half; ++i) {
      layout[i] = static_cast<int>(i);
      layout[half + i] = static_cast<int>(half - 1 - i);
    }
    break;
  }
  case ValueEmbeddings::Ends:
    // [0, 1, 2, -1 x (n - 6), 0, 1, 2]; the spec validator demands n >= 6.
    for (int64_t i = 0; i < 3 && i < n; ++i) {
      layout[i] = static_cast<int>(i);
      if (n - 3 + i >= 3)
        layout[n - 3 + i] = static_cast<int>(i);
    }
    break;
  }
  return layout;
}

int64_t windowTokens(const ModelSpec &spec, int64_t step, int64_t layer) {
  const AttentionSpec &a = spec.model.attention;
  if (a.windowUnit == WindowUnit::None)
    return spec.training.seqLen;
  const int64_t g = std::max<int64_t>(a.windowGranularity, 1);
  const int64_t steps = std::max<int64_t>(spec.training.steps, 1);
  step = std::clamp<int64_t>(step, 0, steps);

  // raw = start + (end - start) * step / steps = num / steps, exactly.
  const int64_t num =
      a.windowStart * steps + (a.windowEnd - a.windowStart) * step;
  int64_t window = 0;
  if (num > 0)
    window = a.windowRounding == Rounding::Floor ? floorDiv(num, steps * g) * g
                                                 : ceilDiv(num, steps * g) * g;
  window = std::max(window, g);

  const bool isShort = layer >= 0 &&
                       layer < static_cast<int64_t>(a.layerWindows.size()) &&
                       a.layerWindows[layer] == LayerWindow::Short;
  if (isShort)
    window = std::max(window / 2 / g * g, g);
  return window;
}

} // namespace gptc
