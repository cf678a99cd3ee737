//===- SafeTensors.cpp - The safetensors file format ----------------------===//

#include "runtime/SafeTensors.h"
#include "runtime/HostMemory.h"

#include "runtime/Files.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>

namespace gptc::runtime {

namespace {

/// A header longer than this is not a checkpoint's (it lists tensors, not
/// data): refused before it is read.
constexpr uint64_t kMaxHeaderBytes = uint64_t(64) << 20;

bool parseDtype(llvm::StringRef s, SlotType &t) {
  for (SlotType c : {SlotType::F32, SlotType::F64, SlotType::BF16,
                     SlotType::I32, SlotType::I64})
    if (s == safeTensorsDtype(c)) {
      t = c;
      return true;
    }
  return false;
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

} // namespace

const char *safeTensorsDtype(SlotType t) {
  switch (t) {
  case SlotType::F32:
    return "F32";
  case SlotType::F64:
    return "F64";
  case SlotType::BF16:
    return "BF16";
  case SlotType::I32:
    return "I32";
  case SlotType::I64:
    return "I64";
  }
  return "?";
}

int64_t SafeTensorsFile::Tensor::numElements() const {
  return elementCount(shape);
}

bool writeSafeTensors(std::FILE *f, const std::string &path,
                      const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata,
                      std::string &error) {
  std::string header;
  llvm::raw_string_ostream os(header);
  llvm::json::OStream j(os);
  int64_t offset = 0;
  j.object([&] {
    if (!metadata.empty())
      j.attributeObject("__metadata__", [&] {
        for (const auto &[key, value] : metadata)
          j.attribute(key, value);
      });
    for (const TensorToWrite &t : tensors) {
      int64_t bytes = elementCount(t.shape) * byteWidth(t.dtype);
      j.attributeObject(t.name, [&] {
        j.attribute("dtype", safeTensorsDtype(t.dtype));
        j.attributeArray("shape", [&] {
          for (int64_t d : t.shape)
            j.value(d);
        });
        j.attributeArray("data_offsets", [&] {
          j.value(offset);
          j.value(offset + bytes);
        });
      });
      offset += bytes;
    }
  });
  os.flush();
  header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t n = header.size();
  uint8_t length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = uint8_t(n >> (8 * i));
  bool ok = std::fwrite(length, 1, 8, f) == 8 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size();
  for (size_t i = 0; ok && i < tensors.size(); ++i) {
    size_t bytes =
        size_t(elementCount(tensors[i].shape) * byteWidth(tensors[i].dtype));
    ok = bytes == 0 || std::fwrite(tensors[i].data, 1, bytes, f) == bytes;
  }
  if (!ok)
    error = "cannot write " + path + ": " + std::strerror(errno);
  return ok;
}

int64_t SafeTensorsFile::maxFileBytes(int64_t dataBytes) {
  return 8 + int64_t(kMaxHeaderBytes) + dataBytes;
}

bool SafeTensorsFile::open(const std::string &path, std::string &error,
                           int64_t maxBytes) {
  filePath = path;
  list.clear();
  meta.clear();
  if (!checkRegularFile(path, "safetensors file", error))
    return false;
  int64_t limit = maxBytes;
  std::string bound = "this bundle's tensors can fill";
  if (limit <= 0) {
    limit = availableMemory().bytes;
    bound = "the memory available now";
  }
  if (limit > 0 && !checkFileSizeAtMost(path, limit, bound, error))
    return false;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  bytes.resize(size > 0 ? size_t(size) : 0);
  bool read =
      size >= 0 && std::fread(bytes.data(), 1, bytes.size(), f) == bytes.size();
  std::fclose(f);
  if (!read) {
    error = path + ": cannot read the file";
    bytes.clear();
    return false;
  }
  return parse(std::move(bytes), path, error);
}

bool SafeTensorsFile::parse(std::vector<uint8_t> contents,
                            const std::string &name, std::string &error) {
  const std::string &path = name;
  filePath = name;
  bytes = std::move(contents);
  list.clear();
  meta.clear();
  auto fail = [&](const std::string &why) {
    error = path + ": " + why;
    bytes.clear();
    list.clear();
    return false;
  };
  if (bytes.size() < 8)
    return fail("not a safetensors file (" + std::to_string(bytes.size()) +
                " bytes, shorter than the 8-byte header length)");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= uint64_t(bytes[size_t(i)]) << (8 * i);
  if (n > kMaxHeaderBytes || n > bytes.size() - 8)
    return fail("header length " + std::to_string(n) + " is past the end of " +
                "the file (" + std::to_string(bytes.size()) + " bytes)");
  dataStart = int64_t(8 + n);
  const int64_t dataBytes = int64_t(bytes.size()) - dataStart;
  llvm::StringRef text(reinterpret_cast<const char *>(bytes.data() + 8),
                       size_t(n));
  if (!jsonNestingWithin(text.str(), 8))
    return fail("the header nests deeper than a safetensors header does");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.rtrim(' '));
  if (!parsed)
    return fail("the header is not JSON (" +
                llvm::toString(parsed.takeError()) + ")");
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("the header is not a JSON object");
  for (const auto &[key, value] : *root) {
    std::string name = key.str();
    if (name == "__metadata__") {
      const llvm::json::Object *m = value.getAsObject();
      if (!m)
        return fail("__metadata__ is not an object");
      for (const auto &[mk, mv] : *m) {
        std::optional<llvm::StringRef> s = mv.getAsString();
        if (!s)
          return fail("__metadata__." + mk.str() + " is not a string");
        meta[mk.str()] = s->str();
      }
      continue;
    }
    const llvm::json::Object *o = value.getAsObject();
    if (!o)
      return fail("tensor '" + name + "' is not an object");
    Tensor t;
    t.name = name;
    std::optional<llvm::StringRef> dtype = o->getString("dtype");
    if (!dtype || !parseDtype(*dtype, t.dtype))
      return fail("tensor '" + name + "': dtype " +
                  (dtype ? "'" + dtype->str() + "'" : std::string("missing")) +
                  " is not one of F32, F64, BF16, I32, I64");
    const llvm::json::Array *shape = o->getArray("shape");
    const llvm::json::Array *offsets = o->getArray("data_offsets");
    if (!shape || !offsets || offsets->size() != 2)
      return fail("tensor '" + name +
                  "': needs shape and data_offsets [begin, "
                  "end]");
    int64_t elements = 1;
    for (const llvm::json::Value &d : *shape) {
      std::optional<int64_t> v = d.getAsInteger();
      if (!v || *v < 0 || (*v > 0 && elements > (int64_t(1) << 40) / *v))
        return fail("tensor '" + name + "': bad shape");
      t.shape.push_back(*v);
      elements *= *v;
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
    std::optional<int64_t> end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin || *end > dataBytes)
      return fail("tensor '" + name + "': data_offsets are outside the " +
                  std::to_string(dataBytes) + " data bytes");
    t.begin = *begin;
    t.bytes = *end - *begin;
    if (t.bytes != elements * byteWidth(t.dtype))
      return fail("tensor '" + name + "': " + std::to_string(t.bytes) +
                  " bytes, but its dtype and shape need " +
                  std::to_string(elements * byteWidth(t.dtype)));
    list.push_back(std::move(t));
  }
  return true;
}

const SafeTensorsFile::Tensor *
SafeTensorsFile::find(const std::string &name) const {
  for (const Tensor &t : list)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace gptc::runtime
