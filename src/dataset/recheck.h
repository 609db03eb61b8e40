// dataset/recheck.h — independent re-verification of exported chat samples from the JSONL
// alone: parse the prompt and the answer, rebuild both programs, verify them again (with the
// compiled C engine when requested and available, else the interpreter).
//
// It trusts nothing the generator kept in memory; a failure here means the export is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"
#include "verify/verify.h"

namespace steptp::dataset {

struct RecheckSummary {
  int64_t lines = 0;    // samples in the files
  int64_t checked = 0;  // samples re-verified (a seeded sample of at most `max_samples`)
  // Sampled but too large to re-verify: over 5·10⁶ statement executions per run the compiled
  // engine alone re-verifies (the interpreter would take minutes), over 2·10⁸ nothing does.
  int64_t skipped = 0;
  int64_t passed = 0;
  std::string engine;
  std::vector<std::string> failures;  // "file:line: reason", at most 20
};

// The compiled C engine for kernels compiled once and run on a few inputs: -O1, one thread.
verify::EngineFn one_shot_compiled_engine();

// `files` are single- or multi-answer chat JSONL files, re-verified on `jobs` threads (0: all
// cores). Errors: "io_error" only; a malformed line is a failure, not an error.
Result<RecheckSummary> recheck_chat_files(const std::vector<std::string>& files,
                                          int64_t max_samples, uint64_t seed, bool compiled,
                                          int jobs = 0, bool progress = false);

}  // namespace steptp::dataset
