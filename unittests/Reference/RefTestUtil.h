//===- RefTestUtil.h - Helpers of the reference interpreter tests -*- C++
//-*-===//

#ifndef GPTC_UNITTESTS_REFERENCE_REFTESTUTIL_H
#define GPTC_UNITTESTS_REFERENCE_REFTESTUTIL_H

#include "reference/Interpreter.h"
#include "reference/Random.h"
#include "reference/ReferenceInterfaces.h"

#include "dialects/GPT/GPTDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

namespace gptc::ref::test {

/// A context with the gpt and func dialects and the reference models, and
/// every diagnostic collected in `diagnostics` (shown by failing checks).
class TestContext {
public:
  TestContext() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::gpt::GPTDialect, mlir::func::FuncDialect>();
    registerReferenceExternalModels(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadDialect<mlir::gpt::GPTDialect, mlir::func::FuncDialect>();
    handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
        ctx.get(), [this](mlir::Diagnostic &d) {
          std::string s;
          llvm::raw_string_ostream os(s);
          os << d.getLocation() << ": " << d;
          diagnostics += s + "\n";
          return mlir::success();
        });
  }
  mlir::MLIRContext &get() { return *ctx; }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source) {
    return mlir::parseSourceString<mlir::ModuleOp>(source, ctx.get());
  }

  /// Runs gptc-autodiff on `module` (adds @forward_grad).
  mlir::LogicalResult autodiff(mlir::ModuleOp module) {
    mlir::PassManager pm(ctx.get());
    pm.addPass(gptc::createAutodiffPass());
    return pm.run(module);
  }

  std::string diagnostics;

private:
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
};

/// The shared generator of tests and reference tools.
using Generator = gptc::ref::Random;

inline HostTensor ht(llvm::ArrayRef<int64_t> shape,
                     std::vector<double> values) {
  return HostTensor(shape, std::move(values));
}

inline double maxAbsDiff(const HostTensor &a, const HostTensor &b) {
  double m = 0.0;
  for (int64_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

/// gtest check: same shape, every element within `tol` (absolute).
inline ::testing::AssertionResult near(const HostTensor &got,
                                       const HostTensor &want, double tol) {
  if (got.shape != want.shape)
    return ::testing::AssertionFailure()
           << "shape " << got.shapeStr() << ", expected " << want.shapeStr();
  for (int64_t i = 0; i < got.size(); ++i) {
    bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                                  : std::fabs(got[i] - want[i]) <= tol;
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << i << " is " << got[i] << ", expected " << want[i]
             << " (tolerance " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

} // namespace gptc::ref::test

#endif // GPTC_UNITTESTS_REFERENCE_REFTESTUTIL_H
