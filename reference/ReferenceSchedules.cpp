//===- ReferenceSchedules.cpp - Reference semantics of optim schedules ----===//
//
// optim.window_schedule, the one schedule a forward function holds (the
// attention window of a windowed model grows with the optimizer step).
// Written from the op's description, independently of its lowering in
// gptc-lower-optim.
//
//===----------------------------------------------------------------------===//

#include "reference/ReferenceModels.h"

#include "dialects/Optim/OptimDialect.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace gptc::ref::detail {
namespace {

/// x = start + (end - start) step / N, N the run's length (at least 1);
/// g floor(x / g) or g ceil(x / g), at least g. `step` is clamped to
/// [0, N].
LogicalResult evalWindowSchedule(optim::WindowScheduleOp op,
                                 ArrayRef<HostTensor> operands,
                                 EvalResults &results) {
  const long double n = std::max<long double>(operands[1][0], 1.0L),
                    g = op.getGranularity();
  const long double step = std::clamp<long double>(operands[0][0], 0.0L, n);
  const long double x =
      op.getStart() + (op.getEnd() - op.getStart()) * step / n;
  long double units = op.getRounding() == optim::Rounding::floor
                          ? std::floor(x / g)
                          : std::ceil(x / g);
  HostTensor window(resultShape(op));
  window[0] = static_cast<double>(std::max(units * g, g));
  results.push_back(std::move(window));
  return success();
}

} // namespace

void attachScheduleModels(MLIRContext *ctx) {
  attach<optim::WindowScheduleOp, evalWindowSchedule>(ctx);
}

} // namespace gptc::ref::detail
