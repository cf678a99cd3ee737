// RUN: gptc-opt %s --gptc-lower-to-linalg --mlir-print-local-scope | FileCheck %s
// RUN: gptc-opt %s --gptc-lower-to-linalg | FileCheck %s --check-prefix=NOGPT

// gptc-lower-to-linalg, one function per op family: elementwise ops become
// all-parallel linalg.generic ops with an arith/math body, reductions
// generics with reduction iterators, GEMMs linalg.matmul / batch_matmul
// with transposing indexing maps, shape ops tensor views and slices, and the
// two serial scans (cumsum, embedding_grad) scf.for loops. Ops of other
// dialects are left alone. (Failures: gptc-lower-to-linalg-errors.mlir.)

// No gpt op is left.
// NOGPT-NOT: gpt.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<4x8xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[E0]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// Integer division rounds towards -inf.
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]], %[[I]] : tensor<4x8xi32>, tensor<4x8xi32>)
// CHECK: arith.floordivsi %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<4x8xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf32>) {
  %0 = gpt.add %a, %b : tensor<4x8xf32>
  %1 = gpt.div %i, %i : tensor<4x8xi32>
  %2 = gpt.max %a, %b : tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @unary
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[E]]
// sigmoid(x) = 1 / (1 + exp(-x))
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]]
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[ONE]], %[[E]]
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[D]]
// CHECK-NEXT: linalg.yield %[[R]]
// gelu(x) = x / 2 (1 + erf(x / sqrt 2))
// CHECK: linalg.generic
// CHECK: arith.constant 0.707106769 : f32
// CHECK: math.erf
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[C]]
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK: linalg.generic
// CHECK: arith.constant -1.000000e+00 : f32
// CHECK: arith.addf
func.func @unary(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = gpt.exp %x : tensor<4xf32>
  %1 = gpt.sigmoid %x : tensor<4xf32>
  %2 = gpt.gelu %x : tensor<4xf32>
  %3 = gpt.mul_scalar %x, 2.5 : tensor<4xf32>
  %4 = gpt.add_scalar %x, -1.0 : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @compare_select_cast
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK: } -> tensor<4xi1>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// Booleans convert as unsigned (true = 1).
// CHECK: linalg.generic
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: linalg.generic
// CHECK: arith.fptosi %{{.*}} : f32 to i32
func.func @compare_select_cast(%a: tensor<4xi32>, %b: tensor<4xi32>,
                               %x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi32>) {
  %m = gpt.compare le, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %s = gpt.select %m, %x, %y : tensor<4xi1>, tensor<4xf32>
  %l = gpt.compare lt, %x, %y : tensor<4xf32> -> tensor<4xi1>
  %c = gpt.cast %x : tensor<4xf32> to tensor<4xbf16>
  %f = gpt.cast %m : tensor<4xi1> to tensor<4xf32>
  %i = gpt.cast %x : tensor<4xf32> to tensor<4xi32>
  return %s, %l, %c, %f, %i : tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Reductions (kept dimensions map to 0 in the output)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x8x64xf32>)
// sum: init 0, addf.
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<2x8x1xf32>)
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x8x64xf32>) outs(%[[INIT]] : tensor<2x8x1xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[ACC]]
// CHECK-NEXT: linalg.yield %[[S]]
// max: init -inf, maximumf.
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// mean over two dimensions: a sum, then a parallel generic scaling by 1/128.
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: arith.constant 7.812500e-03 : f32
// CHECK: arith.mulf
func.func @reduce(%x: tensor<2x8x64xf32>)
    -> (tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x8x1xf32>) {
  %0 = gpt.reduce sum %x dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %1 = gpt.reduce max %x dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %2 = gpt.reduce mean %x dims = [0, 2] : tensor<2x8x64xf32> -> tensor<1x8x1xf32>
  return %0, %1, %2 : tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x8x1xf32>
}

//===----------------------------------------------------------------------===//
// GEMMs: the transposes are indexing maps (m, n, k) = (d0, d1, d2)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-z0-9_]+]]: tensor<3x4xf32>, %[[AT:[a-z0-9_]+]]: tensor<3x2xf32>, %[[BT:[a-z0-9_]+]]: tensor<4x3xf32>)
// The output starts at zero.
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// A B: the default maps.
// CHECK-NEXT: linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[Z]] : tensor<2x4xf32>)
// A^T B
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[AT]], %[[B]]
// A B^T
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[A]], %[[BT]]
// A^T B^T
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[AT]], %[[BT]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %at: tensor<3x2xf32>,
                  %bt: tensor<4x3xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = gpt.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = gpt.matmul %at, %b transpose_lhs : tensor<3x2xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %2 = gpt.matmul %a, %bt transpose_rhs : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %3 = gpt.matmul %at, %bt transpose_lhs transpose_rhs : tensor<3x2xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// A shared rank-2 rhs folds the batch into M: one 10x3 . (4x3)^T GEMM.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<5x2x3xf32>, %[[W:[a-z0-9_]+]]: tensor<4x3xf32>)
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<5x2x3xf32> into tensor<10x3xf32>
// CHECK: %[[Y:.*]] = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[X2]], %[[W]] : tensor<10x3xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<10x4xf32>)
// CHECK: tensor.expand_shape %{{.*}} output_shape [5, 2, 4] : tensor<40xf32> into tensor<5x2x4xf32>
// CHECK-NOT: linalg.batch_matmul
func.func @linear(%x: tensor<5x2x3xf32>, %w: tensor<4x3xf32>) -> tensor<5x2x4xf32> {
  %0 = gpt.matmul %x, %w transpose_rhs : tensor<5x2x3xf32>, tensor<4x3xf32> -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// Batched: leading dimensions collapse into one batch dimension,
// (b, m, n, k) = (d0, d1, d2, d3).
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x4x8x16xbf16>, %[[K:[a-z0-9_]+]]: tensor<2x4x8x16xbf16>, %[[AT:[a-z0-9_]+]]: tensor<3x16x8xf32>, %[[B:[a-z0-9_]+]]: tensor<3x16x4xf32>)
// CHECK-DAG: %[[Q3:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
// CHECK-DAG: %[[K3:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%[[Q3]], %[[K3]] : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%{{.*}} : tensor<8x8x8xbf16>)
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x8x8xbf16>
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%[[AT]], %[[B]] : tensor<3x16x8xf32>, tensor<3x16x4xf32>)
func.func @batch_matmul(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xbf16>,
                        %at: tensor<3x16x8xf32>, %b: tensor<3x16x4xf32>)
    -> (tensor<2x4x8x8xbf16>, tensor<3x8x4xf32>) {
  %0 = gpt.matmul %q, %k transpose_rhs : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16> -> tensor<2x4x8x8xbf16>
  %1 = gpt.matmul %at, %b transpose_lhs : tensor<3x16x8xf32>, tensor<3x16x4xf32> -> tensor<3x8x4xf32>
  return %0, %1 : tensor<2x4x8x8xbf16>, tensor<3x8x4xf32>
}

//===----------------------------------------------------------------------===//
// Generators and scans
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @generators
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<4x8xi32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[I32:.*]] = arith.trunci %[[I64]] : i64 to i32
// CHECK-NEXT: linalg.yield %[[I32]]
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[C]]
func.func @generators() -> (tensor<4x8xi32>, tensor<4xf32>) {
  %0 = gpt.iota dim = 1 : tensor<4x8xi32>
  %1 = gpt.constant dense<2.0> : tensor<4xf32>
  return %0, %1 : tensor<4x8xi32>, tensor<4xf32>
}

// cumsum: a loop over the scanned dimension carrying the running sum.
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x64xi32>)
// CHECK-DAG: %[[ACC0:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<2x1xi32>)
// CHECK-DAG: %[[OUT0:.*]] = tensor.empty() : tensor<2x64xi32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[R:.*]]:2 = scf.for %[[IV:.*]] = %[[C0]] to %[[C64]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[ACC0]], %[[OUT:.*]] = %[[OUT0]])
// CHECK-NEXT: %[[COL:.*]] = tensor.extract_slice %[[X]][0, %[[IV]]] [2, 1] [1, 1]
// The running sum acc + column (whichever of the two is the init operand).
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-DAG: %[[ACC]]
// CHECK-DAG: %[[COL]]
// CHECK: arith.addi
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[SUM]] into %[[OUT]][0, %[[IV]]] [2, 1] [1, 1]
// CHECK-NEXT: scf.yield %[[SUM]], %[[INS]]
// CHECK: return %[[R]]#1
func.func @cumsum(%x: tensor<2x64xi32>) -> tensor<2x64xi32> {
  %0 = gpt.cumsum %x dim = 1 : tensor<2x64xi32>
  return %0 : tensor<2x64xi32>
}

//===----------------------------------------------------------------------===//
// Gathers and scatters
//===----------------------------------------------------------------------===//

// embedding: a parallel generic over [B, T, D] reading the ids and
// extracting from the table.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[W:[a-z0-9_]+]]: tensor<16x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x3xi32>)
// CHECK-NEXT: ^bb0(%[[ID:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<16x4xf32>
// CHECK-NEXT: linalg.yield %[[V]]
func.func @embedding(%wte: tensor<16x4xf32>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = gpt.embedding %wte[%ids] : tensor<16x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// A table widened from bf16 (a parameter stored as bf16) is gathered as
// stored, each element widened where it is read: no pass over the table
// (the cast's own generic, left without uses, is canonicalize's to erase).
// CHECK-LABEL: func.func @embedding_of_bf16
// CHECK-SAME: (%[[W:[a-z0-9_]+]]: tensor<16x4xbf16>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[IDS]] : tensor<2x3xi32>)
// CHECK: %[[V:.*]] = tensor.extract %[[W]][%{{.*}}, %{{.*}}] : tensor<16x4xbf16>
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: linalg.yield %[[WIDE]]
func.func @embedding_of_bf16(%wte: tensor<16x4xbf16>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %w = gpt.cast %wte : tensor<16x4xbf16> to tensor<16x4xf32>
  %0 = gpt.embedding %w[%ids] : tensor<16x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// An f64 bundle widens bf16 through f32: both steps in the gather.
// CHECK-LABEL: func.func @embedding_of_bf16_in_f64
// CHECK: %[[V:.*]] = tensor.extract %{{.*}} : tensor<16x4xbf16>
// CHECK-NEXT: %[[F:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[D:.*]] = arith.extf %[[F]] : f32 to f64
// CHECK-NEXT: linalg.yield %[[D]]
func.func @embedding_of_bf16_in_f64(%wte: tensor<16x4xbf16>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xf64> {
  %w32 = gpt.cast %wte : tensor<16x4xbf16> to tensor<16x4xf32>
  %w = gpt.cast %w32 : tensor<16x4xf32> to tensor<16x4xf64>
  %0 = gpt.embedding %w[%ids] : tensor<16x4xf64>, tensor<2x3xi32> -> tensor<2x3x4xf64>
  return %0 : tensor<2x3x4xf64>
}

// Must not fire: a narrowing cast is no widening; the table is rounded by
// its own kernel and gathered as the embedding's type.
// CHECK-LABEL: func.func @embedding_of_narrowed
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x4xf32>) outs(%{{.*}} : tensor<16x4xbf16>)
// CHECK: tensor.extract %{{.*}} : tensor<16x4xbf16>
// CHECK-NEXT: linalg.yield
func.func @embedding_of_narrowed(%wte: tensor<16x4xf32>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xbf16> {
  %w = gpt.cast %wte : tensor<16x4xf32> to tensor<16x4xbf16>
  %0 = gpt.embedding %w[%ids] : tensor<16x4xbf16>, tensor<2x3xi32> -> tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// embedding_grad: zeros, then a serial loop over the 6 positions adding each
// gradient row into the row its id names (ids may repeat).
// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK-DAG: %[[G2:.*]] = tensor.expand_shape %{{.*}} output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK-DAG: %[[IDS1:.*]] = tensor.collapse_shape %[[IDS]] {{\[}}[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK-DAG: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[R:.*]] = scf.for %[[N:.*]] = %{{.*}} to %[[C6]] step %{{.*}} iter_args(%[[T:.*]] = %[[ZEROS]]) -> (tensor<16x4xf32>)
// CHECK-NEXT: %[[ID:.*]] = tensor.extract %[[IDS1]][%[[N]]] : tensor<6xi32>
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[GROW:.*]] = tensor.extract_slice %[[G2]][%[[N]], 0] [1, 4] [1, 1]
// CHECK-NEXT: %[[TROW:.*]] = tensor.extract_slice %[[T]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[TROW]], %[[GROW]] : tensor<1x4xf32>, tensor<1x4xf32>)
// CHECK: arith.addf
// CHECK: %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[T]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK-NEXT: scf.yield %[[NEW]]
// CHECK: return %[[R]]
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>) -> tensor<16x4xf32> {
  %0 = gpt.embedding_grad %g[%ids] : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// gather_last reads input[i, index[i]]; scatter_last writes g where the
// last index equals index[...], zero elsewhere.
// CHECK-LABEL: func.func @gather_scatter_last
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x5xf32>, %[[T:[a-z0-9_]+]]: tensor<2xi32>, %[[G:[a-z0-9_]+]]: tensor<2xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[T]] : tensor<2xi32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J:.*]] = arith.index_cast
// CHECK-NEXT: tensor.extract %[[X]][%[[I]], %[[J]]] : tensor<2x5xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[T]] : tensor<2xf32>, tensor<2xi32>)
// CHECK-NEXT: ^bb0(%[[GV:.*]]: f32, %{{.*}}: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[V:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[TI:.*]] = arith.index_cast
// CHECK-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[V]], %[[TI]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[HIT]], %[[GV]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
func.func @gather_scatter_last(%x: tensor<2x5xf32>, %t: tensor<2xi32>, %g: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2x5xf32>) {
  %0 = gpt.gather_last %x[%t] : tensor<2x5xf32>, tensor<2xi32> -> tensor<2xf32>
  %1 = gpt.scatter_last %g[%t] : tensor<2xf32>, tensor<2xi32> -> tensor<2x5xf32>
  return %0, %1 : tensor<2xf32>, tensor<2x5xf32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// broadcast: the size-1 dimension is read at index 0.
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<2x1xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @broadcast(%x: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = gpt.broadcast %x : tensor<2x1xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// reshape: collapse to rank 1, expand to the new shape (views); to and from
// rank 0 with an empty reassociation. transpose: linalg.transpose.
// CHECK-LABEL: func.func @reshape_transpose
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x8x64xf32>, %[[S:[a-z0-9_]+]]: tensor<1x1xf32>, %[[Z:[a-z0-9_]+]]: tensor<f32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x8x64xf32> into tensor<1024xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1, 2, 3]] output_shape [2, 8, 4, 16] : tensor<1024xf32> into tensor<2x8x4x16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x64x8xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x8x64xf32>) outs(%[[E]] : tensor<2x64x8xf32>) permutation = [0, 2, 1]
// CHECK: %[[S0:.*]] = tensor.collapse_shape %[[S]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[S2:.*]] = tensor.expand_shape %[[Z]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
// CHECK: return %[[R]], %[[T]], %[[S0]], %[[S2]]
func.func @reshape_transpose(%x: tensor<2x8x64xf32>, %s: tensor<1x1xf32>, %z: tensor<f32>)
    -> (tensor<2x8x4x16xf32>, tensor<2x64x8xf32>, tensor<f32>, tensor<1x1x1xf32>) {
  %0 = gpt.reshape %x : tensor<2x8x64xf32> to tensor<2x8x4x16xf32>
  %1 = gpt.transpose %x permutation = [0, 2, 1] : tensor<2x8x64xf32> to tensor<2x64x8xf32>
  %2 = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  %3 = gpt.reshape %z : tensor<f32> to tensor<1x1x1xf32>
  return %0, %1, %2, %3 : tensor<2x8x4x16xf32>, tensor<2x64x8xf32>, tensor<f32>, tensor<1x1x1xf32>
}

// slice / split: extract_slice; pad: insert_slice into zeros; concat:
// insert_slices into an empty tensor.
// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x8x64xf32>)
// CHECK: %[[SL:.*]] = tensor.extract_slice %[[X]][0, 0, 32] [2, 8, 32] [1, 1, 1] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8x96xf32>)
// CHECK-NEXT: %[[PAD:.*]] = tensor.insert_slice %[[SL]] into %[[Z]][0, 0, 64] [2, 8, 32] [1, 1, 1]
// CHECK-NEXT: %[[P0:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 8, 32] [1, 1, 1]
// CHECK-NEXT: %[[P1:.*]] = tensor.extract_slice %[[X]][0, 0, 32] [2, 8, 32] [1, 1, 1]
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x8x64xf32>
// CHECK-NEXT: %[[C0:.*]] = tensor.insert_slice %[[P1]] into %[[E]][0, 0, 0] [2, 8, 32] [1, 1, 1]
// CHECK-NEXT: %[[C1:.*]] = tensor.insert_slice %[[P0]] into %[[C0]][0, 0, 32] [2, 8, 32] [1, 1, 1]
// CHECK-NEXT: return %[[SL]], %[[PAD]], %[[C1]]
func.func @slices(%x: tensor<2x8x64xf32>)
    -> (tensor<2x8x32xf32>, tensor<2x8x96xf32>, tensor<2x8x64xf32>) {
  %0 = gpt.slice %x offsets = [0, 0, 32] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
  %1 = gpt.pad %0 offsets = [0, 0, 64] : tensor<2x8x32xf32> to tensor<2x8x96xf32>
  %a, %b = gpt.split %x dim = 2 : tensor<2x8x64xf32> -> tensor<2x8x32xf32>, tensor<2x8x32xf32>
  %2 = gpt.concat %b, %a dim = 2 : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  return %0, %1, %2 : tensor<2x8x32xf32>, tensor<2x8x96xf32>, tensor<2x8x64xf32>
}

//===----------------------------------------------------------------------===//
// Must not fire: ops of other dialects are left as they are
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @not_gpt
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[I:[a-z0-9_]+]]: index)
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[A]] : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[S]][%[[I]]] : tensor<4xf32>
// CHECK-NEXT: return %[[S]], %[[E]]
func.func @not_gpt(%a: tensor<4xf32>, %i: index) -> (tensor<4xf32>, f32) {
  %0 = arith.addf %a, %a : tensor<4xf32>
  %1 = tensor.extract %0[%i] : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, f32
}
