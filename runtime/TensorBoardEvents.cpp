//===- TensorBoardEvents.cpp - TensorBoard event files, by hand -----------===//

#include "runtime/TensorBoardEvents.h"

#include "runtime/Files.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace gptc::runtime {

namespace {

/// The byte-at-a-time table of the reflected polynomial.
const std::array<uint32_t, 256> &crcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

void putFixed(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff));
}

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}

/// Protocol buffer fields: the key (field number, wire type), then the
/// value. Wire types: 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit.
void putKey(std::string &out, int field, int wireType) {
  putVarint(out, uint64_t(field) << 3 | uint64_t(wireType));
}
void putDouble(std::string &out, int field, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  putKey(out, field, 1);
  putFixed(out, bits, 8);
}
void putFloat(std::string &out, int field, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  putKey(out, field, 5);
  putFixed(out, bits, 4);
}
/// An int64 field; proto3 leaves a 0 out.
void putInt64(std::string &out, int field, int64_t v) {
  if (v == 0)
    return;
  putKey(out, field, 0);
  putVarint(out, uint64_t(v));
}
void putBytes(std::string &out, int field, const std::string &bytes) {
  putKey(out, field, 2);
  putVarint(out, bytes.size());
  out += bytes;
}

/// Event's fields (tensorflow/core/util/event.proto) and Summary's
/// (tensorflow/core/framework/summary.proto).
enum : int {
  kEventWallTime = 1,
  kEventStep = 2,
  kEventFileVersion = 3,
  kEventSummary = 5,
  kEventSessionLog = 7,
  kSessionLogStatus = 1,
  kSessionLogStart = 1,
  kSummaryValue = 1,
  kValueTag = 1,
  kValueSimpleValue = 2,
};

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || !name[0])
    return "localhost";
  std::string host = name;
  for (char &c : host)
    if (c == '/')
      c = '_';
  return host;
}

} // namespace

uint32_t crc32c(const void *data, size_t n) {
  const auto &table = crcTable();
  const auto *p = static_cast<const uint8_t *>(data);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i)
    c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

uint32_t maskedCrc32c(const void *data, size_t n) {
  uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string tfRecord(const std::string &data) {
  std::string record, length;
  putFixed(length, data.size(), 8);
  record = length;
  putFixed(record, maskedCrc32c(length.data(), length.size()), 4);
  record += data;
  putFixed(record, maskedCrc32c(data.data(), data.size()), 4);
  return record;
}

std::string fileVersionEvent(double wallTime) {
  std::string event;
  putDouble(event, kEventWallTime, wallTime);
  putBytes(event, kEventFileVersion, "brain.Event:2");
  return event;
}

std::string sessionStartEvent(double wallTime, int64_t step) {
  std::string log, event;
  putInt64(log, kSessionLogStatus, kSessionLogStart);
  putDouble(event, kEventWallTime, wallTime);
  putInt64(event, kEventStep, step);
  putBytes(event, kEventSessionLog, log);
  return event;
}

std::string scalarEvent(double wallTime, int64_t step, const std::string &tag,
                        float value) {
  std::string v, summary, event;
  putBytes(v, kValueTag, tag);
  putFloat(v, kValueSimpleValue, value);
  putBytes(summary, kSummaryValue, v);
  putDouble(event, kEventWallTime, wallTime);
  putInt64(event, kEventStep, step);
  putBytes(event, kEventSummary, summary);
  return event;
}

double wallTimeNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TensorBoardWriter::~TensorBoardWriter() {
  if (file)
    std::fclose(file);
}

bool TensorBoardWriter::open(const std::string &dir, int64_t firstStep,
                             std::string &error) {
  if (!makeDirectories(dir, error))
    return false;
  // A new file each run (TensorBoard reads a directory's files in name
  // order); one of this second and host already there gets a suffix.
  const std::string base = dir + "/events.out.tfevents." +
                           std::to_string(int64_t(std::time(nullptr))) + "." +
                           hostName() + ".gptc";
  int fd = -1;
  for (int n = 0; fd < 0 && n < 100; ++n) {
    filePath = n ? base + "." + std::to_string(n) : base;
    fd =
        ::open(filePath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0 || !(file = ::fdopen(fd, "wb"))) {
    error = filePath +
            ": cannot write the TensorBoard events: " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  return write(fileVersionEvent(wallTimeNow()), error) &&
         write(sessionStartEvent(wallTimeNow(), firstStep), error);
}

bool TensorBoardWriter::scalar(const std::string &tag, int64_t step,
                               double value, std::string &error) {
  return write(scalarEvent(wallTimeNow(), step, tag, float(value)), error);
}

bool TensorBoardWriter::write(const std::string &event, std::string &error) {
  if (!file)
    return true;
  std::string record = tfRecord(event);
  if (std::fwrite(record.data(), 1, record.size(), file) != record.size() ||
      std::fflush(file) != 0) {
    error = filePath +
            ": cannot write the TensorBoard events: " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace gptc::runtime
