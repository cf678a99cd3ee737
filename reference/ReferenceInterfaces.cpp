//===- ReferenceInterfaces.cpp - ReferenceEvalOpInterface registration ----===//

#include "reference/ReferenceInterfaces.h"

#include "reference/ReferenceModels.h"

#include "dialects/GPT/GPTDialect.h"
#include "dialects/Optim/OptimDialect.h"

#include "reference/ReferenceInterfaces.cpp.inc"

namespace gptc::ref {

void registerReferenceExternalModels(mlir::DialectRegistry &registry) {
  registry.insert<mlir::gpt::GPTDialect>();
  registry.addExtension(+[](mlir::MLIRContext *ctx, mlir::gpt::GPTDialect *) {
    detail::attachElementwiseModels(ctx);
    detail::attachContractionModels(ctx);
    detail::attachShapeModels(ctx);
    detail::attachFusedModels(ctx);
  });
  registry.insert<mlir::optim::OptimDialect>();
  registry.addExtension(
      +[](mlir::MLIRContext *ctx, mlir::optim::OptimDialect *) {
        detail::attachScheduleModels(ctx);
      });
}

} // namespace gptc::ref
