//===- ModelSpec.cpp - Plain structs describing a gptc spec ---------------===//
//
// toString() of the spec enums (their YAML spellings, from the schema) and
// ModelSpec::locOf.
//
//===----------------------------------------------------------------------===//

#include "frontend/ModelSpec.h"
#include "frontend/SpecSchema.h"

namespace gptc {

namespace {

template <typename E> const char *spellingOf(E v) {
  const std::vector<std::string> &spellings = enumSpellings<E>();
  size_t index = static_cast<size_t>(v);
  return index < spellings.size() ? spellings[index].c_str() : "<invalid>";
}

} // namespace

const char *toString(DType v) { return spellingOf(v); }
const char *toString(Activation v) { return spellingOf(v); }
const char *toString(QKNorm v) { return spellingOf(v); }
const char *toString(WindowUnit v) { return spellingOf(v); }
const char *toString(OptimizerKind v) { return spellingOf(v); }
const char *toString(Softcap v) { return spellingOf(v); }
const char *toString(ValueEmbeddings v) { return spellingOf(v); }
const char *toString(QKVLayout v) { return spellingOf(v); }
const char *toString(Rotary v) { return spellingOf(v); }
const char *toString(Rounding v) { return spellingOf(v); }
const char *toString(LayerWindow v) { return spellingOf(v); }
const char *toString(MomentumForm v) { return spellingOf(v); }
const char *toString(NSForm v) { return spellingOf(v); }
const char *toString(NSBackend v) { return spellingOf(v); }
const char *toString(NSNormalize v) { return spellingOf(v); }
const char *toString(UpdateScale v) { return spellingOf(v); }
const char *toString(MuonDistribution v) { return spellingOf(v); }
const char *toString(ParamStorage v) { return spellingOf(v); }
const char *toString(GradReduce v) { return spellingOf(v); }

SourceLoc ModelSpec::locOf(const std::string &path) const {
  std::string key = path;
  while (true) {
    auto it = locs.find(key);
    if (it != locs.end())
      return it->second;
    size_t dot = key.rfind('.');
    if (dot == std::string::npos)
      break;
    key.resize(dot);
  }
  return SourceLoc{file, 1, 1};
}

} // namespace gptc
