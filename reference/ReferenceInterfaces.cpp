//===- ReferenceInterfaces.cpp - ReferenceEvalOpInterface registration ----===//

#include "reference/ReferenceInterfaces.h"

#include "reference/ReferenceModels.h"

#include "dialects/GPT/GPTDialect.h"

#include "reference/ReferenceInterfaces.cpp.inc"

namespace gptc::ref {

void registerReferenceExternalModels(mlir::DialectRegistry &registry) {
  registry.insert<mlir::gpt::GPTDialect>();
  registry.addExtension(
      +[](mlir::MLIRContext *ctx, mlir::gpt::GPTDialect *) {
        detail::attachElementwiseModels(ctx);
        detail::attachContractionModels(ctx);
        detail::attachShapeModels(ctx);
        detail::attachFusedModels(ctx);
      });
}

} // namespace gptc::ref
