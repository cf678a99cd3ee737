//===- HostTensor.h - A plain f64 tensor for the reference interpreter -*- C++
//-*-===//
//
// The value type of the gpt reference interpreter (Interpreter.h): a static
// shape and its elements in row-major order, all stored as `double`
// whatever the IR's element type. Integers (|v| < 2^53) and booleans (0 or
// 1) are stored exactly. A 0-d tensor has one element.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_HOSTTENSOR_H
#define GPTC_REFERENCE_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace gptc::ref {

/// Number of elements of a tensor of `shape` (1 for a 0-d tensor).
inline int64_t numElementsOf(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major strides of `shape`.
inline llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `fn(index, linear)` for every multi-index of `shape` in row-major
/// order (`linear` counts from 0). Calls it once with an empty index for a
/// 0-d shape, never for a shape with a zero dimension.
template <typename Fn>
void forEachIndex(llvm::ArrayRef<int64_t> shape, Fn &&fn) {
  int64_t total = numElementsOf(shape);
  if (total == 0)
    return;
  llvm::SmallVector<int64_t, 4> index(shape.size(), 0);
  for (int64_t linear = 0; linear < total; ++linear) {
    fn(llvm::ArrayRef<int64_t>(index), linear);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Calls `fn(linear, offset)` for every multi-index of `shape` in row-major
/// order, where `linear` counts from 0 and `offset = base + sum_d index[d] *
/// strides[d]` is maintained incrementally: a strided view of another
/// tensor (stride 0 broadcasts, permuted strides transpose, a base offset
/// slices).
template <typename Fn>
void forEachStrided(llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<int64_t> strides, int64_t base, Fn &&fn) {
  assert(shape.size() == strides.size() && "one stride per dimension");
  if (numElementsOf(shape) == 0)
    return;
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) {
    fn(int64_t(0), base);
    return;
  }
  llvm::SmallVector<int64_t, 4> index(rank, 0);
  const int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];
  int64_t offset = base, linear = 0;
  while (true) {
    int64_t o = offset;
    for (int64_t j = 0; j < inner; ++j, o += innerStride)
      fn(linear++, o);
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

struct HostTensor {
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> data;

  /// A 0-d tensor holding 0.
  HostTensor() : data(1, 0.0) {}
  explicit HostTensor(llvm::ArrayRef<int64_t> shape, double fill = 0.0)
      : shape(shape.begin(), shape.end()),
        data(static_cast<size_t>(numElementsOf(shape)), fill) {}
  HostTensor(llvm::ArrayRef<int64_t> shape, std::vector<double> values)
      : shape(shape.begin(), shape.end()), data(std::move(values)) {
    assert(static_cast<int64_t>(data.size()) == numElementsOf(shape) &&
           "element count does not match the shape");
  }
  static HostTensor scalar(double v) { return HostTensor({}, v); }

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  llvm::SmallVector<int64_t, 4> strides() const { return stridesOf(shape); }

  /// Linear offset of a multi-index.
  int64_t offset(llvm::ArrayRef<int64_t> index) const {
    assert(index.size() == shape.size() && "index rank mismatch");
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      assert(index[i] >= 0 && index[i] < shape[i] && "index out of bounds");
      off = off * shape[i] + index[i];
    }
    return off;
  }
  double &at(llvm::ArrayRef<int64_t> index) { return data[offset(index)]; }
  double at(llvm::ArrayRef<int64_t> index) const { return data[offset(index)]; }
  double &operator[](int64_t i) { return data[i]; }
  double operator[](int64_t i) const { return data[i]; }

  bool sameShape(const HostTensor &other) const { return shape == other.shape; }

  /// "[2, 3]"
  std::string shapeStr() const {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  }
};

} // namespace gptc::ref

#endif // GPTC_REFERENCE_HOSTTENSOR_H
