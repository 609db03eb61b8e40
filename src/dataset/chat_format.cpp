// dataset/chat_format.cpp — prompt and answer texts of the chat samples.
#include "dataset/chat_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "strategy/registry.h"

namespace steptp::dataset {
namespace {

constexpr std::string_view kDeclHeader =
    "Tensor declarations (keep every name, role, dtype and shape unchanged):\n";
constexpr std::string_view kProgramHeader = "Current LEIR:\n";
constexpr std::string_view kMenuHeader = "\nStrategies: ";

std::string between(std::string_view text, std::string_view start, std::string_view end, bool& ok) {
  size_t a = text.find(start);
  if (a == std::string_view::npos) {
    ok = false;
    return {};
  }
  a += start.size();
  size_t b = text.find(end, a);
  if (b == std::string_view::npos) {
    ok = false;
    return {};
  }
  return std::string(text.substr(a, b - a));
}

}  // namespace

std::string_view system_prompt() {
  return "You are a tensor-program optimizer. Programs are written in LEIR, a loop-nest IR. You "
         "rewrite a program one verified step at a time with a named strategy, and you never "
         "change what it computes.";
}

std::vector<std::string> strategy_menu() {
  std::vector<std::string> out;
  for (const strategy::Strategy* s : strategy::all_strategies()) out.emplace_back(s->name());
  return out;
}

std::string user_prompt(const StepRecord& r, const std::vector<std::string>& menu, int n_answers) {
  std::string menu_text;
  for (size_t i = 0; i < menu.size(); ++i) menu_text += (i ? ", " : "") + menu[i];
  std::string task =
      n_answers <= 1
          ? "Apply exactly one strategy to the program and give the transformed program. Its "
            "outputs must equal the current program's for every input, up to floating-point "
            "rounding. Reason inside <think></think>, then answer inside <answer></answer> with "
            "one JSON object with the keys \"applied_strategy\" and \"transformed_IR\"."
          : fmt::format(
                "Give at least {} different transformed programs, each obtained by applying "
                "exactly one strategy to the program. Their outputs must equal the current "
                "program's for every input, up to floating-point rounding. Reason inside "
                "<think></think>, then answer inside <answer></answer> with a JSON list of "
                "objects with the keys \"idx\", \"applied_strategy\" and \"transformed_IR\".",
                n_answers);
  return fmt::format("Model: {}\n{}{}{}{}\n{}{}.\n{}", r.workload, kDeclHeader, r.declarations,
                     kProgramHeader, r.original, kMenuHeader.substr(1), menu_text, task);
}

std::string assistant_single(const StepRecord& r) {
  nlohmann::ordered_json answer{{"applied_strategy", r.strategy},
                                {"transformed_IR", r.transformed}};
  return "<think>" + r.cot + "</think><answer>" + answer.dump() + "</answer>";
}

std::string assistant_multi(const std::vector<const StepRecord*>& labels) {
  std::string think = fmt::format(
      "There are {} transformed programs; each step is analysed in turn.\n", labels.size());
  nlohmann::ordered_json answer = nlohmann::ordered_json::array();
  for (size_t i = 0; i < labels.size(); ++i) {
    think += fmt::format("Step {} ({}):\n{}\n", i, labels[i]->strategy, labels[i]->cot);
    answer.push_back({{"idx", i},
                      {"applied_strategy", labels[i]->strategy},
                      {"transformed_IR", labels[i]->transformed}});
  }
  return "<think>" + think + "</think><answer>" + answer.dump() + "</answer>";
}

std::string chat_line(std::string_view user, std::string_view assistant) {
  nlohmann::ordered_json line;
  line["messages"] =
      nlohmann::ordered_json::array({{{"role", "system"}, {"content", system_prompt()}},
                                     {{"role", "user"}, {"content", user}},
                                     {{"role", "assistant"}, {"content", assistant}}});
  return line.dump();
}

Result<PromptParts> parse_user_prompt(std::string_view prompt) {
  bool ok = true;
  PromptParts p;
  p.model = between(prompt, "Model: ", "\n", ok);
  p.declarations = between(prompt, kDeclHeader, kProgramHeader, ok);
  p.program = between(prompt, kProgramHeader, kMenuHeader, ok);
  if (!ok) return Error::make("bad_prompt", "the prompt does not have the dataset's layout");
  return p;
}

Result<AnswerParts> split_assistant(std::string_view content) {
  bool ok = true;
  AnswerParts a;
  a.think = between(content, "<think>", "</think>", ok);
  a.answer = between(content, "<answer>", "</answer>", ok);
  if (!ok) return Error::make("bad_answer", "expected <think>…</think><answer>…</answer>");
  return a;
}

int64_t estimated_tokens(std::string_view text) {
  return static_cast<int64_t>((text.size() + 3) / 4);
}

}  // namespace steptp::dataset
