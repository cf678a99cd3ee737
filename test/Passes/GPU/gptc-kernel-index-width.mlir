// RUN: gptc-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(gptc-kernel-index-width))' \
// RUN:   | FileCheck %s
// Each module that keeps 64-bit indices says why (explain=1):
// RUN: gptc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(gptc-kernel-index-width{explain=1}))' \
// RUN:   > /dev/null

// A kernel over 64 x 768 floats with a known launch: every index fits in
// 31 bits, so its module gets a 32-bit index.
// CHECK-LABEL: gpu.module @rows attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
module attributes {gpu.container_module} {
  gpu.module @rows {
    gpu.func @f(%a: memref<64x768xf32>, %t: memref<1x64xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 192, 1, 1>} {
      %b = gpu.block_id x
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c768 = arith.constant 768 : index
      %c256 = arith.constant 256 : index
      %base = arith.muli %b, %c256 : index
      %n = arith.addi %base, %i : index
      %row = arith.divui %n, %c768 : index
      %col = arith.remui %n, %c768 : index
      %bound = memref.load %t[%c0, %row] : memref<1x64xi32>
      %j = arith.index_cast %bound : i32 to index
      %x = memref.load %a[%row, %j] : memref<64x768xf32>
      memref.store %x, %a[%row, %col] : memref<64x768xf32>
      gpu.return
    }
  }
}

// -----

// Shared memory passes whatever its (dynamic) type: at most 228 KiB.
// CHECK-LABEL: gpu.module @tiles attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
module attributes {gpu.container_module} {
  gpu.module @tiles {
    memref.global "public" @gptc_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
    gpu.func @f(%a: memref<16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %g = memref.get_global @gptc_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>>
      %base = memref.cast %g : memref<0xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %c16 = arith.constant 16 : index
      %v = memref.view %base[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<16xf32>
      memref.store %x, %v[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Must not fire: the logits of a 50,304-token vocabulary over 65,536 rows
// (3.3e9 elements) need 64-bit addresses.
// CHECK-LABEL: gpu.module @logits {
module attributes {gpu.container_module} {
  // expected-remark@+1 {{64-bit indices in @logits: gpu.func: a memref of 3296722944 elements}}
  gpu.module @logits {
    gpu.func @f(%a: memref<65536x50304xbf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 65536, 1, 1>} {
      %b = gpu.block_id x
      %i = gpu.thread_id x
      %x = memref.load %a[%b, %i] : memref<65536x50304xbf16>
      memref.store %x, %a[%b, %i] : memref<65536x50304xbf16>
      gpu.return
    }
  }
}

// -----

// Must not fire: memory of index elements is laid out at the host's 8
// bytes an element.
// CHECK-LABEL: gpu.module @bounds {
module attributes {gpu.container_module} {
  // expected-remark@+1 {{64-bit indices in @bounds: gpu.func: a memref of index elements}}
  gpu.module @bounds {
    gpu.func @f(%a: memref<64xindex>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<64xindex>
      memref.store %x, %a[%i] : memref<64xindex>
      gpu.return
    }
  }
}

// -----

// Must not fire: an index argument (the host passes 64 bits), a value cast
// from i64, an unknown launch, a dynamic shape, a large constant.
// CHECK-LABEL: gpu.module @argument {
// CHECK-LABEL: gpu.module @wide_cast {
// CHECK-LABEL: gpu.module @unknown_launch {
// CHECK-LABEL: gpu.module @dynamic {
// CHECK-LABEL: gpu.module @constant {
module attributes {gpu.container_module} {
  // expected-remark@+1 {{64-bit indices in @argument: gpu.func: an index argument}}
  gpu.module @argument {
    gpu.func @f(%n: index, %a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %x = memref.load %a[%n] : memref<64xf32>
      memref.store %x, %a[%n] : memref<64xf32>
      gpu.return
    }
  }
  // expected-remark@+1 {{64-bit indices in @wide_cast: arith.index_cast: a cast from a 64-bit value}}
  gpu.module @wide_cast {
    gpu.func @f(%w: memref<i64>, %a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %v = memref.load %w[] : memref<i64>
      %n = arith.index_cast %v : i64 to index
      %x = memref.load %a[%n] : memref<64xf32>
      memref.store %x, %a[%n] : memref<64xf32>
      gpu.return
    }
  }
  // expected-remark@+1 {{64-bit indices in @unknown_launch: gpu.func: no known grid and block size}}
  gpu.module @unknown_launch {
    gpu.func @f(%a: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<64xf32>
      memref.store %x, %a[%i] : memref<64xf32>
      gpu.return
    }
  }
  // expected-remark@+1 {{64-bit indices in @dynamic: gpu.func: a memref of dynamic shape or layout}}
  gpu.module @dynamic {
    gpu.func @f(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %a[%i] : memref<?xf32>
      gpu.return
    }
  }
  // expected-remark@+1 {{64-bit indices in @constant: arith.constant: constant 2147483648 needs 64 bits}}
  gpu.module @constant {
    gpu.func @f(%a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %i = gpu.thread_id x
      %big = arith.constant 2147483648 : index
      %j = arith.remui %big, %i : index
      %x = memref.load %a[%j] : memref<64xf32>
      memref.store %x, %a[%i] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// Must not fire: a block's id times a row of 50,304 reaches 3.3e9 over a
// grid of 65,536 blocks (integer range analysis proves it from the known
// launch), though no memref is that large.
module attributes {gpu.container_module} {
  // expected-remark@+1 {{64-bit indices in @keys: arith.muli: a value in [0, 3296672640]}}
  gpu.module @keys {
    gpu.func @f(%a: memref<64xi32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_grid_size = array<i32: 65536, 1, 1>} {
      %b = gpu.block_id x
      %c50304 = arith.constant 50304 : index
      %c64 = arith.constant 64 : index
      %key = arith.muli %b, %c50304 : index
      %slot = arith.remui %key, %c64 : index
      %v = arith.index_cast %key : index to i32
      memref.store %v, %a[%slot] : memref<64xi32>
      gpu.return
    }
  }
}

// -----

// Must not fire: a module that already has a data layout keeps it.
// CHECK-LABEL: gpu.module @given attributes {dlti.dl_spec = #dlti.dl_spec<index = 64 : i64>}
module attributes {gpu.container_module} {
  gpu.module @given attributes {dlti.dl_spec = #dlti.dl_spec<index = 64 : i64>} {
    gpu.func @f(%a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<64xf32>
      memref.store %x, %a[%i] : memref<64xf32>
      gpu.return
    }
  }
}
