//===- SafeTensors.h - The safetensors file format --------------*- C++ -*-===//
//
// Checkpoints keep tensors as safetensors (the format of Hugging Face's
// `safetensors` package, which PyTorch, NumPy and JAX read):
//
//   u64 N (little-endian)  the header's length in bytes
//   N bytes                a JSON object: for every tensor
//                            "NAME": {"dtype": "F32", "shape": [264, 64],
//                                     "data_offsets": [BEGIN, END]}
//                          and optionally "__metadata__": {"key": "value"}
//                          (strings only); padded with spaces
//   the data               every tensor's bytes, row-major, little-endian,
//                          at [BEGIN, END) of this region
//
// The writer lays the tensors out in the order given, back to back, with
// the header padded to a multiple of 8 bytes. The reader trusts nothing:
// the header's length, its JSON, each dtype and shape, and that every
// tensor's bytes lie inside the file and have the size its dtype and
// shape say; each error is one line naming the file (and the tensor).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_SAFETENSORS_H
#define GPTC_RUNTIME_SAFETENSORS_H

#include "runtime/Manifest.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace gptc::runtime {

/// "F32", "F64", "BF16", "I32", "I64".
const char *safeTensorsDtype(SlotType t);

/// A tensor to write: `data` holds prod(shape) elements of `dtype`.
struct TensorToWrite {
  std::string name;
  SlotType dtype = SlotType::F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
};

/// Writes `tensors` and `metadata` to the open file `f` (`path` names it in
/// errors). False with `error` set.
bool writeSafeTensors(std::FILE *f, const std::string &path,
                      const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata,
                      std::string &error);

/// A safetensors file read whole and checked.
class SafeTensorsFile {
public:
  struct Tensor {
    std::string name;
    SlotType dtype = SlotType::F32;
    std::vector<int64_t> shape;
    int64_t begin = 0, bytes = 0; ///< in the data region
    int64_t numElements() const;
  };

  /// Reads and checks `path`. False with `error` = "PATH: what is wrong";
  /// a file larger than `maxBytes` (0: the memory available now,
  /// runtime/HostMemory.h) is refused before it is read.
  bool open(const std::string &path, std::string &error, int64_t maxBytes = 0);
  /// The largest safetensors file of tensors holding `dataBytes` in all:
  /// the 8-byte length, the longest header accepted, the data.
  static int64_t maxFileBytes(int64_t dataBytes);
  /// Checks the bytes of a safetensors file called `name` (open's work
  /// after reading; the fuzzer's entry).
  bool parse(std::vector<uint8_t> contents, const std::string &name,
             std::string &error);

  const std::string &path() const { return filePath; }
  const std::vector<Tensor> &tensors() const { return list; }
  const std::map<std::string, std::string> &metadata() const { return meta; }
  /// The tensor `name`, or null.
  const Tensor *find(const std::string &name) const;
  /// The bytes of `t`.
  const uint8_t *data(const Tensor &t) const {
    return bytes.data() + dataStart + t.begin;
  }

private:
  std::string filePath;
  std::vector<uint8_t> bytes;
  int64_t dataStart = 0;
  std::vector<Tensor> list;
  std::map<std::string, std::string> meta;
};

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_SAFETENSORS_H
