//===- CompiledModule.h - Optim ops through the pipeline, JIT --*- C++ -*-===//
//
// Compiles a module of functions on memrefs that wrap optim ops, e.g.
//
//   func.func @ns(%in: memref<64x32xf32>, %out: memref<64x32xf32>)
//       attributes {llvm.emit_c_interface} {
//     %g = bufferization.to_tensor %in restrict : ...
//     %o = optim.newton_schulz %g ... : tensor<64x32xf32>
//     bufferization.materialize_in_destination %o in restrict writable %out
//     return
//   }
//
// with gptc-lower-optim (on the module) and then exactly the stages of
// buildGPTCPipeline after Stage::Step (linalg, buffers, loops, LLVM for the
// CPU), and JIT-compiles the result at -O3 with the runtime's GEMM and SVD
// callbacks bound. The functions are the arena entry points in miniature:
// the update step runs the same code on views of the arena.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_OPTIM_COMPILEDMODULE_H
#define GPTC_UNITTESTS_OPTIM_COMPILEDMODULE_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gptc::test {

class CompiledModule {
public:
  /// Parses, lowers and JIT-compiles `source`; null with `error` set on
  /// failure (the first diagnostic).
  static std::unique_ptr<CompiledModule> compile(const std::string &source,
                                                 std::string &error);

  /// Runs `@name(%in, %out)` on two row-major buffers of `shape` (rank 2 to
  /// 4, element type T = float or double). False if there is no such
  /// function.
  template <typename T>
  bool run(const std::string &name, const std::vector<int64_t> &shape,
           const std::vector<T> &in, std::vector<T> &out) const {
    return runPacked(name, shape, const_cast<T *>(in.data()), out.data());
  }

private:
  CompiledModule() = default;
  bool runPacked(const std::string &name, const std::vector<int64_t> &shape,
                 void *in, void *out) const;

  mlir::MLIRContext context;
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// `memref<64x32xf32>` / `tensor<64x32xf32>` for shape {64, 32} and
/// element type "f32".
std::string memrefType(const std::vector<int64_t> &shape,
                       const std::string &elt);
std::string tensorType(const std::vector<int64_t> &shape,
                       const std::string &elt);

/// The name of the wrapper of case `i` of a `kind` ("bf16_3").
std::string wrapperName(const char *kind, size_t i);

/// The text of `@name(%in, %out)`: `body` computes `%o` from `%g`, both of
/// tensorType(shape, elt), e.g. "%o = optim.svd_orthogonalize %g : ...".
std::string wrapperFunction(const std::string &name,
                            const std::vector<int64_t> &shape,
                            const std::string &elt, const std::string &body);

} // namespace gptc::test

#endif // GPTC_UNITTESTS_OPTIM_COMPILEDMODULE_H
