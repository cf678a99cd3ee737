// RUN: gptc-opt %s -split-input-file --gptc-export-layout -verify-diagnostics | FileCheck %s

// gptc-export-layout: the #gpt.arena layout as the descriptor text of
// runtime/StepLayout.h and its SHA-256, exported by the step library.
// CHECK: llvm.mlir.global external constant @gptc_step_layout("gptc-layout/1\0Aarena_bytes 640\0Aworkspace 256 384\0Aslot tokens 0 i32 4x8\0Aslot step 128 i64 -\0Aslot param.w 192 bf16 3x5\0A\00")
// CHECK: llvm.mlir.global external constant @gptc_step_layout_sha256("{{[0-9a-f]+}}\00")
module attributes {gptc.arena = #gpt.arena<bytes = 640, workspace = [256, 384], slots = [
    #gpt.arena_slot<"tokens", 0, tensor<4x8xi32>>,
    #gpt.arena_slot<"step", 128, tensor<i64>>,
    #gpt.arena_slot<"param.w", 192, tensor<3x5xbf16>>]>} {
}

// -----

// Must not fire: no layout, nothing exported.
// CHECK-LABEL: module {
// CHECK-NOT: llvm.mlir.global
module {
}

// -----

// A symbol of that name already exists.
// expected-error@+1 {{gptc-export-layout: @gptc_step_layout_sha256 is defined already}}
module attributes {gptc.arena = #gpt.arena<bytes = 64, workspace = [64, 0], slots = []>} {
  llvm.mlir.global external constant @gptc_step_layout_sha256("x")
}
