//===- TensorBoardEvents.h - TensorBoard event files, by hand ---*- C++ -*-===//
//
// `gptc train --tensorboard DIR` writes what TensorBoard reads, without
// TensorFlow or a protobuf library: DIR/events.out.tfevents.SECONDS.HOST.gptc,
// a TFRecord file of `Event` protocol buffers (docs/checkpoints.md):
//
//   every record   u64 length (little-endian), u32 masked CRC-32C of those
//                  8 bytes, the data, u32 masked CRC-32C of the data; masked
//                  = ((crc >> 15) | (crc << 17)) + 0xa282ead8
//   first Event    wall_time (1, double), file_version (3) "brain.Event:2"
//   then           wall_time, step (2, varint: the run's first step to
//                  log), session_log (7) {status (1): START (1)}:
//                  TensorBoard drops the events of that step and later
//                  that older files of the directory hold (a resumed run
//                  logs them again)
//   then Events    wall_time, step, summary (5): one Summary.Value (1)
//                  with tag (1) and simple_value (2, float)
//
// As proto3 writes them, a step of 0 is left out.
//
// Each record is flushed as it is written, so a running TensorBoard sees
// the steps as they come.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_TENSORBOARDEVENTS_H
#define GPTC_RUNTIME_TENSORBOARDEVENTS_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace gptc::runtime {

/// CRC-32C (Castagnoli: the reflected polynomial 0x82f63b78) of `n` bytes.
uint32_t crc32c(const void *data, size_t n);

/// TFRecord's masked CRC-32C of `n` bytes.
uint32_t maskedCrc32c(const void *data, size_t n);

/// `data` framed as one TFRecord.
std::string tfRecord(const std::string &data);

/// The encoded Event of a file's start: wall_time and file_version.
std::string fileVersionEvent(double wallTime);

/// The encoded Event of a session's start at `step`.
std::string sessionStartEvent(double wallTime, int64_t step);

/// The encoded Event of one scalar: wall_time, step, Summary{Value{tag,
/// simple_value}}.
std::string scalarEvent(double wallTime, int64_t step, const std::string &tag,
                        float value);

/// Seconds since the Unix epoch (an Event's wall_time).
double wallTimeNow();

/// An open event file in a directory.
class TensorBoardWriter {
public:
  TensorBoardWriter() = default;
  TensorBoardWriter(const TensorBoardWriter &) = delete;
  TensorBoardWriter &operator=(const TensorBoardWriter &) = delete;
  ~TensorBoardWriter();

  /// Creates `dir` (and its parents) and a new event file in it, starting
  /// with the file_version event and a session's start at `firstStep`,
  /// the first step the run logs (0 for a new run, S + 1 for one resumed
  /// at step S). False with one `error` line naming the path.
  bool open(const std::string &dir, int64_t firstStep, std::string &error);
  /// Appends the scalar `tag` at `step` and flushes.
  bool scalar(const std::string &tag, int64_t step, double value,
              std::string &error);
  const std::string &path() const { return filePath; }

private:
  bool write(const std::string &event, std::string &error);

  std::FILE *file = nullptr;
  std::string filePath;
};

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_TENSORBOARDEVENTS_H
