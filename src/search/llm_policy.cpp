// search/llm_policy.cpp — the llm policy: the prompt and the answer parsing are the llm
// module's (llm/prompts.h, llm/answer_parser.h), so search, eval-single and the dataset ask
// and read models the same way.
#include "search/llm_policy.h"

#include <cctype>

#include "leir/parser.h"
#include "llm/answer_parser.h"
#include "llm/prompts.h"

namespace steptp::search {
namespace {

// "step: reason" (the engine's failure text) → the step and the reason. Step labels contain ':'
// (llm:collect) but never ": ", so the first ": " separates them.
llm::FailedAttempt failed_attempt(const std::string& failure) {
  const size_t separator = failure.find(": ");
  if (separator == std::string::npos) return {"", failure, ""};
  return {failure.substr(0, separator), failure.substr(separator + 2), ""};
}

// "beam" → "beam search"; names that already say what they are stay as they are.
std::string method_text(std::string_view method) {
  if (method.empty()) return "";
  if (method == "mcts") return "Monte Carlo tree search";
  return std::string(method) + " search";
}

}  // namespace

std::string multi_step_prompt(const PolicyRequest& r, std::string_view workload) {
  llm::MultiStepPrompt in;
  in.task = std::string(workload);
  in.method = method_text(r.method);
  in.current = r.program;
  if (in.current.decls.empty()) in.current.decls = r.initial.decls;
  for (const std::string& step : r.trace) in.path.push_back({step, std::nullopt});
  in.current_speedup = r.speedup;
  for (const std::string& f : r.failures) in.failed.push_back(failed_attempt(f));
  in.target = llm::Target::kCpu;
  in.menu = llm::registered_strategy_menu();
  in.num_answers = r.n;
  return llm::multi_step_prompt(in);
}

std::vector<Proposal> LlmPolicy::propose(const PolicyRequest& request) {
  std::vector<Proposal> out;
  Result<std::vector<std::string>> texts =
      source_.answers(multi_step_prompt(request, workload_), request.n);
  if (!texts.ok()) {
    out.emplace_back("llm:call", Error::make("llm_call_error", texts.error().render()));
    return out;
  }
  static const llm::StrategyNames known = llm::registered_strategy_names();
  for (const std::string& text : *texts) {
    Result<llm::ParsedAnswer> parsed = llm::parse_answer(text, known);
    if (!parsed.ok()) {
      out.emplace_back("llm:unparsed", Error::make("answer_parse_error", parsed.error().render()));
      continue;
    }
    for (llm::Candidate& c : parsed->candidates) {
      std::string step = "llm:" + c.applied_strategy;  // a canonical registered name
      Result<leir::Program> program = leir::parse_program(c.transformed_ir, "<model answer>");
      if (!program.ok()) {
        out.emplace_back(step, Error::make("leir_parse_error", program.error().render()));
        continue;
      }
      leir::Program p = std::move(program).value();
      // A bare body is normal (the prompt shows the declarations separately); declarations the
      // model did write are kept, and the verifier rejects them if they differ.
      if (p.decls.empty()) p.decls = request.initial.decls;
      out.emplace_back(step, std::move(p));
    }
  }
  return out;
}

}  // namespace steptp::search
