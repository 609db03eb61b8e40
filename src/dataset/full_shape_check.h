// dataset/full_shape_check.h — the build's own check of default-shape steps at their full
// shapes: a seeded sample of the kept single-answer samples that were verified on their reduced
// instance is verified again as shown, with the compiled C engine (the interpreter cannot
// afford those shapes), on other input seeds than the generator used.
//
// Deterministic: the sample depends on the seed and the records alone, never on threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/record.h"

namespace steptp::dataset {

struct FullShapeCheckOptions {
  int64_t samples = 200;             // most samples checked; 0: none
  int64_t work_limit = 100'000'000;  // statement executions per run a sample may need
  uint64_t seed = 0;
  int jobs = 0;           // 0: all cores
  bool progress = false;  // a progress bar on stderr
};

struct FullShapeCheck {
  int64_t candidates = 0;  // kept samples verified on a reduced instance
  int64_t eligible = 0;    // of those, within work_limit
  int64_t checked = 0;
  int64_t passed = 0;
  std::vector<std::string> failures;  // "unit site: reason", at most 20
};

// `records` are the kept single-answer samples in output order.
FullShapeCheck check_at_full_shape(const std::vector<const StepRecord*>& records,
                                   const FullShapeCheckOptions& options);

}  // namespace steptp::dataset
