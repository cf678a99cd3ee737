//===- SpecChecks.h - Rules that relate several spec keys -------*- C++ -*-===//
//
// Internal to the spec parser. After every key has been converted and
// range-checked on its own, SpecChecks verifies the rules between keys
// (n_head * head_dim == d_model, a window needs causal masking, ...). Each
// failure names one key: of the keys a rule involves, the one written
// closest to the user (a `--set` before the spec itself before the spec it
// extends), so the error points at the line most likely to be at fault.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_SPECCHECKS_H
#define GPTC_FRONTEND_SPECCHECKS_H

#include "frontend/SpecParser.h"

#include <initializer_list>
#include <map>
#include <string>

namespace gptc {

/// Where a key was written.
struct KeyRecord {
  SourceLoc keyLoc;
  SourceLoc valueLoc;
  int layer = 1; ///< 0 = --set, 1 = the spec, 2 = its base, ...
};

/// Dotted path ("model.n_head", "optimizer.groups.hidden.lr") -> record.
using KeyRecords = std::map<std::string, KeyRecord>;

class SpecChecks {
public:
  SpecChecks(const ModelSpec &spec, SpecError &error, const KeyRecords &records)
      : spec(spec), error(error), records(records) {}

  /// Runs every rule; false with `error` set at the first one broken.
  bool run();

private:
  bool checkShape();
  bool checkAttention();
  bool checkWindow();
  bool checkTraining();
  bool checkSchedule();
  bool checkGroups();
  bool checkCompileCost();

  /// Fails naming the most user-facing of `keys` (see the file comment).
  bool fail(std::initializer_list<std::string> keys,
            const std::string &message);

  const ModelSpec &spec;
  SpecError &error;
  const KeyRecords &records;
};

} // namespace gptc

#endif // GPTC_FRONTEND_SPECCHECKS_H
