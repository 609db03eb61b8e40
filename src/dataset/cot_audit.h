// dataset/cot_audit.h — the chain-of-thought checker (cot/cot_check.h) run over a build's
// archive: a seeded sample of its records, each rebuilt from the JSONL alone (declarations,
// bodies before and after) with the cost model's figures recomputed, never taken from the text.
//
// Also collects each strategy's effect phrase (the performance part after the strategy's name,
// up to the step's own facts and figures) over
// the whole sample, so that two strategies sharing one sentence are reported too.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/error.h"

namespace steptp::dataset {

struct CotAudit {
  int64_t records = 0;                // lines in the archive
  int64_t checked = 0;                // records in the seeded sample
  int64_t failed = 0;                 // records with at least one violation
  std::vector<std::string> failures;  // "line N (strategy): violation", at most 20
  int64_t strategies = 0;             // distinct strategies in the sample
  // Effect sentences that more than one strategy used: sentence → "a, b".
  std::map<std::string, std::string> shared_effects;
  bool passed() const { return failed == 0 && shared_effects.empty(); }
};

// `archive` is a build's archive.jsonl; `sample` records are drawn with `seed` (0: all).
// Errors: "io_error" (unreadable file). A malformed record is a failure, not an error.
Result<CotAudit> audit_archive_cot(const std::string& archive, int64_t sample, uint64_t seed);

}  // namespace steptp::dataset
