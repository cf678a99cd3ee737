// The record_blocks window (R12-R15's FlexAttention BlockMask: the element
// rule q - k < W inside the 128-key blocks with q/128 - k/128 <
// ceil(W/128)), pinned at W = 64, 128 and 192 by the number of keys each
// query sees. With q = k = 0 every allowed key scores the same and v[j] = j,
// so the output of query i is the mean of its keys (first + i) / 2 and it
// sees 2 (i - o) + 1 keys. Rows 64h + {0, 1} (@first) and 64h + {62, 63}
// (@last) for the six half-blocks h of 384 queries.
//
// The fused op (reference semantics), the frontend's element graph
// interpreted as it stands, and that graph after gptc-fuse-attention (which
// must recognise it as record_blocks) print the same.
// RUN: gptc-ref-run --function=fused --arg=0=64 %s | FileCheck %s --check-prefix=W64
// RUN: gptc-ref-run --function=graph --arg=0=64 %s | FileCheck %s --check-prefix=W64
// RUN: gptc-opt --gptc-fuse-attention %s | gptc-ref-run --function=graph --arg=0=64 | FileCheck %s --check-prefix=W64
// W = 64, one block: a query sees its own block only, so 128a + 1 sees 2
// keys (the element rule alone: 64 from the second block on).
// W64:      result #0: tensor<6x2xf64>
// W64-NEXT: {{\[\[}}1, 2], [64, 64], [1, 2], [64, 64], [1, 2], [64, 64]]
// W64:      result #1: tensor<6x2xf64>
// W64-NEXT: {{\[\[}}63, 64], [64, 64], [63, 64], [64, 64], [63, 64], [64, 64]]

// RUN: gptc-ref-run --function=fused --arg=0=128 %s | FileCheck %s --check-prefix=W128
// RUN: gptc-ref-run --function=graph --arg=0=128 %s | FileCheck %s --check-prefix=W128
// RUN: gptc-opt --gptc-fuse-attention %s | gptc-ref-run --function=graph --arg=0=128 | FileCheck %s --check-prefix=W128
// W = 128, one block: the block rule alone cuts (128a + 127 - 127 = 128a).
// W128:      result #0: tensor<6x2xf64>
// W128-NEXT: {{\[\[}}1, 2], [65, 66], [1, 2], [65, 66], [1, 2], [65, 66]]
// W128:      result #1: tensor<6x2xf64>
// W128-NEXT: {{\[\[}}63, 64], [127, 128], [63, 64], [127, 128], [63, 64], [127, 128]]

// RUN: gptc-ref-run --function=fused --arg=0=192 %s | FileCheck %s --check-prefix=W192
// RUN: gptc-ref-run --function=graph --arg=0=192 %s | FileCheck %s --check-prefix=W192
// RUN: gptc-opt --gptc-fuse-attention %s | gptc-ref-run --function=graph --arg=0=192 | FileCheck %s --check-prefix=W192
// W = 192, two blocks: 128a sees back to 128 (a - 1), 129 keys; from
// 128a + 64 on the element rule cuts first (i - 191 > 128 (a - 1)).
// W192:      result #0: tensor<6x2xf64>
// W192-NEXT: {{\[\[}}1, 2], [65, 66], [129, 130], [192, 192], [129, 130], [192, 192]]
// W192:      result #1: tensor<6x2xf64>
// W192-NEXT: {{\[\[}}63, 64], [127, 128], [191, 192], [192, 192], [191, 192], [192, 192]]

// RUN: gptc-opt --gptc-fuse-attention %s | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: func.func @graph
// FUSED:         gpt.attention {{.*}} window %arg0 : tensor<i64> mask = <causal = true, window = record_blocks, bos = -1>

func.func @fused(%w: tensor<i64>) -> (tensor<6x2xf64>, tensor<6x2xf64>) {
  %q = gpt.constant dense<0.0> : tensor<1x1x384x1xf64>
  %v = gpt.iota dim = 2 : tensor<1x1x384x1xf64>
  %o:2 = gpt.attention %q, %q, %v window %w : tensor<i64>
      mask = #gpt.mask<causal = true, window = record_blocks, bos = -1>
      scale = 1.000000e+00 : tensor<1x1x384x1xf64>
  // 2 (i - o) + 1 for rows 64h + {0, 1} and 64h + {62, 63}.
  %dd = gpt.sub %v, %o#0 : tensor<1x1x384x1xf64>
  %two = gpt.constant dense<2.0> : tensor<1x1x384x1xf64>
  %one = gpt.constant dense<1.0> : tensor<1x1x384x1xf64>
  %d2 = gpt.mul %dd, %two : tensor<1x1x384x1xf64>
  %n = gpt.add %d2, %one : tensor<1x1x384x1xf64>
  %r = gpt.reshape %n : tensor<1x1x384x1xf64> to tensor<6x64xf64>
  %first = gpt.slice %r offsets = [0, 0] : tensor<6x64xf64> to tensor<6x2xf64>
  %last = gpt.slice %r offsets = [0, 62] : tensor<6x64xf64> to tensor<6x2xf64>
  return %first, %last : tensor<6x2xf64>, tensor<6x2xf64>
}

// As the frontend writes the mask (ForwardGen::attentionMask).
func.func @graph(%w: tensor<i64>) -> (tensor<6x2xf64>, tensor<6x2xf64>) {
  %q = gpt.constant dense<0.0> : tensor<1x1x384x1xf64>
  %v = gpt.iota dim = 2 : tensor<1x1x384x1xf64>
  %qk = gpt.matmul %q, %q transpose_rhs : tensor<1x1x384x1xf64>, tensor<1x1x384x1xf64> -> tensor<1x1x384x384xf64>
  %s = gpt.mul_scalar %qk, 1.000000e+00 : tensor<1x1x384x384xf64>
  %qp = gpt.iota dim = 2 : tensor<1x1x384x384xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x384x384xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x384x384xi64> -> tensor<1x1x384x384xi1>
  // q - k < W
  %dist = gpt.sub %qp, %kp : tensor<1x1x384x384xi64>
  %wr = gpt.reshape %w : tensor<i64> to tensor<1x1x1x1xi64>
  %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x384x384xi64>
  %inw = gpt.compare lt, %dist, %wb : tensor<1x1x384x384xi64> -> tensor<1x1x384x384xi1>
  %f = gpt.constant dense<false> : tensor<1x1x384x384xi1>
  %cw = gpt.select %causal, %inw, %f : tensor<1x1x384x384xi1>, tensor<1x1x384x384xi1>
  // q/128 - k/128 < (W + 127) / 128
  %c128 = gpt.constant dense<128> : tensor<1x1x384x384xi64>
  %qblk = gpt.div %qp, %c128 : tensor<1x1x384x384xi64>
  %kblk = gpt.div %kp, %c128 : tensor<1x1x384x384xi64>
  %bd = gpt.sub %qblk, %kblk : tensor<1x1x384x384xi64>
  %c127s = gpt.constant dense<127> : tensor<i64>
  %c128s = gpt.constant dense<128> : tensor<i64>
  %wup = gpt.add %w, %c127s : tensor<i64>
  %wblk = gpt.div %wup, %c128s : tensor<i64>
  %wblkr = gpt.reshape %wblk : tensor<i64> to tensor<1x1x1x1xi64>
  %wblkb = gpt.broadcast %wblkr : tensor<1x1x1x1xi64> to tensor<1x1x384x384xi64>
  %inb = gpt.compare lt, %bd, %wblkb : tensor<1x1x384x384xi64> -> tensor<1x1x384x384xi1>
  %allowed = gpt.select %cw, %inb, %f : tensor<1x1x384x384xi1>, tensor<1x1x384x384xi1>
  %ninf = gpt.constant dense<0xFFF0000000000000> : tensor<1x1x384x384xf64>
  %sm = gpt.select %allowed, %s, %ninf : tensor<1x1x384x384xi1>, tensor<1x1x384x384xf64>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x1x384x384xf64> -> tensor<1x1x384x1xf64>
  %mxb = gpt.broadcast %mx : tensor<1x1x384x1xf64> to tensor<1x1x384x384xf64>
  %d = gpt.sub %sm, %mxb : tensor<1x1x384x384xf64>
  %e = gpt.exp %d : tensor<1x1x384x384xf64>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x1x384x384xf64> -> tensor<1x1x384x1xf64>
  %zb = gpt.broadcast %z : tensor<1x1x384x1xf64> to tensor<1x1x384x384xf64>
  %p = gpt.div %e, %zb : tensor<1x1x384x384xf64>
  %o = gpt.matmul %p, %v : tensor<1x1x384x384xf64>, tensor<1x1x384x1xf64> -> tensor<1x1x384x1xf64>
  // 2 (i - o) + 1 for rows 64h + {0, 1} and 64h + {62, 63}.
  %dd = gpt.sub %v, %o : tensor<1x1x384x1xf64>
  %two = gpt.constant dense<2.0> : tensor<1x1x384x1xf64>
  %one = gpt.constant dense<1.0> : tensor<1x1x384x1xf64>
  %d2 = gpt.mul %dd, %two : tensor<1x1x384x1xf64>
  %n = gpt.add %d2, %one : tensor<1x1x384x1xf64>
  %r = gpt.reshape %n : tensor<1x1x384x1xf64> to tensor<6x64xf64>
  %first = gpt.slice %r offsets = [0, 0] : tensor<6x64xf64> to tensor<6x2xf64>
  %last = gpt.slice %r offsets = [0, 62] : tensor<6x64xf64> to tensor<6x2xf64>
  return %first, %last : tensor<6x2xf64>, tensor<6x2xf64>
}
