//===- OptimizerTable.h - The optimizers a spec can name --------*- C++ -*-===//
//
// Lookups in the optimizer table (OptimizerKind.h: one row per optimizer of
// `optimizer.groups.*.kind`, its name, the state a parameter of its group
// carries, the op the frontend writes for it and what lowers that op). The
// schema's spellings of `kind`, the state slots of the manifest, the
// "applies to ... groups only" checks and the docs come from the table.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_OPTIMIZERTABLE_H
#define GPTC_FRONTEND_OPTIMIZERTABLE_H

#include "frontend/ModelSpec.h"

#include <string>
#include <vector>

namespace gptc {

/// `kind`'s row.
const OptimizerInfo &optimizerInfo(OptimizerKind kind);

/// The schema keys that apply to `kind`'s groups only
/// ("optimizer.groups.*.momentum", ...), in schema order.
std::vector<std::string> optimizerKeys(OptimizerKind kind);

} // namespace gptc

#endif // GPTC_FRONTEND_OPTIMIZERTABLE_H
