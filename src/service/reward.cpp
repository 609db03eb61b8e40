// service/reward.cpp — eval-single's verdict, then the speedup of the best correct candidate.
#include "service/reward.h"

#include <algorithm>
#include <cmath>

#include "codegen/c_engine.h"
#include "leir/parser.h"
#include "llm/registered_names.h"

namespace steptp::service {
namespace {

// The candidates' programs, with the original's declarations where an answer gives a bare body
// (as score_answer reads them). Only called on answers score_answer found legal, so each parses.
std::vector<leir::Program> candidate_programs(const llm::EvalQuestion& q, std::string_view answer,
                                              const llm::StrategyNames& known) {
  std::vector<leir::Program> out;
  auto parsed = llm::parse_answer(answer, known);
  if (!parsed) return out;
  for (const llm::Candidate& c : parsed->candidates) {
    auto program = leir::parse_program(c.transformed_ir, "<answer>");
    if (!program) continue;
    if (program->decls.empty()) program->decls = q.original.decls;
    out.push_back(std::move(program).value());
    if (!q.multi()) break;  // score_answer scores only the first of a single answer
  }
  return out;
}

Result<double> median_ms(const leir::Program& p, const RewardOptions& options) {
  codegen::CEngineOptions engine;
  engine.threads = options.timing.threads;
  auto kernel = codegen::CompiledKernel::build(p, engine);
  if (!kernel) return std::move(kernel).error();
  codegen::KernelBuffers buffers = codegen::deterministic_buffers(*kernel, p);
  return codegen::time_kernel(*kernel, buffers, options.timing).median_ms;
}

}  // namespace

llm::EvalQuestion question_for(leir::Program original, std::vector<llm::Reference> references,
                               int asked) {
  llm::EvalQuestion q;
  q.id = "reward";
  q.original = std::move(original);
  q.asked = std::max(asked, 1);
  q.references = std::move(references);
  q.records = 1;
  return q;
}

double scalar_reward(bool format_ok, bool legal_and_equivalent, std::optional<double> speedup,
                     double speedup_weight) {
  if (!format_ok) return 0.0;
  if (!legal_and_equivalent) return 0.1;
  double gain = 0.0;
  if (speedup && *speedup > 0 && std::isfinite(*speedup))
    gain = std::clamp(std::log2(*speedup), -1.0, 1.0);
  return 1.0 + speedup_weight * gain;
}

RewardResult reward(const llm::EvalQuestion& question, std::string_view answer,
                    const RewardOptions& options) {
  static const llm::StrategyNames known = llm::registered_strategy_names();
  llm::EvalOptions eval;
  eval.verify = options.verify;
  eval.known = known;
  eval.require_match = !question.references.empty();
  RewardResult r;
  r.outcome = llm::score_answer(question, answer, eval);
  r.format_ok = r.outcome.parsed;
  r.legal = r.outcome.legal;
  r.equivalent = r.outcome.equivalent;
  if (!question.references.empty()) r.matched = r.outcome.matched;
  r.correct = r.outcome.correct;
  const bool good = r.legal && r.equivalent;
  if (good) {
    std::vector<leir::Program> programs = candidate_programs(question, answer, known);
    const double before = search::estimated_cost(question.original, options.cost);
    for (const leir::Program& p : programs) {
      const double after = search::estimated_cost(p, options.cost);
      if (after > 0)
        r.modelled_speedup = std::max(r.modelled_speedup.value_or(0.0), before / after);
    }
    if (options.measure && !programs.empty()) {
      auto base = median_ms(question.original, options);
      if (!base) r.measure_error = "original: " + base.error().render();
      for (size_t i = 0; base && i < programs.size(); ++i) {
        auto t = median_ms(programs[i], options);
        if (!t) {
          r.measure_error = "candidate: " + t.error().render();
          r.measured_speedup.reset();
          break;
        }
        if (*t > 0) r.measured_speedup = std::max(r.measured_speedup.value_or(0.0), *base / *t);
      }
    }
  }
  r.reward =
      scalar_reward(r.format_ok, good, r.measured_speedup ? r.measured_speedup : r.modelled_speedup,
                    options.speedup_weight);
  return r;
}

nlohmann::json RewardResult::to_json() const {
  nlohmann::json j = {{"format_ok", format_ok},
                      {"legal", legal},
                      {"equivalent", equivalent},
                      {"matched", matched ? nlohmann::json(*matched) : nlohmann::json(nullptr)},
                      {"correct", correct},
                      {"modelled_speedup", modelled_speedup ? nlohmann::json(*modelled_speedup)
                                                            : nlohmann::json(nullptr)},
                      {"measured_speedup", measured_speedup ? nlohmann::json(*measured_speedup)
                                                            : nlohmann::json(nullptr)},
                      {"reward", reward},
                      {"failure", outcome.failure},
                      {"detail", outcome.detail},
                      {"outcome", outcome.to_json()}};
  if (!measure_error.empty()) j["measure_error"] = measure_error;
  return j;
}

}  // namespace steptp::service
