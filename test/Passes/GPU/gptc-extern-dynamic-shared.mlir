// RUN: gptc-opt %s --gptc-extern-dynamic-shared --split-input-file | FileCheck %s

// A kernel's dynamic shared memory becomes an external declaration of its
// module (PTX .extern .shared ...[]), one for all the uses.
// CHECK-LABEL: gpu.module @tiles
// CHECK:         memref.global "public" @gptc_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK-LABEL:   gpu.func @f
// CHECK-NOT:       gpu.dynamic_shared_memory
// CHECK:           %[[G:.*]] = memref.get_global @gptc_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[BASE:.*]] = memref.cast %[[G]] : memref<0xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[BASE]]
// CHECK:           memref.get_global @gptc_dynamic_shared
module attributes {gpu.container_module} {
  gpu.module @tiles {
    gpu.func @f(%a: memref<16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c16 = arith.constant 16 : index
      %v = memref.view %base[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<16xf32>
      memref.store %x, %v[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      %again = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %w = memref.view %again[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %y = memref.load %w[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %y, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
}

// -----

// Must not fire: a module whose kernels have static tiles only gets no
// declaration.
// CHECK-LABEL: gpu.module @static
// CHECK-NOT:     memref.global
// CHECK:         gpu.func @g
module attributes {gpu.container_module} {
  gpu.module @static {
    gpu.func @g(%a: memref<16xf32>) workgroup(%t: memref<16xf32, #gpu.address_space<workgroup>>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<16xf32>
      memref.store %x, %t[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
