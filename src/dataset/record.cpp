// dataset/record.cpp — JSON forms of StepRecord and UnitResult (ordered keys, lossless).
#include "dataset/record.h"

namespace steptp::dataset {

using nlohmann::json;

json to_json(const StepRecord& r) {
  json lowered = json::object();
  for (const auto& [k, v] : r.lowered) lowered[k] = v;
  json out{{"unit", r.unit},
           {"workload", r.workload},
           {"level", r.level},
           {"instance", r.instance},
           {"shapes", r.shapes},
           {"seed", r.seed},
           {"declarations", r.declarations},
           {"original_IR", r.original},
           {"transformed_IR", r.transformed},
           {"original_hash", r.original_hash},
           {"transformed_hash", r.transformed_hash},
           {"strategy", r.strategy},
           {"category", r.category},
           {"difficulty", r.difficulty},
           {"site", r.site},
           {"depth", r.depth},
           {"provenance", r.provenance},
           {"cot", r.cot},
           {"verification",
            {{"engine", r.verification.engine},
             {"status", r.verification.status},
             {"seeds", r.verification.seeds_run},
             {"max_abs_error", r.verification.max_abs_error},
             {"max_rel_error", r.verification.max_rel_error}}},
           {"lowered", lowered}};
  if (!r.verification.instance.empty()) {
    out["verification"]["instance"] = r.verification.instance;
    out["verification"]["shapes"] = r.verification.shapes;
  }
  return out;
}

StepRecord step_record_from_json(const json& j) {
  StepRecord r;
  r.unit = j.at("unit").get<std::string>();
  r.workload = j.at("workload").get<std::string>();
  r.level = j.at("level").get<int>();
  r.instance = j.at("instance").get<std::string>();
  r.shapes = j.at("shapes");
  r.seed = j.at("seed").get<uint64_t>();
  r.declarations = j.at("declarations").get<std::string>();
  r.original = j.at("original_IR").get<std::string>();
  r.transformed = j.at("transformed_IR").get<std::string>();
  r.original_hash = j.at("original_hash").get<uint64_t>();
  r.transformed_hash = j.at("transformed_hash").get<uint64_t>();
  r.strategy = j.at("strategy").get<std::string>();
  r.category = j.at("category").get<std::string>();
  r.difficulty = j.at("difficulty").get<std::string>();
  r.site = j.at("site").get<std::string>();
  r.depth = j.at("depth").get<int>();
  r.provenance = j.at("provenance").get<std::vector<std::string>>();
  r.cot = j.at("cot").get<std::string>();
  const json& v = j.at("verification");
  r.verification.engine = v.at("engine").get<std::string>();
  r.verification.status = v.at("status").get<std::string>();
  r.verification.seeds_run = v.at("seeds").get<int>();
  r.verification.max_abs_error = v.at("max_abs_error").get<double>();
  r.verification.max_rel_error = v.at("max_rel_error").get<double>();
  r.verification.instance = v.value("instance", std::string());
  if (v.contains("shapes")) r.verification.shapes = v.at("shapes");
  for (const auto& [k, v2] : j.at("lowered").items()) r.lowered[k] = v2.get<std::string>();
  return r;
}

json to_json(const UnitResult& u) {
  json records = json::array();
  for (const StepRecord& r : u.records) records.push_back(to_json(r));
  return json{
      {"unit", u.unit},         {"workload", u.workload},     {"import_error", u.import_error},
      {"states", u.states},     {"candidates", u.candidates}, {"verified", u.verified},
      {"rejected", u.rejected}, {"records", records}};
}

UnitResult unit_result_from_json(const json& j) {
  UnitResult u;
  u.unit = j.at("unit").get<std::string>();
  u.workload = j.at("workload").get<std::string>();
  u.import_error = j.at("import_error").get<std::string>();
  u.states = j.at("states").get<int64_t>();
  u.candidates = j.at("candidates").get<int64_t>();
  u.verified = j.at("verified").get<int64_t>();
  u.rejected = j.at("rejected").get<std::map<std::string, int64_t>>();
  for (const json& r : j.at("records")) u.records.push_back(step_record_from_json(r));
  return u;
}

}  // namespace steptp::dataset
