//===- OptimizerGen.cpp - ModelSpec optimizer groups -> @update -----------===//
//
// Builds `func.func @update` from the spec's optimizer groups (REFERENCE
// §3-4): one optim.muon or optim.adam per parameter, the learning-rate
// multiplier and the Muon momentum warm-up as ops on the step counter.
//
//   @update(%step: tensor<i64>, %total_steps: tensor<i64>, %param.P...,
//           %grad.P..., %state.P.K...)
//       -> (%param.P..., %state.P.K..., %lr_mult, %param_sq_norms)
//
// param_sq_norms (tensor<G x f32>) holds, for each optimizer group in the
// order of its first parameter, the sum of squares of its parameters after
// the update: the divergence guard reads these G words instead of every
// parameter.
//
// Every argument and result carries `gpt.name` (its arena slot).
// total_steps is the run's length, which the learning-rate schedule spans:
// the runtime sets it from gptc train --steps (the spec's training.steps by
// default), so a bundle's schedule fits any run.
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGen.h"

#include "dialects/GPT/GPTDialect.h"
#include "dialects/Optim/OptimDialect.h"
#include "frontend/OptimizerTable.h"
#include "frontend/Parameters.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace gptc {
namespace {

optim::MomentumForm toOptim(MomentumForm f) {
  return f == MomentumForm::Lerp ? optim::MomentumForm::lerp
                                 : optim::MomentumForm::sum;
}
optim::UpdateScale toOptim(UpdateScale s) {
  switch (s) {
  case UpdateScale::None:
    return optim::UpdateScale::none;
  case UpdateScale::SqrtMaxDim:
    return optim::UpdateScale::sqrt_max_dim;
  case UpdateScale::SqrtMax1Ratio:
    return optim::UpdateScale::sqrt_max_1_ratio;
  }
  return optim::UpdateScale::none;
}
optim::NSForm toOptim(NSForm f) {
  return f == NSForm::ApplyThenCombine ? optim::NSForm::apply_then_combine
                                       : optim::NSForm::polynomial_then_apply;
}

/// The state slots a parameter of `kind` needs (OptimizerTable.h).
std::vector<std::string> stateKinds(OptimizerKind kind) {
  const std::vector<const char *> &state = optimizerInfo(kind).state;
  return {state.begin(), state.end()};
}

Location locOf(MLIRContext &ctx, const ModelSpec &spec, const std::string &key,
               const std::string &name) {
  SourceLoc l = spec.locOf(key);
  return NameLoc::get(StringAttr::get(&ctx, name),
                      FileLineColLoc::get(&ctx, l.file, l.line, l.col));
}

/// For each group of `order`, the sum of squares of its parameters
/// `values`, as one tensor<G x f32>.
Value squaredNorms(OpBuilder &b, Location loc,
                   const std::vector<ParameterInfo> &params,
                   ArrayRef<Value> values, ArrayRef<int> order) {
  MLIRContext *ctx = b.getContext();
  auto one = RankedTensorType::get({1}, b.getF32Type());
  SmallVector<Value> sums(order.size());
  for (auto [p, value] : llvm::zip(params, values)) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> dims, ones;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      dims.push_back(d);
      ones.push_back(1);
    }
    Value sum = gpt::SquareOp::create(b, loc, type, value);
    if (type.getRank() > 0)
      sum = gpt::ReduceOp::create(
          b, loc, RankedTensorType::get(ones, type.getElementType()),
          gpt::ReduceKindAttr::get(ctx, gpt::ReduceKind::sum), sum,
          b.getDenseI64ArrayAttr(dims));
    if (type.getElementType() != b.getF32Type())
      sum = gpt::CastOp::create(
          b, loc, RankedTensorType::get(ones, b.getF32Type()), sum);
    Value flat = gpt::ReshapeOp::create(b, loc, one, sum);
    size_t g = llvm::find(order, p.group) - order.begin();
    sums[g] =
        sums[g] ? Value(gpt::AddOp::create(b, loc, one, sums[g], flat)) : flat;
  }
  if (sums.size() == 1)
    return sums[0];
  auto all = RankedTensorType::get({static_cast<int64_t>(sums.size())},
                                   b.getF32Type());
  return gpt::ConcatOp::create(b, loc, all, sums, 0);
}

} // namespace

LogicalResult buildUpdateFunction(ModuleOp module, const ModelSpec &spec) {
  MLIRContext &ctx = *module.getContext();
  ctx.loadDialect<optim::OptimDialect>();
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  std::string error = assignGroups(spec, params);
  if (!error.empty())
    return emitError(locOf(ctx, spec, "optimizer.groups", "optimizer"))
           << error;

  OpBuilder b(&ctx);
  Type elt = spec.training.dtype == DType::F64 ? Type(b.getF64Type())
                                               : Type(b.getF32Type());
  auto stepType = RankedTensorType::get({}, b.getI64Type());
  auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
  // Schedules, learning rates and momenta are f64, as PyTorch computes its
  // optimizers' scalars in Python floats; each update rounds them once.
  auto scalarF64 = RankedTensorType::get({}, b.getF64Type());

  // The type a parameter and its state are stored in between steps (the
  // update reads them extended to `elt` and rounds its results once).
  auto storedType = [&](const ParameterInfo &p) {
    bool bf16 = spec.groups[p.group].storage == ParamStorage::BF16;
    return RankedTensorType::get(p.shape, bf16 ? Type(b.getBF16Type()) : elt);
  };
  SmallVector<Type> argTypes = {stepType, stepType};
  SmallVector<std::string> argNames = {"step", "total_steps"};
  SmallVector<Type> resultTypes;
  SmallVector<std::string> resultNames;
  for (const ParameterInfo &p : params) {
    argTypes.push_back(storedType(p));
    argNames.push_back("param." + p.name);
  }
  const size_t firstGrad = argTypes.size();
  for (const ParameterInfo &p : params) {
    argTypes.push_back(RankedTensorType::get(p.shape, elt));
    argNames.push_back("grad." + p.name);
  }
  for (const ParameterInfo &p : params)
    for (const std::string &k : stateKinds(spec.groups[p.group].kind)) {
      argTypes.push_back(storedType(p));
      argNames.push_back("state." + p.name + "." + k);
    }
  for (const ParameterInfo &p : params) {
    resultTypes.push_back(storedType(p));
    resultNames.push_back("param." + p.name);
  }
  for (const ParameterInfo &p : params)
    for (const std::string &k : stateKinds(spec.groups[p.group].kind)) {
      resultTypes.push_back(storedType(p));
      resultNames.push_back("state." + p.name + "." + k);
    }
  resultTypes.push_back(scalarF32);
  resultNames.push_back("lr_mult");
  // Groups in the order of their first parameter (as the manifest lists
  // the parameters).
  SmallVector<int> groupOrder;
  for (const ParameterInfo &p : params)
    if (!llvm::is_contained(groupOrder, p.group))
      groupOrder.push_back(p.group);
  resultTypes.push_back(RankedTensorType::get(
      {static_cast<int64_t>(groupOrder.size())}, b.getF32Type()));
  resultNames.push_back("param_sq_norms");

  b.setInsertionPointToEnd(module.getBody());
  Location fnLoc = locOf(ctx, spec, "optimizer", "update");
  auto fn = func::FuncOp::create(b, fnLoc, "update",
                                 b.getFunctionType(argTypes, resultTypes));
  // One attribute array per side: setArgAttr per argument rebuilds the whole
  // array each time, quadratic in the number of parameters.
  auto nameAttrs = [&](ArrayRef<std::string> names) {
    SmallVector<DictionaryAttr> attrs;
    for (const std::string &name : names)
      attrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr("gpt.name", b.getStringAttr(name))));
    return attrs;
  };
  SmallVector<DictionaryAttr> argAttrs = nameAttrs(argNames);
  // A gradient the ranks average in bf16 (grad_reduce: bf16) says so on its
  // argument; gptc-build-step rounds it there for the all-reduce.
  for (auto [i, p] : llvm::enumerate(params))
    if (spec.groups[p.group].gradReduce == GradReduce::BF16) {
      size_t at = firstGrad + i;
      NamedAttrList attrs(argAttrs[at]);
      attrs.set("gpt.reduce_type", TypeAttr::get(b.getBF16Type()));
      argAttrs[at] = attrs.getDictionary(&ctx);
    }
  fn.setAllArgAttrs(argAttrs);
  fn.setAllResultAttrs(nameAttrs(resultNames));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);

  size_t n = params.size();
  Value step = entry->getArgument(0), totalSteps = entry->getArgument(1);
  const size_t firstParam = 2;
  // A stored value in the compute type (extended from bf16 storage), and
  // a result in its storage type (rounded once).
  // Between bf16 and f64 through f32 (exact one way; the other rounds as
  // PyTorch's f64 -> bf16 does, through f32).
  auto toType = [&](Location loc, Value x, Type type) -> Value {
    auto t = cast<RankedTensorType>(x.getType());
    if (t.getElementType() == type)
      return x;
    if (t.getElementType().isF64() || type.isF64())
      x = gpt::CastOp::create(b, loc, t.clone(b.getF32Type()), x);
    if (cast<RankedTensorType>(x.getType()).getElementType() == type)
      return x;
    return gpt::CastOp::create(b, loc, t.clone(type), x);
  };
  auto stored = [&](size_t i) { return entry->getArgument(firstParam + i); };
  SmallVector<Value> computeParams;
  for (size_t i = 0; i < n; ++i)
    computeParams.push_back(
        toType(locOf(ctx, spec,
                     "optimizer.groups." + spec.groups[params[i].group].name,
                     "update." + params[i].name),
               stored(i), elt));
  auto paramArg = [&](size_t i) { return computeParams[i]; };
  auto gradArg = [&](size_t i) {
    return entry->getArgument(firstParam + n + i);
  };
  size_t nextState = firstParam + 2 * n;

  // Schedules, shared by every group.
  const ScheduleSpec &s = spec.schedule;
  Location schedLoc = locOf(ctx, spec, "schedule", "lr_schedule");
  IntegerAttr decaySteps =
      s.decaySteps > 0 ? b.getI64IntegerAttr(s.decaySteps) : IntegerAttr();
  FloatAttr decayFraction = s.decaySteps == 0 && s.decayFraction > 0
                                ? b.getF64FloatAttr(s.decayFraction)
                                : FloatAttr();
  // The steps the spec counts are those of a run of training.steps; a run
  // of total_steps scales them (optim.lr_schedule).
  IntegerAttr compiledSteps =
      b.getI64IntegerAttr(std::max<int64_t>(spec.training.steps, 1));
  Value mult = optim::LRScheduleOp::create(
      b, schedLoc, scalarF64, step, totalSteps, compiledSteps,
      b.getI64IntegerAttr(s.warmupSteps), decaySteps, decayFraction,
      b.getF64FloatAttr(s.lrFloor));

  auto unit = [&](bool on) { return on ? b.getUnitAttr() : UnitAttr(); };
  SmallVector<Value> newParams(n), newStates;
  for (size_t i = 0; i < n; ++i) {
    const ParameterInfo &p = params[i];
    const OptimizerGroup &g = spec.groups[p.group];
    Location loc =
        locOf(ctx, spec, "optimizer.groups." + g.name, "update." + p.name);
    Value lr = gpt::MulScalarOp::create(b, loc, mult, b.getF64FloatAttr(g.lr));
    if (g.kind == OptimizerKind::Adam) {
      Value m = toType(loc, entry->getArgument(nextState++), elt);
      Value v = toType(loc, entry->getArgument(nextState++), elt);
      auto adam = optim::AdamOp::create(
          b, loc, paramArg(i).getType(), paramArg(i).getType(),
          paramArg(i).getType(), paramArg(i), gradArg(i), m, v, lr, step,
          b.getF64FloatAttr(g.beta1), b.getF64FloatAttr(g.beta2),
          b.getF64FloatAttr(g.eps), b.getF64FloatAttr(g.weightDecay),
          unit(g.decoupledWeightDecay), unit(g.biasCorrection));
      newParams[i] = adam.getNewParam();
      Type storage = storedType(p).getElementType();
      newStates.push_back(toType(loc, adam.getNewM(), storage));
      newStates.push_back(toType(loc, adam.getNewV(), storage));
      continue;
    }
    Value buf = entry->getArgument(nextState++);
    Value momentum;
    if (g.momentumWarmupSteps > 0)
      momentum = optim::MomentumWarmupOp::create(
          b, loc, scalarF64, step, totalSteps, compiledSteps,
          b.getF64FloatAttr(g.momentumWarmupStart),
          b.getF64FloatAttr(g.momentum),
          b.getI64IntegerAttr(g.momentumWarmupSteps));
    else
      momentum = gpt::ConstantOp::create(
          b, loc,
          cast<ElementsAttr>(DenseElementsAttr::get(
              scalarF64, b.getF64FloatAttr(g.momentum))));
    Type nsType = g.nsDtype == DType::BF16  ? Type(b.getBF16Type())
                  : g.nsDtype == DType::F64 ? Type(b.getF64Type())
                                            : Type(b.getF32Type());
    auto muon = optim::MuonOp::create(
        b, loc, paramArg(i).getType(), paramArg(i).getType(), paramArg(i),
        gradArg(i), buf, lr, momentum,
        optim::MomentumFormAttr::get(&ctx, toOptim(g.momentumForm)),
        unit(g.nesterov),
        optim::UpdateScaleAttr::get(&ctx, toOptim(g.updateScale)),
        // The split applies to the fused (3 d, d) matrices of the group.
        unit(g.qkvSplit && p.shape.size() == 2 && p.shape[0] == 3 * p.shape[1]),
        optim::OrthoBackendAttr::get(&ctx,
                                     g.nsBackend == NSBackend::SVD
                                         ? optim::OrthoBackend::svd
                                         : optim::OrthoBackend::newton_schulz),
        b.getI64IntegerAttr(g.nsSteps),
        b.getDenseF64ArrayAttr(g.nsCoefficients), b.getF64FloatAttr(g.nsEps),
        optim::NSFormAttr::get(&ctx, toOptim(g.nsForm)),
        optim::TransposeRuleAttr::get(&ctx, optim::TransposeRule::short_side),
        optim::NormalizeOrderAttr::get(&ctx,
                                       g.nsNormalize == NSNormalize::BeforeCast
                                           ? optim::NormalizeOrder::before_cast
                                           : optim::NormalizeOrder::after_cast),
        TypeAttr::get(nsType), b.getF64FloatAttr(g.weightDecay));
    newParams[i] = muon.getNewParam();
    newStates.push_back(muon.getNewBuf());
  }
  // The parameters as stored (the norms the log prints are theirs).
  SmallVector<Value> results, storedParams;
  for (size_t i = 0; i < n; ++i) {
    results.push_back(toType(newParams[i].getLoc(), newParams[i],
                             storedType(params[i]).getElementType()));
    storedParams.push_back(toType(newParams[i].getLoc(), results.back(), elt));
  }
  results.append(newStates.begin(), newStates.end());
  // The multiplier the log prints, an f32 slot of the step.
  results.push_back(gpt::CastOp::create(b, schedLoc, scalarF32, mult));
  results.push_back(squaredNorms(b, locOf(ctx, spec, "optimizer", "update"),
                                 params, storedParams, groupOrder));
  func::ReturnOp::create(b, fnLoc, results);
  return success();
}

} // namespace gptc
