//===- DataTestUtil.h - Helpers for the data tests --------------*- C++ -*-===//

#ifndef GPTC_UNITTESTS_DATA_DATATESTUTIL_H
#define GPTC_UNITTESTS_DATA_DATATESTUTIL_H

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gptc {
namespace data {
namespace testing {

/// A fresh temporary directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "gptc-data-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string path(const std::string &name) const {
    return (std::filesystem::path(dir) / name).string();
  }
  /// The names of the files in the directory, sorted.
  std::vector<std::string> listDir() const {
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(dir))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir;
};

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

inline std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// Raw shard bytes with the given header fields and body tokens.
inline std::string shardBytes(int32_t magic, int32_t version, int32_t count,
                              const std::vector<uint16_t> &body) {
  std::string s(1024, '\0');
  auto put = [&](size_t at, int32_t v) {
    for (int i = 0; i < 4; ++i)
      s[at + i] = char((uint32_t(v) >> (8 * i)) & 0xff);
  };
  put(0, magic);
  put(4, version);
  put(8, count);
  for (uint16_t t : body) {
    s.push_back(char(t & 0xff));
    s.push_back(char(t >> 8));
  }
  return s;
}

} // namespace testing
} // namespace data
} // namespace gptc

#endif // GPTC_UNITTESTS_DATA_DATATESTUTIL_H
