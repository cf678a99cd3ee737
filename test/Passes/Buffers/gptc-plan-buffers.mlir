// RUN: gptc-opt %s -split-input-file --gptc-plan-buffers | FileCheck %s

// gptc-plan-buffers: the temporaries of an arena entry point become views
// of one workspace after the slots; buffers whose lifetimes do not overlap
// share bytes. %a (256 B) and %b (256 B) are live at once (workspace
// offsets 0 and 256); %c (128 B) comes after %a's last use and reuses its
// bytes (offset 0). The workspace starts at the old arena size (128) and is
// 512 bytes: the arena grows to 640.

// CHECK-LABEL: module attributes {gptc.arena = #gpt.arena<bytes = 640, workspace = [128, 512], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>}
// CHECK: func.func @entry(%[[ARENA:.*]]: memref<640xi8>)
// CHECK-NOT: memref.alloc
// CHECK: %[[OA:.*]] = arith.constant 128 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[OA]]][] : memref<640xi8> to memref<64xf32>
// CHECK-NEXT: %[[OB:.*]] = arith.constant 384 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[OB]]][] : memref<640xi8> to memref<64xf32>
// CHECK: %[[OC:.*]] = arith.constant 128 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[OC]]][] : memref<640xi8> to memref<32xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>} {
  func.func @entry(%arena: memref<128xi8>) {
    %f = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    linalg.fill ins(%f : f32) outs(%a : memref<64xf32>)
    linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
    memref.dealloc %a : memref<64xf32>
    %c = memref.alloc() : memref<32xf32>
    linalg.fill ins(%f : f32) outs(%c : memref<32xf32>)
    memref.dealloc %b : memref<64xf32>
    memref.dealloc %c : memref<32xf32>
    return
  }
}

// -----

// Must not fire: a module without an arena layout is left alone, and so is
// a buffer allocated inside a loop.

// CHECK-LABEL: func.func @no_layout
// CHECK: memref.alloc
// CHECK: memref.dealloc
func.func @no_layout(%arena: memref<128xi8>) {
  %a = memref.alloc() : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// CHECK-LABEL: module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0]
// CHECK: scf.for
// CHECK: memref.alloc
// CHECK: memref.dealloc
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>} {
  func.func @in_loop(%arena: memref<128xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.alloc() : memref<64xf32>
      memref.dealloc %a : memref<64xf32>
    }
    return
  }
}

// -----

// Before the deallocation pipeline (as gptc's pipeline runs it) the
// temporaries have no dealloc yet: each is live from its alloc to its last
// use all the same. %a is dead when %b is made: they share offset 128.
// CHECK-LABEL: module attributes {gptc.arena = #gpt.arena<bytes = 384, workspace = [128, 256]
// CHECK: func.func @without_deallocs
// CHECK-NOT: memref.alloc
// CHECK: %[[OA:.*]] = arith.constant 128 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[OA]]][] : memref<384xi8> to memref<64xf32>
// CHECK: %[[OB:.*]] = arith.constant 128 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[OB]]][] : memref<384xi8> to memref<64xf32>
// CHECK: return
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>} {
  func.func @without_deallocs(%arena: memref<128xi8>) {
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32>
    memref.store %f, %a[%c0] : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    memref.store %f, %b[%c0] : memref<64xf32>
    return
  }
}

// -----

// Must not fire: a buffer freed in another block (a loop's) is not the
// step's temporary.
// CHECK-LABEL: func.func @freed_in_loop
// CHECK: memref.alloc
// CHECK: scf.for
// CHECK: memref.dealloc
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>} {
  func.func @freed_in_loop(%arena: memref<128xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %c1 step %c1 {
      memref.dealloc %a : memref<64xf32>
    }
    return
  }
}

// -----

// Index buffers (the attention kernels' key bounds) are planned too, at
// the data layout's size of an index (8 bytes by default): 4x128 indices
// are 4096 bytes.
// CHECK-LABEL: module attributes {gptc.arena = #gpt.arena<bytes = 4224, workspace = [128, 4096]
// CHECK: func.func @index_buffer
// CHECK-NOT: memref.alloc
// CHECK: %[[O:.*]] = arith.constant 128 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[O]]][] : memref<4224xi8> to memref<4x128xindex>
// CHECK: return
module attributes {gptc.arena = #gpt.arena<bytes = 128, workspace = [128, 0], slots = [#gpt.arena_slot<"x", 0, tensor<16xf32>>]>} {
  func.func @index_buffer(%arena: memref<128xi8>) {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<4x128xindex>
    memref.store %c0, %a[%c0, %c0] : memref<4x128xindex>
    return
  }
}
