//===- BundleByDigest.cpp - A checkpoint's bundle, from the cache ---------===//

#include "commands/BundleByDigest.h"
#include "commands/CacheScan.h"
#include "commands/CompileCache.h"

#include "runtime/Manifest.h"

#include <dirent.h>

#include <algorithm>
#include <vector>

namespace gptc::commands {

bool findCachedBundle(const std::string &stepLibrarySha256,
                      std::string &bundle) {
  if (stepLibrarySha256.size() != 64)
    return false;
  for (const std::string &dir : compileCacheDirectories()) {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d))
        if (isCacheBundleName(e->d_name))
          names.push_back(e->d_name);
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
      std::string path = dir == "." ? name : dir + "/" + name, why, error;
      runtime::Manifest m;
      if (!isTrustedBundle(path, why) ||
          !runtime::readManifest(path + "/manifest.json", m, error) ||
          m.stepLibrary.sha256 != stepLibrarySha256)
        continue;
      bundle = path;
      return true;
    }
  }
  return false;
}

} // namespace gptc::commands
