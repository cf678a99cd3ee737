# Precompiled MLIR headers.
#
# A pass's translation unit spends nearly all of its compile time in MLIR's
# headers: passes/Fusion/FuseRMSNorm.cpp takes 18.5 s with g++ -O3, of which
# 16.9 s is -fsyntax-only, and 2.8 s with these headers precompiled. The
# headers are precompiled once per flag set and reused by every target of
# that set (g++ accepts a precompiled header only under the flags it was
# made with):
#   gptc-mlir-pch     LLVM's flags (-fno-exceptions): the passes, the
#                     driver and its report, the MLIR frontend, gptc-opt
#                     (not the dialects: GPTOps.cpp's 17 s are its
#                     generated code's, the same with the header)
#   gptc-mlir-pch-eh  the same with -fexceptions: the unit tests that build
#                     MLIR (GoogleTest needs exceptions)
# -Winvalid-pch makes a precompiled header the compiler refuses a warning
# instead of a silent slow build. GPTC_PRECOMPILED_HEADERS=OFF turns them
# off (the sanitizer and fuzzer builds do not build these targets).
option(GPTC_PRECOMPILED_HEADERS "Precompile MLIR's headers" ON)

set(GPTC_MLIR_PCH_HEADERS
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Bufferization/IR/Bufferization.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/GPU/IR/GPUDialect.h>
  <mlir/Dialect/LLVMIR/LLVMDialect.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/Dialect/Vector/IR/VectorOps.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/PassManager.h>
  <mlir/Transforms/GreedyPatternRewriteDriver.h>
)

if(GPTC_PRECOMPILED_HEADERS)
  foreach(pch gptc-mlir-pch gptc-mlir-pch-eh)
    add_library(${pch} OBJECT ${PROJECT_SOURCE_DIR}/cmake/PrecompiledMLIR.cpp)
    target_precompile_headers(${pch} PRIVATE ${GPTC_MLIR_PCH_HEADERS})
  endforeach()
  target_compile_options(gptc-mlir-pch-eh PRIVATE -fexceptions)
endif()

# gptc_use_mlir_pch(target [EXCEPTIONS]): `target` compiles with the
# precompiled MLIR headers of its flag set.
function(gptc_use_mlir_pch target)
  if(NOT GPTC_PRECOMPILED_HEADERS)
    return()
  endif()
  cmake_parse_arguments(ARG "EXCEPTIONS" "" "" ${ARGN})
  if(ARG_EXCEPTIONS)
    target_precompile_headers(${target} REUSE_FROM gptc-mlir-pch-eh)
  else()
    target_precompile_headers(${target} REUSE_FROM gptc-mlir-pch)
  endif()
  target_compile_options(${target} PRIVATE -Winvalid-pch)
endfunction()
