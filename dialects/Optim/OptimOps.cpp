//===- OptimOps.cpp - optim op verifiers ----------------------------------===//
//
// Shape checks of the updates and range checks of the hyper-parameters. The
// checks shared by several ops (matrix operands, the Newton-Schulz
// attributes, ranges of scalars) are helpers at the top.
//
//===----------------------------------------------------------------------===//

#include "dialects/Optim/OptimDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::optim;

#define GET_OP_CLASSES
#include "dialects/Optim/OptimOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Formats a hyper-parameter for a diagnostic (`0.95`, `1e-07`, `80`).
static std::string formatValue(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// Checks that `type` is a matrix, or a batch of matrices over its leading
/// dimensions.
static LogicalResult verifyMatrix(Operation *op, RankedTensorType type) {
  if (type.getRank() < 2)
    return op->emitOpError("expects a matrix or a batch of matrices (rank >= "
                           "2), got rank ")
           << type.getRank();
  return success();
}

/// Checks that the integer attribute `name` is at least 1.
static LogicalResult verifyAtLeastOne(Operation *op, StringRef name,
                                      int64_t value) {
  if (value < 1)
    return op->emitOpError() << name << " must be at least 1, got " << value;
  return success();
}

/// Checks that the integer attribute `name` is >= 0.
static LogicalResult verifyNonNegative(Operation *op, StringRef name,
                                       int64_t value) {
  if (value < 0)
    return op->emitOpError() << name << " must be non-negative, got " << value;
  return success();
}

/// Checks that the float attribute `name` is >= 0 (and not NaN, as are the
/// range checks below).
static LogicalResult verifyNonNegative(Operation *op, StringRef name,
                                       double value) {
  if (!(value >= 0.0))
    return op->emitOpError()
           << name << " must be non-negative, got " << formatValue(value);
  return success();
}

/// Checks that the attribute `name` is > 0.
static LogicalResult verifyPositive(Operation *op, StringRef name,
                                    double value) {
  if (!(value > 0.0))
    return op->emitOpError()
           << name << " must be positive, got " << formatValue(value);
  return success();
}

/// Checks that the attribute `name` is in [0, 1], or in [0, 1) when
/// `excludeOne` is set.
static LogicalResult verifyUnitInterval(Operation *op, StringRef name,
                                        double value, bool excludeOne) {
  if (!(value >= 0.0 && (excludeOne ? value < 1.0 : value <= 1.0)))
    return op->emitOpError()
           << name << " must be in [0, 1" << (excludeOne ? ")" : "]")
           << ", got " << formatValue(value);
  return success();
}

/// Checks the attributes that configure a Newton-Schulz iteration (on
/// optim.newton_schulz and optim.muon).
static LogicalResult verifyNewtonSchulzAttrs(Operation *op, int64_t steps,
                                             ArrayRef<double> coefficients,
                                             double eps, Type computeDType) {
  if (failed(verifyAtLeastOne(op, "steps", steps)))
    return failure();
  if (coefficients.size() != 3)
    return op->emitOpError("coefficients must be exactly 3 values (a, b, c), "
                           "got ")
           << coefficients.size();
  if (failed(verifyPositive(op, "eps", eps)))
    return failure();
  if (!computeDType.isBF16() && !computeDType.isF32() && !computeDType.isF64())
    return op->emitOpError("compute_dtype must be bf16, f32 or f64, got ")
           << computeDType;
  return success();
}

//===----------------------------------------------------------------------===//
// Orthogonalisation
//===----------------------------------------------------------------------===//

LogicalResult NewtonSchulzOp::verify() {
  if (failed(verifyMatrix(*this, getInput().getType())))
    return failure();
  return verifyNewtonSchulzAttrs(*this, getStepsAttr().getInt(),
                                 getCoefficients(), getEps().convertToDouble(),
                                 getComputeDtype());
}

LogicalResult SVDOrthogonalizeOp::verify() {
  return verifyMatrix(*this, getInput().getType());
}

//===----------------------------------------------------------------------===//
// Update rules
//===----------------------------------------------------------------------===//

LogicalResult MuonOp::verify() {
  RankedTensorType type = getParam().getType();
  if (failed(verifyMatrix(*this, type)))
    return failure();
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  if (getQkvSplit() && !ShapedType::isDynamic(rows) &&
      !ShapedType::isDynamic(cols) && rows != 3 * cols)
    return emitOpError("qkv_split needs rows = 3 * cols, got ")
           << rows << "x" << cols;
  if (failed(verifyNewtonSchulzAttrs(
          *this, getStepsAttr().getInt(), getCoefficients(),
          getEps().convertToDouble(), getComputeDtype())))
    return failure();
  return verifyNonNegative(*this, "weight_decay",
                           getWeightDecay().convertToDouble());
}

LogicalResult AdamOp::verify() {
  if (failed(verifyUnitInterval(*this, "beta1", getBeta1().convertToDouble(),
                                /*excludeOne=*/true)) ||
      failed(verifyUnitInterval(*this, "beta2", getBeta2().convertToDouble(),
                                /*excludeOne=*/true)) ||
      failed(verifyPositive(*this, "eps", getEps().convertToDouble())))
    return failure();
  return verifyNonNegative(*this, "weight_decay",
                           getWeightDecay().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

// The run's length is an operand (set at run time): the steps counted
// here are those of a run of compiled_steps, scaled with the run.
LogicalResult LRScheduleOp::verify() {
  int64_t compiled = getCompiledStepsAttr().getInt();
  int64_t warmup = getWarmupStepsAttr().getInt();
  if (failed(verifyAtLeastOne(*this, "compiled_steps", compiled)) ||
      failed(verifyNonNegative(*this, "warmup_steps", warmup)))
    return failure();
  IntegerAttr decaySteps = getDecayStepsAttr();
  FloatAttr decayFraction = getDecayFractionAttr();
  if (decaySteps && decayFraction)
    return emitOpError("decay_steps and decay_fraction are mutually "
                       "exclusive");
  double decay = 0.0;
  if (decaySteps) {
    if (failed(verifyAtLeastOne(*this, "decay_steps", decaySteps.getInt())))
      return failure();
    decay = static_cast<double>(decaySteps.getInt());
  }
  if (decayFraction) {
    double fraction = decayFraction.getValueAsDouble();
    if (!(fraction > 0.0 && fraction <= 1.0))
      return emitOpError("decay_fraction must be in (0, 1], got ")
             << formatValue(fraction);
    decay = fraction * static_cast<double>(compiled);
  }
  if (static_cast<double>(warmup) + decay > static_cast<double>(compiled))
    return emitOpError() << "warmup_steps + decay steps (" << warmup << " + "
                         << formatValue(decay)
                         << ") must not exceed compiled_steps (" << compiled
                         << ")";
  return verifyUnitInterval(*this, "floor", getFloor().convertToDouble(),
                            /*excludeOne=*/false);
}

LogicalResult MomentumWarmupOp::verify() {
  if (failed(verifyAtLeastOne(*this, "compiled_steps",
                              getCompiledStepsAttr().getInt())) ||
      failed(verifyAtLeastOne(*this, "steps", getStepsAttr().getInt())) ||
      failed(verifyUnitInterval(*this, "start", getStart().convertToDouble(),
                                /*excludeOne=*/false)))
    return failure();
  return verifyUnitInterval(*this, "end", getEnd().convertToDouble(),
                            /*excludeOne=*/false);
}

LogicalResult WindowScheduleOp::verify() {
  if (failed(verifyAtLeastOne(*this, "granularity",
                              getGranularityAttr().getInt())) ||
      failed(verifyNonNegative(*this, "start", getStartAttr().getInt())))
    return failure();
  return verifyNonNegative(*this, "end", getEndAttr().getInt());
}
