//===- Manifest.cpp - manifest.json of a compiled step --------------------===//

#include "runtime/Manifest.h"

#include "runtime/Files.h"
#include "runtime/Sha256.h"
#include "runtime/StepLayout.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace gptc {
namespace runtime {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const char *toString(SlotType t) {
  switch (t) {
  case SlotType::I32:
    return "i32";
  case SlotType::I64:
    return "i64";
  case SlotType::F32:
    return "f32";
  case SlotType::F64:
    return "f64";
  case SlotType::BF16:
    return "bf16";
  }
  return "?";
}

int64_t byteWidth(SlotType t) {
  switch (t) {
  case SlotType::I32:
  case SlotType::F32:
    return 4;
  case SlotType::I64:
  case SlotType::F64:
    return 8;
  case SlotType::BF16:
    return 2;
  }
  return 0;
}

int64_t Slot::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

const Slot *Manifest::findSlot(const std::string &name) const {
  for (const Slot &s : slots)
    if (s.name == name)
      return &s;
  return nullptr;
}

std::string Manifest::layoutText() const {
  std::vector<layout::SlotLine> lines;
  for (const Slot &s : slots)
    lines.push_back({s.name, s.offset, toString(s.dtype), s.shape});
  return layout::layoutText(arenaBytes, workspaceOffset, workspaceBytes, lines);
}

namespace {

/// Bounds of a manifest before it is parsed: R15's is ~100 kB, 5 levels.
constexpr uint64_t kMaxManifestBytes = 64ull << 20;
constexpr int kMaxManifestNesting = 64;

} // namespace

namespace {

constexpr int64_t kSlotAlignment = 64;
/// Bounds that keep every size product far from int64 overflow.
constexpr int64_t kMaxDim = int64_t(1) << 40;
constexpr int64_t kMaxBytes = int64_t(1) << 50;

bool parseSlotType(llvm::StringRef s, SlotType &t) {
  static const std::pair<const char *, SlotType> names[] = {
      {"i32", SlotType::I32},
      {"i64", SlotType::I64},
      {"f32", SlotType::F32},
      {"f64", SlotType::F64},
      {"bf16", SlotType::BF16}};
  for (const auto &[name, type] : names)
    if (s == name) {
      t = type;
      return true;
    }
  return false;
}

/// Reads fields of JSON objects, recording the first error as
/// "FILE: FIELD: problem". Every getter returns false after an error.
class Reader {
public:
  explicit Reader(std::string file) : file(std::move(file)) {}

  bool fail(const std::string &field, const std::string &problem) {
    if (error.empty())
      error = file + ": " + field + ": " + problem;
    return false;
  }
  bool ok() const { return error.empty(); }

  const llvm::json::Value *get(const llvm::json::Object &o,
                               const std::string &field, const char *key) {
    const llvm::json::Value *v = o.get(key);
    if (!v)
      fail(field, "missing");
    return v;
  }

  bool getString(const llvm::json::Object &o, const std::string &prefix,
                 const char *key, std::string &out) {
    const llvm::json::Value *v = get(o, prefix + key, key);
    if (!v)
      return false;
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s)
      return fail(prefix + key, "expected a string");
    out = s->str();
    return true;
  }

  /// An integer in [lo, hi].
  bool getInt(const llvm::json::Object &o, const std::string &prefix,
              const char *key, int64_t &out, int64_t lo = 0,
              int64_t hi = kMaxBytes) {
    const llvm::json::Value *v = get(o, prefix + key, key);
    if (!v)
      return false;
    return toInt(*v, prefix + key, out, lo, hi);
  }

  bool toInt(const llvm::json::Value &v, const std::string &field, int64_t &out,
             int64_t lo, int64_t hi) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return fail(field, "expected an integer");
    if (*i < lo || *i > hi)
      return fail(field, std::to_string(*i) + " is out of range [" +
                             std::to_string(lo) + ", " + std::to_string(hi) +
                             "]");
    out = *i;
    return true;
  }

  bool getShape(const llvm::json::Object &o, const std::string &prefix,
                std::vector<int64_t> &out) {
    const llvm::json::Value *v = get(o, prefix + "shape", "shape");
    if (!v)
      return false;
    const llvm::json::Array *a = v->getAsArray();
    if (!a)
      return fail(prefix + "shape", "expected an array of integers");
    out.clear();
    int64_t elements = 1;
    for (const llvm::json::Value &d : *a) {
      int64_t n;
      if (!toInt(d, prefix + "shape", n, 0, kMaxDim))
        return false;
      out.push_back(n);
      elements *= n;
      if (elements > kMaxBytes)
        return fail(prefix + "shape", shapeText(out) + "... is too large");
    }
    return true;
  }

  std::string file;
  std::string error;
};

bool parseSlot(Reader &r, const llvm::json::Value &v, size_t index,
               Slot &slot) {
  std::string at = "slots[" + std::to_string(index) + "]";
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return r.fail(at, "expected an object");
  if (!r.getString(*o, at + ".", "name", slot.name))
    return false;
  if (slot.name.empty())
    return r.fail(at + ".name", "empty");
  at = "slots[" + std::to_string(index) + "] (" + slot.name + ")";
  std::string dtype;
  if (!r.getInt(*o, at + ".", "offset", slot.offset) ||
      !r.getString(*o, at + ".", "dtype", dtype) ||
      !r.getShape(*o, at + ".", slot.shape))
    return false;
  if (!parseSlotType(dtype, slot.dtype))
    return r.fail(at + ".dtype", "unknown dtype '" + dtype +
                                     "' (expected i32, i64, f32, f64 or bf16)");
  if (slot.offset % kSlotAlignment != 0)
    return r.fail(at + ".offset",
                  std::to_string(slot.offset) + " is not a multiple of 64");
  // An optional explicit byte size must agree with shape and dtype.
  if (o->get("bytes")) {
    int64_t bytes;
    if (!r.getInt(*o, at + ".", "bytes", bytes))
      return false;
    if (bytes != slot.numBytes())
      return r.fail(at + ".bytes",
                    std::to_string(bytes) + " does not match shape " +
                        shapeText(slot.shape) + " of " + dtype + " (" +
                        std::to_string(slot.numBytes()) + " bytes)");
  }
  return true;
}

bool parseParam(Reader &r, const llvm::json::Value &v, size_t index,
                ParamEntry &p) {
  std::string at = "params[" + std::to_string(index) + "]";
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return r.fail(at, "expected an object");
  if (!r.getString(*o, at + ".", "name", p.name))
    return false;
  at = "params[" + std::to_string(index) + "] (" + p.name + ")";
  std::string init;
  if (!r.getShape(*o, at + ".", p.shape) ||
      !r.getString(*o, at + ".", "init", init))
    return false;
  // group and optimizer are informational.
  if (o->get("group") && !r.getString(*o, at + ".", "group", p.group))
    return false;
  if (o->get("optimizer") &&
      !r.getString(*o, at + ".", "optimizer", p.optimizer))
    return false;

  int64_t elements = 1;
  for (int64_t d : p.shape)
    elements *= d;
  if (init == "normal") {
    p.init = ParamInit::Normal;
    const llvm::json::Value *s = r.get(*o, at + ".std", "std");
    if (!s)
      return false;
    std::optional<double> sd = s->getAsNumber();
    if (!sd || !std::isfinite(*sd) || *sd < 0)
      return r.fail(at + ".std", "expected a finite number >= 0");
    p.stddev = *sd;
  } else if (init == "zeros") {
    p.init = ParamInit::Zeros;
  } else if (init == "ones") {
    p.init = ParamInit::Ones;
  } else if (init == "values") {
    p.init = ParamInit::Values;
    const llvm::json::Value *vs = r.get(*o, at + ".values", "values");
    if (!vs)
      return false;
    const llvm::json::Array *a = vs->getAsArray();
    if (!a)
      return r.fail(at + ".values", "expected an array of numbers");
    for (const llvm::json::Value &x : *a) {
      std::optional<double> d = x.getAsNumber();
      if (!d)
        return r.fail(at + ".values", "expected an array of numbers");
      p.values.push_back(*d);
    }
    if (int64_t(p.values.size()) != elements)
      return r.fail(at + ".values",
                    std::to_string(p.values.size()) + " values for shape " +
                        shapeText(p.shape) + " (" + std::to_string(elements) +
                        " elements)");
  } else {
    return r.fail(at + ".init", "unknown init '" + init +
                                    "' (expected normal, zeros, ones or "
                                    "values)");
  }
  return true;
}

/// The sub-object `key` of `o`, or null after an error.
const llvm::json::Object *getObject(Reader &r, const llvm::json::Object &o,
                                    const char *key) {
  const llvm::json::Value *v = r.get(o, key, key);
  if (!v)
    return nullptr;
  const llvm::json::Object *sub = v->getAsObject();
  if (!sub)
    r.fail(key, "expected an object");
  return sub;
}

bool parseWorkspace(Reader &r, const llvm::json::Object &o, Manifest &m) {
  const llvm::json::Object *w = getObject(r, o, "workspace");
  return w && r.getInt(*w, "workspace.", "offset", m.workspaceOffset) &&
         r.getInt(*w, "workspace.", "bytes", m.workspaceBytes);
}

bool parseStepLibrary(Reader &r, const llvm::json::Object &o, Manifest &m) {
  const llvm::json::Object *l = getObject(r, o, "step_library");
  StepLibraryFile &f = m.stepLibrary;
  if (!l || !r.getString(*l, "step_library.", "file", f.file) ||
      !r.getInt(*l, "step_library.", "bytes", f.bytes, 1) ||
      !r.getString(*l, "step_library.", "sha256", f.sha256))
    return false;
  // A file name in the bundle, not a path elsewhere.
  if (f.file.empty() || f.file.find('/') != std::string::npos ||
      f.file == "." || f.file == "..")
    return r.fail("step_library.file",
                  "'" + f.file + "' is not a file name in the bundle");
  return true;
}

/// host_cpu: {"name": "znver3", "features": ["avx", "avx2", ...]}.
bool parseHostCpu(Reader &r, const llvm::json::Object &o, Manifest &m) {
  const llvm::json::Object *cpu = getObject(r, o, "host_cpu");
  if (!cpu || !r.getString(*cpu, "host_cpu.", "name", m.hostCpuName))
    return false;
  const llvm::json::Array *features = cpu->getArray("features");
  if (!features)
    return r.fail("host_cpu.features", cpu->get("features")
                                           ? "expected an array of strings"
                                           : "missing");
  for (const llvm::json::Value &f : *features) {
    std::optional<llvm::StringRef> name = f.getAsString();
    if (!name || name->empty())
      return r.fail("host_cpu.features",
                    "expected an array of non-empty strings");
    m.hostCpuFeatures.push_back(name->str());
  }
  return true;
}

bool parseRunDefaults(Reader &r, const llvm::json::Object &o, Manifest &m) {
  const llvm::json::Object *run = getObject(r, o, "run");
  RunDefaults &d = m.run;
  const int64_t big = int64_t(1) << 50;
  return run && r.getInt(*run, "run.", "steps", d.steps, 0, big) &&
         r.getInt(*run, "run.", "seed", d.seed, 0, big) &&
         r.getString(*run, "run.", "train", d.train) &&
         r.getString(*run, "run.", "val", d.val) &&
         r.getInt(*run, "run.", "val_every", d.valEvery, 0, big) &&
         r.getInt(*run, "run.", "val_tokens", d.valTokens, 0, big) &&
         r.getInt(*run, "run.", "timing_skip_steps", d.timingSkipSteps, 0, big);
}

/// Checks that `name` exists with `dtype` and `shape`.
bool requireSlot(Reader &r, const Manifest &m, const std::string &name,
                 SlotType dtype, const std::vector<int64_t> &shape) {
  const Slot *s = m.findSlot(name);
  if (!s)
    return r.fail("slots", "no slot '" + name + "'");
  if (s->dtype != dtype || s->shape != shape)
    return r.fail("slots (" + name + ")",
                  std::string("is ") + toString(s->dtype) + " " +
                      shapeText(s->shape) + ", expected " + toString(dtype) +
                      " " + shapeText(shape));
  return true;
}

/// The cross-field rules: slots inside the arena and disjoint, the
/// runtime's slots present, parameter slots matching the parameters.
bool checkManifest(Reader &r, const Manifest &m) {
  if (m.format != kManifestFormat)
    return r.fail("format", "'" + m.format + "' is not " + kManifestFormat +
                                " (recompile the bundle with this gptc)");
  if (m.dtype != "f32" && m.dtype != "bf16" && m.dtype != "f64")
    return r.fail("dtype", "unknown dtype '" + m.dtype +
                               "' (expected f32, bf16 or f64)");
  if (m.paddedVocab < m.vocabSize)
    return r.fail("padded_vocab", std::to_string(m.paddedVocab) +
                                      " is less than vocab_size " +
                                      std::to_string(m.vocabSize));

  if (m.workspaceOffset + m.workspaceBytes > m.arenaBytes)
    return r.fail("workspace",
                  "[" + std::to_string(m.workspaceOffset) + ", " +
                      std::to_string(m.workspaceOffset + m.workspaceBytes) +
                      ") exceeds arena_bytes " + std::to_string(m.arenaBytes));

  std::map<std::string, size_t> byName;
  std::vector<const Slot *> byOffset;
  for (size_t i = 0; i < m.slots.size(); ++i) {
    const Slot &s = m.slots[i];
    if (!byName.emplace(s.name, i).second)
      return r.fail("slots[" + std::to_string(i) + "] (" + s.name + ")",
                    "duplicate slot name");
    int64_t end = m.workspaceBytes > 0 ? m.workspaceOffset : m.arenaBytes;
    if (s.offset + s.numBytes() > end)
      return r.fail("slots[" + std::to_string(i) + "] (" + s.name + ")",
                    "bytes [" + std::to_string(s.offset) + ", " +
                        std::to_string(s.offset + s.numBytes()) +
                        ") exceed the slots' region [0, " +
                        std::to_string(end) + ")");
    byOffset.push_back(&s);
  }
  std::stable_sort(
      byOffset.begin(), byOffset.end(),
      [](const Slot *a, const Slot *b) { return a->offset < b->offset; });
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const Slot *a = byOffset[i - 1], *b = byOffset[i];
    if (a->numBytes() > 0 && b->numBytes() > 0 &&
        a->offset + a->numBytes() > b->offset)
      return r.fail("slots (" + b->name + ")",
                    "offset " + std::to_string(b->offset) + " overlaps slot '" +
                        a->name + "' at " + std::to_string(a->offset));
  }

  std::vector<int64_t> bt = {m.deviceBatch, m.seqLen};
  if (!requireSlot(r, m, "tokens", SlotType::I32, bt) ||
      !requireSlot(r, m, "targets", SlotType::I32, bt) ||
      !requireSlot(r, m, "loss", SlotType::F32, {}) ||
      !requireSlot(r, m, "eval_loss", SlotType::F32, {}) ||
      !requireSlot(r, m, "step", SlotType::I64, {}))
    return false;
  if (m.findSlot("lr_mult") && !requireSlot(r, m, "lr_mult", SlotType::F32, {}))
    return false;
  if (m.findSlot("total_steps") &&
      !requireSlot(r, m, "total_steps", SlotType::I64, {}))
    return false;
  if (m.findSlot("param_sq_norms")) {
    std::vector<std::string> groups;
    for (const ParamEntry &p : m.params)
      if (std::find(groups.begin(), groups.end(), p.group) == groups.end())
        groups.push_back(p.group);
    if (!requireSlot(r, m, "param_sq_norms", SlotType::F32,
                     {int64_t(groups.size())}))
      return false;
  }

  std::map<std::string, size_t> params;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const ParamEntry &p = m.params[i];
    std::string at = "params[" + std::to_string(i) + "] (" + p.name + ")";
    if (!params.emplace(p.name, i).second)
      return r.fail(at, "duplicate parameter name");
    const Slot *s = m.findSlot("param." + p.name);
    if (!s)
      return r.fail(at, "no slot 'param." + p.name + "'");
    if (s->shape != p.shape)
      return r.fail(at + ".shape", shapeText(p.shape) + " but slot 'param." +
                                       p.name + "' is " + shapeText(s->shape));
    if (s->dtype != SlotType::F32 && s->dtype != SlotType::F64 &&
        s->dtype != SlotType::BF16)
      return r.fail("slots (param." + p.name + ")", std::string("dtype ") +
                                                        toString(s->dtype) +
                                                        " is not a float type");
    // A bf16 parameter (a `storage: bf16` group) has its gradient in the
    // type the step computes in; a gradient the ranks average in bf16
    // (`grad_reduce: bf16`) may be kept in bf16 whatever its parameter's.
    const Slot *g = m.findSlot("grad." + p.name);
    const bool gradTypeFits =
        g && (g->dtype == s->dtype || g->dtype == SlotType::BF16 ||
              (s->dtype == SlotType::BF16 &&
               (g->dtype == SlotType::F32 || g->dtype == SlotType::F64)));
    if (g && (g->shape != s->shape || !gradTypeFits))
      return r.fail("slots (grad." + p.name + ")",
                    std::string("is ") + toString(g->dtype) + " " +
                        shapeText(g->shape) + " but param." + p.name + " is " +
                        toString(s->dtype) + " " + shapeText(s->shape));
  }
  for (const Slot &s : m.slots) {
    if (s.name.rfind("param.", 0) == 0 && !params.count(s.name.substr(6)))
      return r.fail("slots (" + s.name + ")",
                    "no entry in params for this parameter slot");
  }
  return true;
}

} // namespace

bool parseManifest(const std::string &text, const std::string &fileName,
                   Manifest &out, std::string &error) {
  out = Manifest();
  out.path = fileName;
  // A manifest is a few levels deep (slots, shapes); LLVM's parser recurses
  // once per level, so a hostile one must not reach it.
  if (text.size() > kMaxManifestBytes ||
      !jsonNestingWithin(text, kMaxManifestNesting)) {
    error = fileName + ": not a gptc manifest (larger than " +
            std::to_string(kMaxManifestBytes >> 20) +
            " MiB or nested deeper than " +
            std::to_string(kMaxManifestNesting) + " levels)";
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = fileName + ": invalid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) {
    error = fileName + ": expected a JSON object at the top level";
    return false;
  }
  Reader r(fileName);
  Manifest &m = out;
  const int64_t big = int64_t(1) << 31;
  bool ok = r.getString(*o, "", "format", m.format) &&
            r.getString(*o, "", "target", m.target) &&
            r.getString(*o, "", "dtype", m.dtype) &&
            r.getInt(*o, "", "arena_bytes", m.arenaBytes, 64) &&
            r.getInt(*o, "", "device_batch", m.deviceBatch, 1, big) &&
            r.getInt(*o, "", "seq_len", m.seqLen, 1, big) &&
            r.getInt(*o, "", "grad_accum", m.gradAccum, 1, big) &&
            r.getInt(*o, "", "ranks", m.ranks, 1, big) &&
            r.getInt(*o, "", "vocab_size", m.vocabSize, 1, big) &&
            r.getInt(*o, "", "padded_vocab", m.paddedVocab, 1, big) &&
            r.getString(*o, "", "layout_sha256", m.layoutSha256) &&
            parseWorkspace(r, *o, m) && parseStepLibrary(r, *o, m) &&
            parseRunDefaults(r, *o, m);
  // Informational fields.
  if (ok && o->get("compiler"))
    ok = r.getString(*o, "", "compiler", m.compiler);
  if (ok && o->get("spec_name"))
    ok = r.getString(*o, "", "spec_name", m.specName);
  if (ok && o->get("bos_token"))
    ok = r.getInt(*o, "", "bos_token", m.bosToken, -1, big);
  if (ok && o->get("document_mask")) {
    std::optional<bool> mask = o->getBoolean("document_mask");
    if (!mask)
      ok = r.fail("document_mask", "expected true or false");
    else
      m.documentMask = *mask;
  }
  // Written by every gptc that knows it; a manifest without it is not
  // checked against this CPU.
  if (ok && o->get("host_cpu"))
    ok = parseHostCpu(r, *o, m);
  if (ok && o->get("divergence_factor")) {
    std::optional<double> f = o->getNumber("divergence_factor");
    if (!f || !(*f >= 0) || !std::isfinite(*f))
      ok = r.fail("divergence_factor", "expected a finite number >= 0");
    else
      m.divergenceFactor = *f;
  }
  // Optional: a manifest without it prints no MFU.
  if (ok && o->get("step_flops"))
    ok = r.getInt(*o, "", "step_flops", m.stepFlops, 0, int64_t(1) << 62);

  const llvm::json::Array *slots = nullptr, *params = nullptr;
  if (ok) {
    slots = o->getArray("slots");
    if (!slots)
      ok = r.fail("slots", o->get("slots") ? "expected an array" : "missing");
  }
  for (size_t i = 0; ok && i < slots->size(); ++i) {
    m.slots.emplace_back();
    ok = parseSlot(r, (*slots)[i], i, m.slots.back());
  }
  if (ok) {
    params = o->getArray("params");
    if (!params)
      ok = r.fail("params", o->get("params") ? "expected an array" : "missing");
  }
  for (size_t i = 0; ok && i < params->size(); ++i) {
    m.params.emplace_back();
    ok = parseParam(r, (*params)[i], i, m.params.back());
  }
  // Informational: the groups' learning rates for the step lines.
  if (ok && o->get("group_lrs")) {
    const llvm::json::Array *rates = o->getArray("group_lrs");
    if (!rates)
      ok = r.fail("group_lrs", "expected an array");
    for (size_t i = 0; ok && rates && i < rates->size(); ++i) {
      const llvm::json::Object *g = (*rates)[i].getAsObject();
      std::optional<llvm::StringRef> name =
          g ? g->getString("name") : std::nullopt;
      std::optional<double> lr = g ? g->getNumber("lr") : std::nullopt;
      if (!name || !lr || !std::isfinite(*lr))
        ok = r.fail("group_lrs[" + std::to_string(i) + "]",
                    "expected {\"name\": string, \"lr\": number}");
      else
        m.groupRates.push_back({name->str(), *lr});
    }
  }
  if (ok)
    ok = checkManifest(r, m);
  if (!ok) {
    error = r.error;
    return false;
  }
  return true;
}

const char *toString(ParamInit init) {
  switch (init) {
  case ParamInit::Normal:
    return "normal";
  case ParamInit::Zeros:
    return "zeros";
  case ParamInit::Ones:
    return "ones";
  case ParamInit::Values:
    return "values";
  }
  return "normal";
}

namespace {
llvm::json::Array shapeArray(const std::vector<int64_t> &shape) {
  llvm::json::Array a;
  for (int64_t d : shape)
    a.push_back(d);
  return a;
}
} // namespace

std::string renderManifest(const Manifest &m) {
  llvm::json::Array slots;
  for (const Slot &slot : m.slots)
    slots.push_back(llvm::json::Object{{"name", slot.name},
                                       {"offset", slot.offset},
                                       {"dtype", toString(slot.dtype)},
                                       {"shape", shapeArray(slot.shape)}});
  llvm::json::Array params;
  for (const ParamEntry &p : m.params) {
    llvm::json::Array values;
    if (p.init == ParamInit::Values)
      for (double v : p.values)
        values.push_back(v);
    params.push_back(llvm::json::Object{
        {"name", p.name},
        {"shape", shapeArray(p.shape)},
        {"init", toString(p.init)},
        {"std", p.init == ParamInit::Normal ? p.stddev : 0.0},
        {"values", std::move(values)},
        {"group", p.group},
        {"optimizer", p.optimizer}});
  }
  llvm::json::Array rates;
  for (const Manifest::GroupRate &g : m.groupRates)
    rates.push_back(llvm::json::Object{{"name", g.name}, {"lr", g.lr}});
  const RunDefaults &run = m.run;
  llvm::json::Object manifest{
      {"format", m.format},
      {"compiler", m.compiler},
      {"spec_name", m.specName},
      {"target", m.target},
      {"dtype", m.dtype},
      {"arena_bytes", m.arenaBytes},
      {"workspace", llvm::json::Object{{"offset", m.workspaceOffset},
                                       {"bytes", m.workspaceBytes}}},
      {"layout_sha256", m.layoutSha256},
      {"step_library", llvm::json::Object{{"file", m.stepLibrary.file},
                                          {"bytes", m.stepLibrary.bytes},
                                          {"sha256", m.stepLibrary.sha256}}},
      {"host_cpu",
       llvm::json::Object{{"name", m.hostCpuName},
                          {"features", llvm::json::Array(m.hostCpuFeatures)}}},
      {"device_batch", m.deviceBatch},
      {"seq_len", m.seqLen},
      {"grad_accum", m.gradAccum},
      {"ranks", m.ranks},
      {"vocab_size", m.vocabSize},
      {"padded_vocab", m.paddedVocab},
      {"bos_token", m.bosToken},
      {"document_mask", m.documentMask},
      {"run", llvm::json::Object{{"steps", run.steps},
                                 {"seed", run.seed},
                                 {"train", run.train},
                                 {"val", run.val},
                                 {"val_every", run.valEvery},
                                 {"val_tokens", run.valTokens},
                                 {"timing_skip_steps", run.timingSkipSteps}}},
      {"divergence_factor", m.divergenceFactor},
      {"group_lrs", std::move(rates)},
      {"slots", std::move(slots)},
      {"params", std::move(params)}};
  // Only when counted: a manifest without it renders as it was read.
  if (m.stepFlops > 0)
    manifest["step_flops"] = m.stepFlops;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return text;
}

std::string manifestBodySha256(const Manifest &m) {
  Manifest body = m;
  body.stepLibrary = StepLibraryFile{};
  std::string text = renderManifest(body);
  return sha256Hex(text.data(), text.size());
}

bool readManifest(const std::string &path, Manifest &out, std::string &error) {
  std::string text;
  return readRegularFile(path, "manifest", kMaxManifestBytes, text, error) &&
         parseManifest(text, path, out, error);
}

} // namespace runtime
} // namespace gptc
