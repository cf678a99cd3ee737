//===- MLIRGen.cpp - ModelSpec -> gpt forward graph -----------------------===//
//
// The forward pass of the speedrun family (REFERENCE.md §1-2), one method
// per part of the model. Optional features switch on the spec; parameters
// are looked up by their Parameters.h names, so the graph and the parameter
// list cannot disagree about which parameters exist.
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGen.h"

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GraphBuilder.h"
#include "dialects/Optim/OptimDialect.h"
#include "frontend/Parameters.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc {
namespace {

/// Machine epsilon of the training dtype (torch.finfo(dtype).eps).
double machineEpsilon(DType t) {
  switch (t) {
  case DType::BF16:
    return 0.0078125;
  case DType::F32:
    return std::numeric_limits<float>::epsilon();
  case DType::F64:
    return std::numeric_limits<double>::epsilon();
  }
  return std::numeric_limits<float>::epsilon();
}

class ForwardGen {
public:
  ForwardGen(MLIRContext &ctx, const ModelSpec &spec)
      : ctx(ctx), spec(spec), m(spec.model), builder(&ctx),
        g(builder, computeType(ctx, spec), matmulType(ctx, spec)) {}

  OwningOpRef<ModuleOp> run();

private:
  /// @forward (the loss of tokens and targets) or @logits (the logits at
  /// sample_pos of each row of tokens, for sampling).
  enum class Entry { Loss, Logits };
  void buildFunction(ModuleOp module, Entry entry);
  static Type computeType(MLIRContext &ctx, const ModelSpec &spec) {
    return spec.training.dtype == DType::F64 ? Type(Float64Type::get(&ctx))
                                             : Type(Float32Type::get(&ctx));
  }
  static Type matmulType(MLIRContext &ctx, const ModelSpec &spec) {
    if (spec.training.dtype == DType::BF16)
      return BFloat16Type::get(&ctx);
    return computeType(ctx, spec);
  }

  /// Sets the location of the ops built next: the YAML node of `key`,
  /// named after the part of the model (`name`).
  void at(const std::string &key, const std::string &name) {
    SourceLoc l = spec.locOf(key);
    Location file = FileLineColLoc::get(&ctx, l.file, l.line, l.col);
    g.setLoc(NameLoc::get(StringAttr::get(&ctx, name), file));
  }
  Value param(const std::string &name) const {
    auto it = params.find(name);
    return it == params.end() ? Value() : it->second;
  }
  double normEps() const {
    return m.normEpsFromDtype ? machineEpsilon(spec.training.dtype) : m.normEps;
  }
  Value norm(Value x) { return g.rmsNorm(x, normEps()); }

  Value embed(const std::string &table, const std::string &name);
  void buildRotaryTables();
  Value rotary(Value x);
  Value attentionMask(int64_t layer);
  Value attention(Value x, int64_t layer, Value &v1);
  Value mlp(Value x, int64_t layer);
  Value block(Value x, Value x0, int64_t layer, Value &v1);
  Value logits(Value x);
  Value windowSchedule(Value step, Value totalSteps);

  MLIRContext &ctx;
  const ModelSpec &spec;
  const ModelShape &m;
  OpBuilder builder;
  GraphBuilder g;
  std::map<std::string, Value> params;
  std::vector<int> veLayout;
  std::vector<Value> valueEmbeds; ///< per table, [B, T, d]
  Value tokens, targets, window, samplePos;
  Value rotCos, rotSin; ///< [1, T, 1, head_dim/2]
  int64_t B = 0, T = 0;
};

Value ForwardGen::embed(const std::string &table, const std::string &name) {
  Value w = param(table);
  auto wt = GraphBuilder::typeOf(w);
  auto type = g.tensor({B, T, wt.getDimSize(1)});
  at("model.vocab_size", name);
  return EmbeddingOp::create(builder, g.getLoc(), type, w, tokens);
}

/// cos/sin of position * frequency, REFERENCE §1 "Rotary".
void ForwardGen::buildRotaryTables() {
  const AttentionSpec &a = m.attention;
  int64_t half = m.headDim / 2;
  std::vector<float> freq(half, 0.0f);
  if (a.rotary == Rotary::Standard) {
    for (int64_t j = 0; j < half; ++j)
      freq[j] = static_cast<float>(
          1.0 / std::pow(a.rotaryBase, (2.0 * j) / m.headDim));
  } else {
    // (1/1024)^linspace(0, 1, d/4) followed by d/4 zeros.
    int64_t quarter = m.headDim / 4;
    for (int64_t j = 0; j < quarter; ++j) {
      double t = quarter == 1 ? 0.0 : double(j) / double(quarter - 1);
      freq[j] = static_cast<float>(std::pow(1.0 / 1024.0, t));
    }
  }
  at("model.attention.rotary", "rotary");
  Value pos = g.iota({T, half}, 0, g.computeType());
  Value f =
      g.broadcastTo(g.reshape(g.constantVector(freq), {1, half}), {T, half});
  Value angle = g.mul(pos, f);
  rotCos =
      g.reshape(CosOp::create(builder, g.getLoc(), angle), {1, T, 1, half});
  rotSin =
      g.reshape(SinOp::create(builder, g.getLoc(), angle), {1, T, 1, half});
}

/// x: [B, T, H, D]; y1 = x1 cos + x2 sin, y2 = -x1 sin + x2 cos.
Value ForwardGen::rotary(Value x) {
  at("model.attention.rotary", "rotary");
  int64_t half = m.headDim / 2;
  SmallVector<int64_t> halfShape = {B, T, m.nHead, half};
  Value x1 = g.slice(x, {0, 0, 0, 0}, halfShape);
  Value x2 = g.slice(x, {0, 0, 0, half}, halfShape);
  Value c = g.broadcastTo(rotCos, halfShape);
  Value s = g.broadcastTo(rotSin, halfShape);
  Value y1 = g.add(g.mul(x1, c), g.mul(x2, s));
  Value y2 = g.sub(g.mul(x2, c), g.mul(x1, s));
  return g.concat({y1, y2}, 3);
}

/// The allowed (query, key) pairs as an i1 tensor [B or 1, 1, T, T].
Value ForwardGen::attentionMask(int64_t layer) {
  const AttentionSpec &a = m.attention;
  Type i64 = builder.getI64Type();
  at("model.attention.causal", "mask");
  Value qpos = g.iota({1, 1, T, T}, 2, i64);
  Value kpos = g.iota({1, 1, T, T}, 3, i64);
  Value allowed;
  if (a.causal)
    allowed = g.compare(CompareKind::le, kpos, qpos);
  if (a.windowUnit != WindowUnit::None) {
    at("model.attention.window_unit", "mask.window");
    Value w = window;
    if (!a.layerWindows.empty() &&
        a.layerWindows[layer % a.layerWindows.size()] == LayerWindow::Short) {
      // Short windows are half the long one, at least one granule.
      Value half = g.div(w, g.splat({}, i64, 2));
      w = MaxOp::create(builder, g.getLoc(), half,
                        g.splat({}, i64,
                                static_cast<double>(std::max<int64_t>(
                                    a.windowGranularity, 1))));
    }
    auto within = [&](Value dist, Value bound) {
      Value wb = g.broadcastTo(g.reshape(bound, {1, 1, 1, 1}), {1, 1, T, T});
      Value inWindow = g.compare(CompareKind::lt, dist, wb);
      allowed = allowed ? g.logicalAnd(allowed, inWindow) : inWindow;
    };
    // Element granularity: q - kv < window.
    if (a.windowUnit != WindowUnit::Blocks)
      within(g.sub(qpos, kpos), w);
    if (a.windowUnit != WindowUnit::Tokens) {
      // Block granularity: q_block - kv_block < window / 128 (blocks), or
      // < ceil(window / 128) around the element mask (record_blocks).
      Value blk = g.splat({1, 1, T, T}, i64, 128);
      Value blocks = a.windowUnit == WindowUnit::Blocks
                         ? w
                         : g.add(w, g.splat({}, i64, 127));
      within(g.sub(g.div(qpos, blk), g.div(kpos, blk)),
             g.div(blocks, g.splat({}, i64, 128)));
    }
  }
  if (a.documentMask) {
    at("model.attention.document_mask", "mask.document");
    Type i32 = builder.getI32Type();
    Value bos = g.splat({B, T}, i32, static_cast<double>(a.bosToken));
    Value isBos = g.cast(g.compare(CompareKind::eq, tokens, bos), i32);
    Value doc = CumsumOp::create(builder, g.getLoc(), isBos, 1);
    Value dq = g.broadcastTo(g.reshape(doc, {B, 1, T, 1}), {B, 1, T, T});
    Value dk = g.broadcastTo(g.reshape(doc, {B, 1, 1, T}), {B, 1, T, T});
    Value same = g.compare(CompareKind::eq, dq, dk);
    if (allowed)
      allowed = g.broadcastTo(allowed, {B, 1, T, T});
    allowed = allowed ? g.logicalAnd(allowed, same) : same;
  }
  return allowed;
}

Value ForwardGen::attention(Value x, int64_t layer, Value &v1) {
  const AttentionSpec &a = m.attention;
  std::string prefix = "blocks." + std::to_string(layer) + ".attn";
  at("model.attention", prefix);
  int64_t H = m.nHead, D = m.headDim, d = m.dModel;
  Value q, k, v;
  if (a.qkv == QKVLayout::Fused) {
    auto parts = g.split(g.linear(x, param(prefix + ".qkv")), 2, 3);
    q = parts[0], k = parts[1], v = parts[2];
  } else {
    q = g.linear(x, param(prefix + ".q"));
    k = g.linear(x, param(prefix + ".k"));
    v = g.linear(x, param(prefix + ".v"));
  }
  SmallVector<int64_t> heads = {B, T, H, D};
  q = g.reshape(q, heads), k = g.reshape(k, heads), v = g.reshape(v, heads);

  // Value mixing: value embeddings (R14+) or the value residual (R9).
  if (Value lambdas = param(prefix + ".value_lambdas")) {
    at("model.value_embeddings", prefix + ".value_mix");
    Value mixed = g.mulByScalar(v, g.scalarOf(lambdas, 0, 4));
    Value other;
    if (!veLayout.empty() && veLayout[layer] >= 0)
      other = g.reshape(valueEmbeds[veLayout[layer]], heads);
    else if (m.valueResidual && v1)
      other = v1;
    if (other)
      mixed = g.add(mixed, g.mulByScalar(other, g.scalarOf(lambdas, 1, 4)));
    v = mixed;
  }
  if (m.valueResidual && !v1)
    v1 = v;

  if (a.qkNorm == QKNorm::BeforeRotary) {
    at("model.attention.qk_norm", prefix + ".qk_norm");
    q = norm(q), k = norm(k);
  }
  q = rotary(q), k = rotary(k);
  if (a.qkNorm == QKNorm::AfterRotary) {
    at("model.attention.qk_norm", prefix + ".qk_norm");
    q = norm(q), k = norm(k);
  }

  at("model.attention", prefix + ".sdpa");
  SmallVector<int64_t> toHeads = {0, 2, 1, 3};
  q = g.transpose(q, toHeads), k = g.transpose(k, toHeads);
  v = g.transpose(v, toHeads);
  double scale = a.scale > 0 ? a.scale : 1.0 / std::sqrt(double(D));
  Value scores = g.scale(g.matmul(q, k, false, true), scale);
  if (Value allowed = attentionMask(layer)) {
    at("model.attention", prefix + ".sdpa");
    allowed = g.broadcastTo(allowed, {B, H, T, T});
    Value ninf = g.splat({B, H, T, T}, g.computeType(),
                         -std::numeric_limits<double>::infinity());
    scores = SelectOp::create(builder, g.getLoc(), allowed, scores, ninf);
  }
  at("model.attention", prefix + ".sdpa");
  Value y = g.matmul(g.softmax(scores), v, false, false);
  y = g.reshape(g.transpose(y, toHeads), {B, T, d});
  at("model.attention", prefix + ".proj");
  return g.linear(y, param(prefix + ".proj"));
}

Value ForwardGen::mlp(Value x, int64_t layer) {
  std::string prefix = "blocks." + std::to_string(layer) + ".mlp";
  at("model.activation", prefix);
  Value h = g.linear(x, param(prefix + ".fc"));
  if (m.activation == Activation::ReLU2)
    h = SquareOp::create(builder, g.getLoc(),
                         ReluOp::create(builder, g.getLoc(), h));
  else
    h = GeluOp::create(builder, g.getLoc(), h);
  return g.linear(h, param(prefix + ".proj"));
}

Value ForwardGen::block(Value x, Value x0, int64_t layer, Value &v1) {
  std::string prefix = "blocks." + std::to_string(layer);
  if (Value lambdas = param(prefix + ".lambdas")) {
    at("model.shortcut_x0", prefix + ".shortcut");
    x = g.add(g.mulByScalar(x, g.scalarOf(lambdas, 0, 3)),
              g.mulByScalar(x0, g.scalarOf(lambdas, 1, 3)));
  }
  at("model.norm_eps", prefix + ".attn_norm");
  Value a = attention(norm(x), layer, v1);
  if (m.attnBranchScale) {
    at("model.attn_branch_scale", prefix + ".attn_scale");
    a = g.scale(a, 1.0 / std::sqrt(2.0 * m.nLayer));
  }
  at("model", prefix + ".residual");
  x = g.add(x, a);
  at("model.norm_eps", prefix + ".mlp_norm");
  Value h = mlp(norm(x), layer);
  at("model", prefix + ".residual");
  return g.add(x, h);
}

Value ForwardGen::logits(Value x) {
  at("model.norm_eps", "final_norm");
  x = norm(x);
  bool tied = m.tiedEmbedding;
  at(tied ? "model.tied_embedding" : "model.vocab_size", "lm_head");
  Value z = g.linear(x, param(tied ? "wte" : "lm_head"));
  double c = m.softcapValue;
  switch (m.softcap) {
  case Softcap::None:
    return z;
  case Softcap::Tanh:
    at("model.logit_softcap", "softcap");
    return g.scale(TanhOp::create(builder, g.getLoc(), g.scale(z, 1.0 / c)), c);
  case Softcap::Sigmoid:
    at("model.logit_softcap", "softcap");
    return g.scale(SigmoidOp::create(builder, g.getLoc(),
                                     g.scale(z, 1.0 / m.softcapScale)),
                   c);
  }
  return z;
}

/// The attention window (tokens) of optimizer step `step`: it grows from
/// window_start to window_end over the run's `totalSteps` (REFERENCE
/// §window; training.steps unless gptc train --steps says otherwise).
Value ForwardGen::windowSchedule(Value step, Value totalSteps) {
  const AttentionSpec &a = m.attention;
  at("model.attention.window_start", "window_schedule");
  auto rounding = a.windowRounding == Rounding::Floor ? optim::Rounding::floor
                                                      : optim::Rounding::ceil;
  return optim::WindowScheduleOp::create(
      builder, g.getLoc(), step.getType(), step, totalSteps,
      builder.getI64IntegerAttr(a.windowStart),
      builder.getI64IntegerAttr(a.windowEnd),
      builder.getI64IntegerAttr(std::max<int64_t>(a.windowGranularity, 1)),
      optim::RoundingAttr::get(&ctx, rounding));
}

OwningOpRef<ModuleOp> ForwardGen::run() {
  ctx.loadDialect<GPTDialect, optim::OptimDialect, func::FuncDialect>();
  B = spec.training.deviceBatch;
  T = spec.training.seqLen;
  at("", "module");
  OwningOpRef<ModuleOp> module = ModuleOp::create(g.getLoc());
  module->getOperation()->setAttr("gpt.spec", builder.getStringAttr(spec.name));
  // The step's shape, for a dump continued by gptc-opt
  // (passes/Step/TrainingShape.h).
  module->getOperation()->setAttr(
      "gpt.ranks", builder.getI64IntegerAttr(spec.training.ranks));
  module->getOperation()->setAttr(
      "gpt.grad_accum", builder.getI64IntegerAttr(spec.training.gradAccum()));
  buildFunction(*module, Entry::Loss);
  buildFunction(*module, Entry::Logits);
  return module;
}

void ForwardGen::buildFunction(ModuleOp module, Entry entry) {
  const bool loss = entry == Entry::Loss;
  params.clear();
  valueEmbeds.clear();
  tokens = targets = window = samplePos = Value();
  at("", "module");

  // Arguments: inputs, then parameters in Parameters.h order.
  std::vector<ParameterInfo> infos = enumerateParameters(spec);
  Type i32 = builder.getI32Type();
  SmallVector<Type> argTypes = {g.tensor({B, T}, i32)};
  SmallVector<std::string> argNames = {"tokens"};
  if (loss) {
    argTypes.push_back(g.tensor({B, T}, i32));
    argNames.push_back("targets");
  } else {
    // Where in each row the logits are wanted (the last prompt token).
    argTypes.push_back(g.tensor({B}, i32));
    argNames.push_back("sample_pos");
  }
  // A windowed model reads the optimizer step and the run's length: its
  // window schedule is part of the compiled step (optim.window_schedule),
  // not the runtime's.
  bool windowed = m.attention.windowUnit != WindowUnit::None;
  if (windowed)
    for (const char *name : {"step", "total_steps"}) {
      argTypes.push_back(g.tensor({}, builder.getI64Type()));
      argNames.push_back(name);
    }
  size_t firstParam = argTypes.size();
  for (const ParameterInfo &p : infos) {
    argTypes.push_back(g.tensor(p.shape));
    argNames.push_back(p.name);
  }
  int64_t paddedVocab = 0;
  for (const ParameterInfo &p : infos)
    if (p.name == (m.tiedEmbedding ? "wte" : "lm_head"))
      paddedVocab = p.shape[0];
  Type result =
      loss ? g.tensor({}) : g.tensor({B, paddedVocab}, g.computeType());
  auto fnType = builder.getFunctionType(argTypes, {result});
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(builder, g.getLoc(),
                                 loss ? "forward" : "logits", fnType);
  // One attribute array for all arguments: setArgAttr per argument rebuilds
  // the whole array each time, quadratic in the number of parameters.
  SmallVector<DictionaryAttr> argAttrs;
  for (auto [i, name] : llvm::enumerate(argNames)) {
    NamedAttrList attrs;
    attrs.append("gpt.name", builder.getStringAttr(name));
    if (i >= firstParam)
      attrs.append("gpt.param", builder.getUnitAttr());
    argAttrs.push_back(attrs.getDictionary(&ctx));
  }
  fn.setAllArgAttrs(argAttrs);
  Block *body = fn.addEntryBlock();
  builder.setInsertionPointToStart(body);
  tokens = body->getArgument(0);
  (loss ? targets : samplePos) = body->getArgument(1);
  if (windowed)
    window = windowSchedule(body->getArgument(2), body->getArgument(3));
  for (auto [i, p] : llvm::enumerate(infos))
    params[p.name] = body->getArgument(firstParam + i);

  Value x0 = embed("wte", "embed");
  if (m.embedNorm) {
    at("model.embed_norm", "embed_norm");
    x0 = norm(x0);
  }
  veLayout = valueEmbeddingLayout(m);
  for (int j = 0, e = valueEmbeddingTables(m); j < e; ++j)
    valueEmbeds.push_back(
        embed("value_embeds." + std::to_string(j), "value_embeds"));
  buildRotaryTables();

  Value x = x0, v1;
  std::vector<Value> skips;
  int64_t half = m.nLayer / 2;
  for (int64_t i = 0; i < m.nLayer; ++i) {
    if (m.unetSkips && i >= half && !skips.empty()) {
      at("model.unet_skips", "skip." + std::to_string(i - half));
      Value w = g.scalarOf(param("skip_weights"), i - half, 3);
      x = g.add(x, g.mulByScalar(skips.back(), w));
      skips.pop_back();
    }
    x = block(x, x0, i, v1);
    if (m.unetSkips && i < half)
      skips.push_back(x);
  }

  if (loss) {
    Value z = logits(x);
    at("model.vocab_size", "loss");
    func::ReturnOp::create(builder, g.getLoc(), g.crossEntropy(z, targets));
    return;
  }
  // The hidden state at sample_pos[b] of each row b: [B, T, d] -> [B, d, T]
  // -> gather the last dimension -> [B, 1, d]; then the head.
  at("model.vocab_size", "sample");
  int64_t d = GraphBuilder::typeOf(x).getDimSize(2);
  Value columns =
      TransposeOp::create(builder, g.getLoc(), g.tensor({B, d, T}), x,
                          builder.getDenseI64ArrayAttr({0, 2, 1}));
  Value index = g.broadcastTo(g.reshape(samplePos, {B, 1}), {B, d});
  Value picked = GatherLastOp::create(builder, g.getLoc(), g.tensor({B, d}),
                                      columns, index);
  Value z = logits(g.reshape(picked, {B, 1, d}));
  func::ReturnOp::create(builder, g.getLoc(), g.reshape(z, {B, paddedVocab}));
}

} // namespace

OwningOpRef<ModuleOp> buildForwardModule(MLIRContext &ctx,
                                         const ModelSpec &spec) {
  ForwardGen gen(ctx, spec);
  OwningOpRef<ModuleOp> module = gen.run();
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace gptc
