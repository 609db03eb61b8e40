// dataset/record.h — one verified step as the dataset stores it, and one work unit's result
// (its records plus the counts of what was tried and rejected), with lossless JSON forms.
//
// The checkpoint files and the archive are these JSON forms; the final merge always reads
// them back, so a resumed run and a fresh run merge exactly the same values.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace steptp::dataset {

struct Verification {
  std::string engine;
  std::string status;
  int seeds_run = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  // Where the values were compared: empty for the shapes the record shows; "reduced" for the
  // workload's reduced instance (a default-shape step replayed there as the same
  // transformation, docs/dataset.md), whose shape parameters are `shapes`.
  std::string instance;
  nlohmann::json shapes;
};

struct StepRecord {
  std::string unit;      // "Softmax.small"
  std::string workload;  // catalog name, also the model name in prompts
  int level = 0;
  std::string instance;           // "small" / "default"
  nlohmann::json shapes;          // the shape parameters of the traced instance
  uint64_t seed = 0;              // the unit's seed
  std::string declarations;       // one declaration per line
  std::string original;           // the body before the step (canonical LEIR)
  std::string transformed;        // the body after the step
  uint64_t original_hash = 0;     // leir::hash_value of the program before
  uint64_t transformed_hash = 0;  // and after
  std::string strategy;
  std::string category;
  std::string difficulty;
  std::string site;                     // printed Site, replayable
  int depth = 0;                        // steps between the imported program and `original`
  std::vector<std::string> provenance;  // those steps, printed, in order
  std::string cot;                      // the chain of thought text
  Verification verification;
  std::map<std::string, std::string> lowered;  // "c" / "cuda" / "tir" → text (on request)
};

struct UnitResult {
  std::string unit;
  std::string workload;
  std::string import_error;  // non-empty when the graph could not be imported
  int64_t states = 0;        // programs whose sites were enumerated
  int64_t candidates = 0;    // (state, site) pairs tried
  int64_t verified = 0;
  std::map<std::string, int64_t> rejected;  // reason → count (verify status names, ...)
  std::vector<StepRecord> records;
};

nlohmann::json to_json(const StepRecord& r);
StepRecord step_record_from_json(const nlohmann::json& j);
nlohmann::json to_json(const UnitResult& u);
UnitResult unit_result_from_json(const nlohmann::json& j);

}  // namespace steptp::dataset
