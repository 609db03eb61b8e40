// search/llm_policy.cpp — the llm policy: the prompt is the prompt module's and the answer
// parsing the llm module's, so search, eval-single and the dataset ask and read models the same
// way.
#include "search/llm_policy.h"

#include "leir/parser.h"
#include "llm/answer_parser.h"
#include "llm/chat_client.h"
#include "llm/registered_names.h"
#include "strategy/identify_step.h"

namespace steptp::search {

prompt::PromptInput search_prompt_input(const PolicyRequest& r, std::string_view workload) {
  leir::Program current = r.program;
  if (current.decls.empty()) current.decls = r.initial.decls;
  return prompt::prompt_input(std::string(workload), current, r.trace, 1);
}

std::vector<Proposal> LlmPolicy::propose(const PolicyRequest& request) {
  std::vector<Proposal> out;
  if (fatal_) return out;
  Result<std::vector<std::string>> texts =
      source_.answers(search_prompt_input(request, workload_), request.n);
  if (!texts.ok()) {
    if (llm::is_endpoint_failure(texts.error())) {
      fatal_ = texts.error();
      return out;
    }
    out.emplace_back("llm:call", Error::make("llm_call_error", texts.error().render()));
    return out;
  }
  static const llm::StrategyNames known = llm::registered_strategy_names();
  leir::Program current = request.program;
  if (current.decls.empty()) current.decls = request.initial.decls;
  for (const std::string& text : *texts) {
    Result<llm::ParsedAnswer> parsed = llm::parse_answer(text, known);
    if (!parsed.ok()) {
      out.emplace_back("llm:unparsed", Error::make("answer_parse_error", parsed.error().render()));
      continue;
    }
    for (llm::Candidate& c : parsed->candidates) {
      const std::string claim = "llm:" + c.applied_strategy;  // a canonical registered name
      Result<leir::Program> program = leir::parse_program(c.transformed_ir, "<model answer>");
      if (!program.ok()) {
        out.emplace_back(claim, Error::make("leir_parse_error", program.error().render()));
        continue;
      }
      leir::Program p = std::move(program).value();
      // A bare body is normal (the prompt shows the declarations separately); declarations the
      // model did write are kept, and the verifier rejects them if they differ.
      if (p.decls.empty()) p.decls = request.initial.decls;
      auto step = strategy::identify_step(current, p, c.applied_strategy, {.any_strategy = true});
      if (!step) {
        out.emplace_back(claim, std::move(p));
        continue;
      }
      Proposal proposal(step->site, std::move(p));
      proposal.claim = claim;
      out.push_back(std::move(proposal));
    }
  }
  return out;
}

}  // namespace steptp::search
