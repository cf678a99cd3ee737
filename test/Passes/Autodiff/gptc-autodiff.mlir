// RUN: gptc-opt %s -split-input-file --gptc-autodiff | FileCheck %s

// gptc-autodiff: @forward (loss) => @forward_grad (loss, d loss / d param for
// every gpt.param argument, in argument order). One case per differentiable
// op: the VJP ops it writes in @forward_grad. Elementwise ops are
// differentiated on 0-d tensors, so the seed gradient (a 1.0 constant) is
// their result gradient `g` directly; the others reach the loss through a
// `reduce sum` + `reshape`, so `g` is a broadcast of the seed.
// The last cases are the must-not-fire ones (activity analysis).

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

// d(a + b) = (g, g): no op, both gradients are the seed.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK: %[[Y:.*]] = gpt.add
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[G]], %[[G]]
func.func @forward(%a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.add %a, %b : tensor<f32>
  return %r : tensor<f32>
}

// -----

// d(a - b) = (g, -g)
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DB:.*]] = gpt.neg %[[G]]
// CHECK-NEXT: return %{{.*}}, %[[G]], %[[DB]]
func.func @forward(%a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.sub %a, %b : tensor<f32>
  return %r : tensor<f32>
}

// -----

// d(a * b) = (g b, g a)
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<f32> {{.*}}, [[B:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DA:.*]] = gpt.mul %[[G]], [[B]]
// CHECK-NEXT: %[[DB:.*]] = gpt.mul %[[G]], [[A]]
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.mul %a, %b : tensor<f32>
  return %r : tensor<f32>
}

// -----

// d(a / b) = (g / b, -(g / b) y)
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<f32> {{.*}}, [[B:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[Y:.*]] = gpt.div [[A]], [[B]]
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DA:.*]] = gpt.div %[[G]], [[B]]
// CHECK-NEXT: %[[T:.*]] = gpt.mul %[[DA]], %[[Y]]
// CHECK-NEXT: %[[DB:.*]] = gpt.neg %[[T]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @forward(%a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.div %a, %b : tensor<f32>
  return %r : tensor<f32>
}

// -----

// d max(a, b) = (g [a >= b], g [a < b]): ties go to the left operand.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<f32> {{.*}}, [[B:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[Z:.*]] = gpt.constant dense<0.000000e+00>
// CHECK-NEXT: %[[M:.*]] = gpt.compare ge, [[A]], [[B]]
// CHECK-NEXT: %[[DA:.*]] = gpt.select %[[M]], %[[G]], %[[Z]]
// CHECK-NEXT: %[[DB:.*]] = gpt.select %[[M]], %[[Z]], %[[G]]
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.max %a, %b : tensor<f32>
  return %r : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// -----

// d(-x) = -g
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.neg %[[G]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.neg %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d exp(x) = g y
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.exp
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[Y]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.exp %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d log(x) = g / x
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.div %[[G]], [[X]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.log %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d sqrt(x) = (g / 2) / y
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.sqrt
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[H:.*]] = gpt.mul_scalar %[[G]], 5.000000e-01
// CHECK-NEXT: %[[DX:.*]] = gpt.div %[[H]], %[[Y]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.sqrt %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d rsqrt(x) = -g y^3 / 2
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.rsqrt
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[Y2:.*]] = gpt.square %[[Y]]
// CHECK-NEXT: %[[Y3:.*]] = gpt.mul %[[Y2]], %[[Y]]
// CHECK-NEXT: %[[GY3:.*]] = gpt.mul %[[G]], %[[Y3]]
// CHECK-NEXT: %[[DX:.*]] = gpt.mul_scalar %[[GY3]], -5.000000e-01
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.rsqrt %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d tanh(x) = g (1 - y^2)
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.tanh
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[Y2:.*]] = gpt.square %[[Y]]
// CHECK-NEXT: %[[N:.*]] = gpt.neg %[[Y2]]
// CHECK-NEXT: %[[D:.*]] = gpt.add_scalar %[[N]], 1.000000e+00
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.tanh %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d sigmoid(x) = g y (1 - y)
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.sigmoid
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[N:.*]] = gpt.neg %[[Y]]
// CHECK-NEXT: %[[OM:.*]] = gpt.add_scalar %[[N]], 1.000000e+00
// CHECK-NEXT: %[[D:.*]] = gpt.mul %[[Y]], %[[OM]]
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.sigmoid %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d x^2 = 2 g x
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[GX:.*]] = gpt.mul %[[G]], [[X]]
// CHECK-NEXT: %[[DX:.*]] = gpt.mul_scalar %[[GX]], 2.000000e+00
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.square %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d relu(x) = g [x > 0]
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[Z:.*]] = gpt.constant dense<0.000000e+00>
// CHECK-NEXT: %[[P:.*]] = gpt.compare gt, [[X]], %[[Z]]
// CHECK-NEXT: %[[DX:.*]] = gpt.select %[[P]], %[[G]], %[[Z]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.relu %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d gelu(x) = g (Phi(x) + x phi(x)), Phi(x) = (1 + erf(x / sqrt 2)) / 2,
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[S:.*]] = gpt.mul_scalar [[X]], 0.70710678118654746
// CHECK-NEXT: %[[E:.*]] = gpt.erf %[[S]]
// CHECK-NEXT: %[[E1:.*]] = gpt.add_scalar %[[E]], 1.000000e+00
// CHECK-NEXT: %[[CDF:.*]] = gpt.mul_scalar %[[E1]], 5.000000e-01
// CHECK-NEXT: %[[X2:.*]] = gpt.square [[X]]
// CHECK-NEXT: %[[H:.*]] = gpt.mul_scalar %[[X2]], -5.000000e-01
// CHECK-NEXT: %[[EX:.*]] = gpt.exp %[[H]]
// CHECK-NEXT: %[[PDF:.*]] = gpt.mul_scalar %[[EX]], 0.3989422804014327
// CHECK-NEXT: %[[XPDF:.*]] = gpt.mul [[X]], %[[PDF]]
// CHECK-NEXT: %[[D:.*]] = gpt.add %[[CDF]], %[[XPDF]]
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[D]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.gelu %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d erf(x) = g 2 / sqrt(pi) exp(-x^2)
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[X2:.*]] = gpt.square [[X]]
// CHECK-NEXT: %[[N:.*]] = gpt.neg %[[X2]]
// CHECK-NEXT: %[[E:.*]] = gpt.exp %[[N]]
// CHECK-NEXT: %[[D:.*]] = gpt.mul_scalar %[[E]], 1.1283791670955126
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[D]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.erf %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d cos(x) = -(g sin(x))
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[S:.*]] = gpt.sin [[X]]
// CHECK-NEXT: %[[GS:.*]] = gpt.mul %[[G]], %[[S]]
// CHECK-NEXT: %[[DX:.*]] = gpt.neg %[[GS]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.cos %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d sin(x) = g cos(x)
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[C:.*]] = gpt.cos [[X]]
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[C]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.sin %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d (c x) = c g
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.mul_scalar %[[G]], 3.000000e+00
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.mul_scalar %x, 3.0 : tensor<f32>
  return %y : tensor<f32>
}

// -----

// d (x + c) = g: the gradient of exp passes through unchanged.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[Y:.*]] = gpt.exp
// CHECK-NEXT: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[Y]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %s = gpt.add_scalar %x, 3.0 : tensor<f32>
  %y = gpt.exp %s : tensor<f32>
  return %y : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Choice and conversion
//===----------------------------------------------------------------------===//

// -----

// d select(c, t, f) = (none, g [c], g [!c]); the condition is not a
// parameter and has no gradient result.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[C:%arg[0-9]+]]: tensor<i1> {gpt.name = "c"}
// CHECK-SAME: -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[Z:.*]] = gpt.constant dense<0.000000e+00>
// CHECK-NEXT: %[[DT:.*]] = gpt.select [[C]], %[[G]], %[[Z]]
// CHECK-NEXT: %[[DF:.*]] = gpt.select [[C]], %[[Z]], %[[G]]
// CHECK-NEXT: return %{{.*}}, %[[DT]], %[[DF]]
func.func @forward(%c: tensor<i1> {gpt.name = "c"},
                   %a: tensor<f32> {gpt.name = "a", gpt.param},
                   %b: tensor<f32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %r = gpt.select %c, %a, %b : tensor<i1>, tensor<f32>
  return %r : tensor<f32>
}

// -----

// d cast(x) = g cast back to the input's element type.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: -> (tensor<f32>, tensor<bf16>)
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:.*]] = gpt.cast %[[G]] : tensor<f32> to tensor<bf16>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<bf16> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.cast %x : tensor<bf16> to tensor<f32>
  return %y : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

// d sum = g broadcast back to the input shape (here g itself comes from the
// 0-d seed reshaped to the kept-dims shape).
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[SEED:.*]] = gpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = gpt.reshape %[[SEED]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.broadcast %[[R]] : tensor<1x1xf32> to tensor<2x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x3xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %s = gpt.reduce sum %x dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d mean = broadcast(g) / n, n = 6.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[B:.*]] = gpt.broadcast %{{.*}} : tensor<1x1xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.mul_scalar %[[B]], 0.16666666666666666
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x3xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %s = gpt.reduce mean %x dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d max = broadcast(g / ties) where x equals the (broadcast) max, 0
// elsewhere: elements tied for the max share the gradient.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<2x3xf32>
// CHECK: %[[MX:.*]] = gpt.reduce max [[X]]
// CHECK: %[[G:.*]] = gpt.reshape %{{.*}} : tensor<f32> to tensor<1x1xf32>
// CHECK: %[[MB:.*]] = gpt.broadcast %[[MX]] : tensor<1x1xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[EQ:.*]] = gpt.compare eq, [[X]], %[[MB]]
// CHECK-NEXT: %[[ONE:.*]] = gpt.cast %[[EQ]] : tensor<2x3xi1> to tensor<2x3xf32>
// CHECK-NEXT: %[[TIES:.*]] = gpt.reduce sum %[[ONE]] dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[SH:.*]] = gpt.div %[[G]], %[[TIES]] : tensor<1x1xf32>
// CHECK-NEXT: %[[SB:.*]] = gpt.broadcast %[[SH]] : tensor<1x1xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[Z:.*]] = gpt.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.select %[[EQ]], %[[SB]], %[[Z]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x3xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %s = gpt.reduce max %x dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Matmul: the four transpose combinations and a shared rank-2 rhs
//===----------------------------------------------------------------------===//

// -----

// C = A B: dA = g B^T, dB = A^T g.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<2x3xf32> {{.*}}, [[B:%arg[0-9]+]]: tensor<3x4xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DA:.*]] = gpt.matmul %[[G]], [[B]] transpose_rhs : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[DB:.*]] = gpt.matmul [[A]], %[[G]] transpose_lhs : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<2x3xf32> {gpt.name = "a", gpt.param},
                   %b: tensor<3x4xf32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// C = A^T B: dA = B g^T, dB = A g.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<3x2xf32> {{.*}}, [[B:%arg[0-9]+]]: tensor<3x4xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DA:.*]] = gpt.matmul [[B]], %[[G]] transpose_rhs : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[DB:.*]] = gpt.matmul [[A]], %[[G]] : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<3x2xf32> {gpt.name = "a", gpt.param},
                   %b: tensor<3x4xf32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %a, %b transpose_lhs : tensor<3x2xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// C = A B^T: dA = g B, dB = g^T A.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<2x3xf32> {{.*}}, [[B:%arg[0-9]+]]: tensor<4x3xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DA:.*]] = gpt.matmul %[[G]], [[B]] : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[DB:.*]] = gpt.matmul %[[G]], [[A]] transpose_lhs : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<2x3xf32> {gpt.name = "a", gpt.param},
                   %b: tensor<4x3xf32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %a, %b transpose_rhs : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// C = A^T B^T: dA = B^T g^T, dB = g^T A^T.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[A:%arg[0-9]+]]: tensor<3x2xf32> {{.*}}, [[B:%arg[0-9]+]]: tensor<4x3xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DA:.*]] = gpt.matmul [[B]], %[[G]] transpose_lhs transpose_rhs : tensor<4x3xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[DB:.*]] = gpt.matmul %[[G]], [[A]] transpose_lhs transpose_rhs : tensor<2x4xf32>, tensor<3x2xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<3x2xf32> {gpt.name = "a", gpt.param},
                   %b: tensor<4x3xf32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %a, %b transpose_lhs transpose_rhs : tensor<3x2xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A linear layer x W^T with W shared by the batch: dx = g W (batched), dW is
// accumulated over the batch by flattening it: dW = g2^T x2.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<5x2x3xf32> {{.*}}, [[W:%arg[0-9]+]]: tensor<4x3xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<5x2x4xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.matmul %[[G]], [[W]] : tensor<5x2x4xf32>, tensor<4x3xf32> -> tensor<5x2x3xf32>
// CHECK-NEXT: %[[X2:.*]] = gpt.reshape [[X]] : tensor<5x2x3xf32> to tensor<10x3xf32>
// CHECK-NEXT: %[[G2:.*]] = gpt.reshape %[[G]] : tensor<5x2x4xf32> to tensor<10x4xf32>
// CHECK-NEXT: %[[DW:.*]] = gpt.matmul %[[G2]], %[[X2]] transpose_lhs : tensor<10x4xf32>, tensor<10x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @forward(%x: tensor<5x2x3xf32> {gpt.name = "x", gpt.param},
                   %w: tensor<4x3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %x, %w transpose_rhs : tensor<5x2x3xf32>, tensor<4x3xf32> -> tensor<5x2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1, 2] : tensor<5x2x4xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// x W with W [K, N] shared: dW = x2^T g2.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<5x2x3xf32> {{.*}}, [[W:%arg[0-9]+]]: tensor<3x4xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<5x2x4xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.matmul %[[G]], [[W]] transpose_rhs : tensor<5x2x4xf32>, tensor<3x4xf32> -> tensor<5x2x3xf32>
// CHECK-NEXT: %[[X2:.*]] = gpt.reshape [[X]] : tensor<5x2x3xf32> to tensor<10x3xf32>
// CHECK-NEXT: %[[G2:.*]] = gpt.reshape %[[G]] : tensor<5x2x4xf32> to tensor<10x4xf32>
// CHECK-NEXT: %[[DW:.*]] = gpt.matmul %[[X2]], %[[G2]] transpose_lhs : tensor<10x3xf32>, tensor<10x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @forward(%x: tensor<5x2x3xf32> {gpt.name = "x", gpt.param},
                   %w: tensor<3x4xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %c = gpt.matmul %x, %w : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1, 2] : tensor<5x2x4xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Gathers and data movement
//===----------------------------------------------------------------------===//

// -----

// d table = embedding_grad (scatter-add of g's rows at ids); the ids are not
// a parameter and get no gradient result.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[IDS:%arg[0-9]+]]: tensor<2x3xi32> {gpt.name = "ids"}
// CHECK-SAME: -> (tensor<f32>, tensor<10x4xf32>)
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x3x4xf32>
// CHECK-NEXT: %[[DW:.*]] = gpt.embedding_grad %[[G]][[[IDS]]] : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DW]]
func.func @forward(%ids: tensor<2x3xi32> {gpt.name = "ids"},
                   %wte: tensor<10x4xf32> {gpt.name = "wte", gpt.param}) -> tensor<f32> {
  %e = gpt.embedding %wte[%ids] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %s = gpt.reduce sum %e dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d gather_last = scatter_last of g at the same index.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: [[T:%arg[0-9]+]]: tensor<2xi32> {gpt.name = "t"}
// CHECK-SAME: -> (tensor<f32>, tensor<2x5xf32>)
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.scatter_last %[[G]][[[T]]] : tensor<2xf32>, tensor<2xi32> -> tensor<2x5xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x5xf32> {gpt.name = "x", gpt.param},
                   %t: tensor<2xi32> {gpt.name = "t"}) -> tensor<f32> {
  %g = gpt.gather_last %x[%t] : tensor<2x5xf32>, tensor<2xi32> -> tensor<2xf32>
  %s = gpt.reduce sum %g dims = [0] : tensor<2xf32> -> tensor<1xf32>
  %l = gpt.reshape %s : tensor<1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d broadcast = sum of g over the broadcast dimensions (here dim 1).
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} : tensor<1x1xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.reduce sum %[[G]] dims = [1] : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x1xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %b = gpt.broadcast %x : tensor<2x1xf32> to tensor<2x3xf32>
  %s = gpt.reduce sum %b dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d reshape = g reshaped back.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<6xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.reshape %[[G]] : tensor<6xf32> to tensor<2x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x3xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %r = gpt.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %s = gpt.reduce sum %r dims = [0] : tensor<6xf32> -> tensor<1xf32>
  %l = gpt.reshape %s : tensor<1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d transpose = g transposed by the inverse permutation ([1, 2, 0]^-1).
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<3x4x2xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.transpose %[[G]] permutation = [2, 0, 1] : tensor<3x4x2xf32> to tensor<2x3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x3x4xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %t = gpt.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %s = gpt.reduce sum %t dims = [0, 1, 2] : tensor<3x4x2xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d slice = g padded with zeros at the same offsets.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.pad %[[G]] offsets = [0, 4] : tensor<2x3xf32> to tensor<2x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x8xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %h = gpt.slice %x offsets = [0, 4] : tensor<2x8xf32> to tensor<2x3xf32>
  %s = gpt.reduce sum %h dims = [0, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d concat = the slices of g that each input became.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x8xf32>
// CHECK-NEXT: %[[DA:.*]] = gpt.slice %[[G]] offsets = [0, 0] : tensor<2x8xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[DB:.*]] = gpt.slice %[[G]] offsets = [0, 3] : tensor<2x8xf32> to tensor<2x5xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @forward(%a: tensor<2x3xf32> {gpt.name = "a", gpt.param},
                   %b: tensor<2x5xf32> {gpt.name = "b", gpt.param}) -> tensor<f32> {
  %c = gpt.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %s = gpt.reduce sum %c dims = [0, 1] : tensor<2x8xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// d split = the parts' gradients concatenated; the parts that do not reach
// the loss (here the first and the last) contribute zeros.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[E:.*]] = gpt.exp %{{.*}}#1
// CHECK: %[[DK:.*]] = gpt.mul %{{.*}}, %[[E]] : tensor<2x2xf32>
// CHECK-NEXT: %[[Z0:.*]] = gpt.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: %[[Z2:.*]] = gpt.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.concat %[[Z0]], %[[DK]], %[[Z2]] dim = 1 : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x6xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %q, %k, %v = gpt.split %x dim = 1 : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  %e = gpt.exp %k : tensor<2x2xf32>
  %s = gpt.reduce sum %e dims = [0, 1] : tensor<2x2xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Fused rotary: the rotation is orthogonal, dx = the inverse rotary of dy;
// the tables (constants of the positions) get no gradient.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<1x2x1x4xf32> {{.*}}, [[C:%arg[0-9]+]]: tensor<1x2x1x2xf32>, [[S:%arg[0-9]+]]: tensor<1x2x1x2xf32>)
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<1x2x1x4xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.rotary %[[G]], [[C]], [[S]] inverse : tensor<1x2x1x4xf32>, tensor<1x2x1x2xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<1x2x1x4xf32> {gpt.name = "x", gpt.param},
                   %c: tensor<1x2x1x2xf32>, %s: tensor<1x2x1x2xf32>) -> tensor<f32> {
  %y = gpt.rotary %x, %c, %s : tensor<1x2x1x4xf32>, tensor<1x2x1x2xf32>
  %r = gpt.reduce sum %y dims = [0, 1, 2, 3] : tensor<1x2x1x4xf32> -> tensor<1x1x1x1xf32>
  %l = gpt.reshape %r : tensor<1x1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Fused RMSNorm: y = x r w, r = rsqrt(mean(x^2) + eps)
//   dx = gpt.rms_norm_grad (r g w - x r^3 mean(g w x), one pass per row),
//   dw = sum over rows of g x r (x r recomputed as an unweighted rms_norm)
//===----------------------------------------------------------------------===//

// -----

// Plain.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<2x4xf32>
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.rms_norm_grad [[X]], %[[G]] eps = 9.9999999999999995E-7 : tensor<2x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<2x4xf32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.rms_norm %x eps = 1.0e-6 : tensor<2x4xf32>
  %s = gpt.reduce sum %y dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// With a residual: x and res share dx.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<2x4xf32> {{.*}}, [[RES:%arg[0-9]+]]: tensor<2x4xf32>
// CHECK: %[[DX:.*]] = gpt.rms_norm_grad [[X]], %{{.*}} residual [[RES]] : tensor<2x4xf32> eps
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DX]]
func.func @forward(%x: tensor<2x4xf32> {gpt.name = "x", gpt.param},
                   %r: tensor<2x4xf32> {gpt.name = "r", gpt.param}) -> tensor<f32> {
  %y = gpt.rms_norm %x residual %r : tensor<2x4xf32> eps = 1.0e-6 : tensor<2x4xf32>
  %s = gpt.reduce sum %y dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// With a weight: dw sums g x r over the rows and reshapes to the weight's
// shape.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<2x4xf32> {{.*}}, [[W:%arg[0-9]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32>, tensor<4xf32>)
// CHECK: %[[G:.*]] = gpt.broadcast %{{.*}} : tensor<1x1xf32> to tensor<2x4xf32>
// CHECK-NEXT: %[[DX:.*]] = gpt.rms_norm_grad [[X]], %[[G]] weight [[W]] : tensor<4xf32> eps
// CHECK-NEXT: %[[XR:.*]] = gpt.rms_norm [[X]] eps
// CHECK-NEXT: %[[GXR:.*]] = gpt.mul %[[G]], %[[XR]]
// CHECK-NEXT: %[[SUM:.*]] = gpt.reduce sum %[[GXR]] dims = [0] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[DW:.*]] = gpt.reshape %[[SUM]] : tensor<1x4xf32> to tensor<4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @forward(%x: tensor<2x4xf32> {gpt.name = "x", gpt.param},
                   %w: tensor<4xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %y = gpt.rms_norm %x weight %w : tensor<4xf32> eps = 1.0e-6 : tensor<2x4xf32>
  %s = gpt.reduce sum %y dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// Residual and weight: three gradients, x and res sharing dx.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<2x4xf32> {{.*}}, [[RES:%arg[0-9]+]]: tensor<2x4xf32> {{.*}}, [[W:%arg[0-9]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>)
// CHECK: %[[DX:.*]] = gpt.rms_norm_grad [[X]], %{{.*}} residual [[RES]] : tensor<2x4xf32> weight [[W]] : tensor<4xf32> eps
// CHECK-NEXT: %[[XR:.*]] = gpt.rms_norm [[X]] residual [[RES]] : tensor<2x4xf32> eps
// CHECK-NEXT: %[[GXR:.*]] = gpt.mul %{{.*}}, %[[XR]]
// CHECK-NEXT: %[[SUM:.*]] = gpt.reduce sum %[[GXR]] dims = [0]
// CHECK-NEXT: %[[DW:.*]] = gpt.reshape %[[SUM]] : tensor<1x4xf32> to tensor<4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DX]], %[[DW]]
func.func @forward(%x: tensor<2x4xf32> {gpt.name = "x", gpt.param},
                   %r: tensor<2x4xf32> {gpt.name = "r", gpt.param},
                   %w: tensor<4xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %y = gpt.rms_norm %x residual %r : tensor<2x4xf32> weight %w : tensor<4xf32> eps = 1.0e-6 : tensor<2x4xf32>
  %s = gpt.reduce sum %y dims = [0, 1] : tensor<2x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Accumulation and activity analysis (must not fire)
//===----------------------------------------------------------------------===//

// -----

// A parameter used twice: the two contributions are added.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<f32>
// CHECK: %[[E:.*]] = gpt.exp [[X]]
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[C:.*]] = gpt.cos [[X]]
// CHECK-NEXT: %[[D1:.*]] = gpt.mul %[[G]], %[[C]]
// CHECK-NEXT: %[[D2:.*]] = gpt.mul %[[G]], %[[E]]
// CHECK-NEXT: %[[DX:.*]] = gpt.add %[[D1]], %[[D2]]
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %a = gpt.exp %x : tensor<f32>
  %b = gpt.sin %x : tensor<f32>
  %y = gpt.add %a, %b : tensor<f32>
  return %y : tensor<f32>
}

// -----

// sin(c) does not depend on a parameter: it is not differentiated (no
// gpt.cos), and the non-parameter c gets no gradient result.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: -> (tensor<f32>, tensor<f32>)
// CHECK: %[[S:.*]] = gpt.sin
// CHECK: %[[G:.*]] = gpt.constant dense<1.000000e+00>
// CHECK-NEXT: %[[DX:.*]] = gpt.mul %[[G]], %[[S]]
// CHECK-NOT: gpt.cos
// CHECK: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<f32>
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param},
                   %c: tensor<f32> {gpt.name = "c"}) -> tensor<f32> {
  %s = gpt.sin %c : tensor<f32>
  %y = gpt.mul %x, %s : tensor<f32>
  return %y : tensor<f32>
}

// -----

// A parameter that does not reach the loss gets a zero gradient; a
// non-differentiable op (gpt.attention) off the loss path is no error.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: -> (tensor<f32>, tensor<f32>, tensor<1x1x2x4xf32>)
// CHECK: %[[DX:.*]] = gpt.mul %
// CHECK-NEXT: %[[DU:.*]] = gpt.constant dense<0.000000e+00> : tensor<1x1x2x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DU]]
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param},
                   %u: tensor<1x1x2x4xf32> {gpt.name = "u", gpt.param}) -> tensor<f32> {
  %o:2 = gpt.attention %u, %u, %u mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.5 : tensor<1x1x2x4xf32>
  %y = gpt.exp %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// A loss that depends on no parameter: no backward ops, zero gradients.
// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[L:.*]] = gpt.exp
// CHECK-NEXT: %[[ONE:.*]] = gpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DW:.*]] = gpt.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[L]], %[[DW]] : tensor<f32>, tensor<3xf32>
func.func @forward(%c: tensor<f32> {gpt.name = "c"},
                   %w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %y = gpt.exp %c : tensor<f32>
  return %y : tensor<f32>
}

// -----

// Masks (i1) and positions (integers) computed from a parameter are
// constants to autodiff: the non-differentiable gpt.compare on the path is
// no error.
// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: ([[X:%arg[0-9]+]]: tensor<4xf32>
// CHECK: %[[M:.*]] = gpt.compare gt, [[X]]
// CHECK: gpt.select %[[M]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK-NOT: gpt.compare
// CHECK: return
func.func @forward(%x: tensor<4xf32> {gpt.name = "x", gpt.param},
                   %z: tensor<4xf32> {gpt.name = "z"}) -> tensor<f32> {
  %m = gpt.compare gt, %x, %z : tensor<4xf32> -> tensor<4xi1>
  %y = gpt.select %m, %x, %z : tensor<4xi1>, tensor<4xf32>
  %s = gpt.reduce sum %y dims = [0] : tensor<4xf32> -> tensor<1xf32>
  %l = gpt.reshape %s : tensor<1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// Only @forward is differentiated; other functions are left alone and the
// forward function is kept.
// CHECK-LABEL: func.func @forward(
// CHECK-LABEL: func.func @forward_grad(
// CHECK-LABEL: func.func @helper(
// CHECK-NOT: @helper_grad
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.exp %x : tensor<f32>
  return %y : tensor<f32>
}
func.func @helper(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
  %y = gpt.sin %x : tensor<f32>
  return %y : tensor<f32>
}
