//===- OptimizerTable.cpp - The optimizers a spec can name ----------------===//

#include "frontend/OptimizerTable.h"

#include "frontend/SpecSchema.h"

#include <cassert>

namespace gptc {

const OptimizerInfo &optimizerInfo(OptimizerKind kind) {
  const OptimizerInfo &info = optimizerTable()[size_t(kind)];
  assert(info.kind == kind && "optimizerTable() is in OptimizerKind order");
  return info;
}

std::vector<std::string> optimizerKeys(OptimizerKind kind) {
  std::vector<std::string> keys;
  for (const SchemaEntry &e : specSchema())
    if (e.scope == kind)
      keys.push_back(e.path);
  return keys;
}

} // namespace gptc
