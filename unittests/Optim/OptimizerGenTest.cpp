//===- OptimizerGenTest.cpp - Spec keys that reach optim.muon -------------===//
//
// buildUpdateFunction carries a Muon group's ns_normalize into each
// optim.muon: before_cast for the R3-R4 specs, after_cast from R5 on, and
// whatever --set says.
//
//===----------------------------------------------------------------------===//

#include "dialects/InitAllDialects.h"
#include "dialects/Optim/OptimDialect.h"
#include "frontend/MLIRGen.h"
#include "frontend/SpecParser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

/// The normalize attribute of every optim.muon of @update for the spec at
/// models/`name` with `overrides`.
std::vector<optim::NormalizeOrder>
muonNormalize(const std::string &name,
              const std::vector<std::string> &overrides) {
  gptc::ModelSpec spec;
  gptc::SpecError error;
  std::string path = std::string(GPTC_SOURCE_DIR) + "/models/" + name;
  EXPECT_TRUE(gptc::parseSpecFile(path, overrides, spec, error)) << error.str();
  DialectRegistry registry;
  gptc::registerAllDialects(registry);
  registry.insert<func::FuncDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = gptc::buildForwardModule(ctx, spec);
  EXPECT_TRUE(module);
  if (!module || failed(gptc::buildUpdateFunction(*module, spec)))
    return {};
  std::vector<optim::NormalizeOrder> orders;
  module->walk([&](optim::MuonOp op) { orders.push_back(op.getNormalize()); });
  return orders;
}

void expectAll(const std::vector<optim::NormalizeOrder> &orders,
               optim::NormalizeOrder want) {
  ASSERT_FALSE(orders.empty());
  for (optim::NormalizeOrder o : orders)
    EXPECT_EQ(o, want);
}

TEST(OptimizerGen, NSNormalizeFromSpec) {
  expectAll(muonNormalize("tiny-r04.yaml", {}),
            optim::NormalizeOrder::before_cast);
  expectAll(muonNormalize("tiny-r08.yaml", {}),
            optim::NormalizeOrder::after_cast);
}

TEST(OptimizerGen, NSNormalizeOverride) {
  expectAll(muonNormalize("tiny-r08.yaml",
                          {"optimizer.groups.hidden.ns_normalize=before_cast"}),
            optim::NormalizeOrder::before_cast);
}

} // namespace
