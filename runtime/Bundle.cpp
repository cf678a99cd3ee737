//===- Bundle.cpp - A compiled bundle, verified and loaded ----------------===//

#include "runtime/Bundle.h"

#include "runtime/Files.h"
#include "runtime/HostCpu.h"
#include "runtime/StepLayout.h"

#include <sstream>
#include <vector>

namespace gptc::runtime {

namespace {

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// "slot NAME OFFSET DTYPE SHAPE" -> its words.
std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

/// The manifest field a descriptor line describes, and how the two lines
/// differ: "slots (param.wte).offset: 4096 in manifest.json, 8192 in
/// step.so".
std::string describeDifference(const std::string &mine,
                               const std::string &theirs,
                               const std::string &library) {
  std::vector<std::string> a = words(mine), b = words(theirs);
  auto differ = [&](const std::string &field, const std::string &x,
                    const std::string &y) {
    return field + ": " + x + " in manifest.json, " + y + " in " + library;
  };
  if (a.empty() || b.empty() || a[0] != b[0])
    return differ("layout", "'" + mine + "'", "'" + theirs + "'");
  if (a[0] == "slot" && a.size() == 5 && b.size() == 5) {
    if (a[1] != b[1])
      return differ("slots (" + a[1] + ")", "slot '" + a[1] + "'",
                    "slot '" + b[1] + "' in its place");
    static const char *fields[] = {"", "", "offset", "dtype", "shape"};
    for (size_t i = 2; i < 5; ++i)
      if (a[i] != b[i])
        return differ("slots (" + a[1] + ")." + fields[i], a[i], b[i]);
  }
  if (a[0] == "workspace" && a.size() == 3 && b.size() == 3)
    return differ("workspace", "[offset " + a[1] + ", " + a[2] + " bytes]",
                  "[offset " + b[1] + ", " + b[2] + " bytes]");
  std::string field = a[0] == "arena_bytes" ? "arena_bytes" : a[0];
  return differ(field, mine.substr(mine.find(' ') + 1),
                theirs.substr(theirs.find(' ') + 1));
}

} // namespace

std::string compareLayouts(const Manifest &manifest,
                           const std::string &libraryText,
                           const std::string &libraryName) {
  std::vector<std::string> mine = lines(manifest.layoutText());
  std::vector<std::string> theirs = lines(libraryText);
  for (size_t i = 0; i < mine.size() || i < theirs.size(); ++i) {
    if (i >= theirs.size())
      return "slots: '" + mine[i] + "' in manifest.json, missing in " +
             libraryName;
    if (i >= mine.size())
      return "slots: '" + theirs[i] + "' in " + libraryName +
             ", missing in manifest.json";
    if (mine[i] != theirs[i])
      return describeDifference(mine[i], theirs[i], libraryName);
  }
  return "";
}

bool checkBundleFiles(const std::string &dir, Manifest &manifest,
                      std::string &error) {
  if (!readManifest(dir + "/manifest.json", manifest, error))
    return false;
  const StepLibraryFile &lib = manifest.stepLibrary;
  std::string path = dir + "/" + lib.file;
  std::string sha;
  int64_t bytes = 0;
  if (!checkRegularFile(path, "step library", error) ||
      !sha256File(path, sha, bytes, error))
    return false;
  const std::string stale = " (a stale, truncated or foreign step library: "
                            "recompile the bundle)";
  if (bytes != lib.bytes) {
    error = path + ": " + std::to_string(bytes) + " bytes, but " +
            manifest.path + " step_library.bytes says " +
            std::to_string(lib.bytes) + stale;
    return false;
  }
  if (sha != lib.sha256) {
    error = path + ": SHA-256 " + sha.substr(0, 16) + "... does not match " +
            manifest.path + " step_library.sha256 " + lib.sha256.substr(0, 16) +
            "..." + stale;
    return false;
  }
  // Code for another CPU would die of SIGILL somewhere in the first step.
  std::vector<std::string> missing =
      missingCpuFeatures(manifest.hostCpuFeatures);
  if (!missing.empty()) {
    std::string names;
    for (const std::string &f : missing)
      names += (names.empty() ? "" : ", ") + f;
    error = manifest.path + ": host_cpu: " + lib.file +
            " was compiled for CPU '" + manifest.hostCpuName +
            "', and this CPU lacks " + names +
            " (recompile the bundle here, or with gptc compile --cpu=NAME for "
            "a CPU that both machines' CPUs cover, e.g. x86-64-v3)";
    return false;
  }
  return true;
}

bool openBundle(const std::string &dir, Manifest &manifest, StepLibrary &step,
                std::string &error) {
  if (!checkBundleFiles(dir, manifest, error))
    return false;
  const StepLibraryFile &lib = manifest.stepLibrary;
  const std::string path = dir + "/" + lib.file;
  if (!step.load(path, error))
    return false;

  // The library's own layout against the manifest's.
  const char *text = step.layoutText();
  const char *hash = step.layoutHash();
  if (!text || !hash) {
    error = path + ": exports no layout descriptor (" + layout::kLayoutSymbol +
            "); recompile the bundle";
    return false;
  }
  std::string difference = compareLayouts(manifest, text, lib.file);
  if (!difference.empty()) {
    error = manifest.path + ": " + difference;
    return false;
  }
  // Every other field of the manifest against the one the library was
  // compiled with (libraries of older compilers do not say).
  if (const char *body = step.manifestHash();
      body && manifestBodySha256(manifest) != body) {
    error = manifest.path + ": not the manifest " + lib.file +
            " was compiled with (a field was edited: target, ranks, "
            "parameters, their inits or run defaults); recompile the bundle "
            "or restore the file";
    return false;
  }
  if (layout::layoutHash(text) != hash || manifest.layoutSha256 != hash) {
    error = manifest.path + ": layout_sha256: " + manifest.layoutSha256 +
            " does not match " + lib.file + "'s " + hash;
    return false;
  }
  return true;
}

} // namespace gptc::runtime
