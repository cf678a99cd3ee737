//===- MeasuredProfile.cpp - Reading the emulated device's profile --------===//

#include "driver/report/MeasuredProfile.h"
#include "driver/report/CostModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdlib>

namespace gptc::report {

namespace {

double ratio(double a, double b, double otherwise) {
  return b > 0 ? a / b : otherwise;
}

double number(const llvm::json::Object *o, llvm::StringRef key) {
  if (!o)
    return 0;
  if (auto v = o->getNumber(key))
    return *v;
  if (auto v = o->getInteger(key))
    return static_cast<double>(*v);
  return 0;
}

} // namespace

Mnemonics ptxMnemonics(llvm::StringRef ptx) {
  Mnemonics counts;
  size_t entry = ptx.find(".entry");
  size_t body = entry == llvm::StringRef::npos ? entry : ptx.find('{', entry);
  if (body == llvm::StringRef::npos)
    return counts;
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.drop_front(body + 1).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.split("//").first.trim();
    if (line.empty() || llvm::StringRef(".{}%()").contains(line.front()) ||
        (line.ends_with(":") && !line.contains(' ')))
      continue;
    if (line.starts_with("@"))
      line = line.split(' ').second.ltrim();
    ++counts[line.take_until(
                     [](char c) { return c == ' ' || c == '\t' || c == ';'; })
                 .str()];
  }
  return counts;
}

double similarity(const Mnemonics &a, const Mnemonics &b) {
  int64_t differ = 0, total = 0;
  for (auto &[m, n] : a) {
    auto it = b.find(m);
    int64_t other = it == b.end() ? 0 : it->second;
    differ += std::abs(n - other);
    total += n + other;
  }
  for (auto &[m, n] : b)
    if (!a.count(m)) {
      differ += n;
      total += n;
    }
  return total ? 1.0 - static_cast<double>(differ) / static_cast<double>(total)
               : 1.0;
}

const MeasuredKernel *MeasuredProfile::find(llvm::StringRef name,
                                            const Mnemonics &code,
                                            bool &exact) const {
  auto base = [](llvm::StringRef n) {
    llvm::StringRef stem = n.rtrim("0123456789");
    return stem.ends_with("_") ? stem.drop_back() : n;
  };
  const Entry *best = nullptr, *sameCode = nullptr;
  double bestSimilarity = 0.8;
  for (const Entry &e : kernels) {
    bool sameBase = base(e.name) == base(name);
    if (e.mnemonics == code && (sameBase || !sameCode)) {
      sameCode = &e;
      if (sameBase)
        break;
    }
    if (!sameBase)
      continue;
    double s = similarity(e.mnemonics, code);
    if (s >= bestSimilarity) {
      bestSimilarity = s;
      best = &e;
    }
  }
  if (sameCode) {
    exact = true;
    return &sameCode->kernel;
  }
  exact = false;
  return best ? &best->kernel : nullptr;
}

llvm::Expected<MeasuredProfile> loadMeasuredProfile(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + what);
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not JSON (" + llvm::toString(json.takeError()) +
                "); expected GPTC_EMU_STATS_JSON's output");
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *kernels = root ? root->getArray("kernels") : nullptr;
  if (!kernels)
    return fail("no \"kernels\" array; expected GPTC_EMU_STATS_JSON's output");
  MeasuredProfile profile;
  profile.path = path.str();
  if (auto shape = root->getString("shape"))
    profile.shape = shape->str();
  for (const llvm::json::Value &value : *kernels) {
    const llvm::json::Object *k = value.getAsObject();
    std::optional<llvm::StringRef> name =
        k ? k->getString("name") : std::nullopt;
    const llvm::json::Object *c = k ? k->getObject("counters") : nullptr;
    if (!name || !c)
      return fail("a kernel without \"name\" or \"counters\"");
    MeasuredKernel m;
    double warp = number(c, "warpInstructions");
    double blockLanes = 32 * cost::laneFraction(std::max<int64_t>(
                                 1, static_cast<int64_t>(number(k, "block"))));
    m.convergence = std::clamp(
        ratio(number(c, "threadInstructions"), warp, blockLanes) / blockLanes,
        1.0 / 32, 1.0);
    const llvm::json::Object *sass = k->getObject("sass");
    const llvm::json::Object *mnemonics =
        sass ? sass->getObject("mnemonics") : nullptr;
    if (!mnemonics)
      return fail("kernel '" + *name +
                  "' has no SASS counts and mnemonics: the profile needs "
                  "scripts/sass-count.py --annotate (scripts/measure-step.sh "
                  "runs it)");
    MeasuredProfile::Entry entry;
    entry.name = name->str();
    for (auto &[mnemonic, count] : *mnemonics)
      entry.mnemonics[mnemonic.str()] =
          static_cast<int64_t>(count.getAsNumber().value_or(0));
    m.sassPerPtx = std::max(1e-3, number(sass, "perPtx"));
    double loadSectors = number(c, "globalLoadSectors"),
           storeSectors = number(c, "globalStoreSectors");
    double requested =
        number(c, "globalBytesLoaded") + number(c, "globalBytesStored");
    m.sectorBytesPerByte =
        std::max(1.0, ratio(32 * (loadSectors + storeSectors), requested, 1));
    m.reuse = std::max(1.0, ratio(loadSectors + storeSectors,
                                  number(c, "uniqueGlobalSectors"), 1));
    m.sharedConflict = std::max(1.0, ratio(number(c, "sharedWavefronts") * 128,
                                           number(c, "sharedBytes"), 1));
    const llvm::json::Object *classes = k->getObject("classes");
    m.divisionShare =
        ratio(number(classes, "div32") + number(classes, "div64"), warp, 0);
    m.loadSectorsPerRequest =
        ratio(loadSectors, number(c, "globalLoadRequests"), 0);
    m.storeSectorsPerRequest =
        ratio(storeSectors, number(c, "globalStoreRequests"), 0);
    m.wavefrontsPerRequest =
        ratio(number(c, "sharedWavefronts"), number(c, "sharedRequests"), 0);
    entry.kernel = m;
    profile.kernels.push_back(std::move(entry));
  }
  return profile;
}

} // namespace gptc::report
