// RUN: gptc-opt %s -split-input-file -verify-diagnostics

// The #gpt.arena layout's verifier.

// expected-error@+1 {{slot 'x': offset 32 is not a non-negative multiple of 64}}
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 32, tensor<4xf32>>]>} {}

// -----

// expected-error@+1 {{slots 'a' and 'b' overlap}}
module attributes {gptc.arena = #gpt.arena<bytes = 256, workspace = [256, 0], slots = [#gpt.arena_slot<"a", 0, tensor<32xf32>>, #gpt.arena_slot<"b", 64, tensor<4xf32>>]>} {}

// -----

// expected-error@+1 {{slot 'a' ends at byte 256, past the slots' region}}
module attributes {gptc.arena = #gpt.arena<bytes = 256, workspace = [128, 128], slots = [#gpt.arena_slot<"a", 0, tensor<64xf32>>]>} {}

// -----

// expected-error@+1 {{workspace [128, 320) is not inside the arena of 256 bytes}}
module attributes {gptc.arena = #gpt.arena<bytes = 256, workspace = [128, 192], slots = []>} {}

// -----

// expected-error@+1 {{slot 'a' appears twice}}
module attributes {gptc.arena = #gpt.arena<bytes = 256, workspace = [256, 0], slots = [#gpt.arena_slot<"a", 0, tensor<4xf32>>, #gpt.arena_slot<"a", 64, tensor<4xf32>>]>} {}
