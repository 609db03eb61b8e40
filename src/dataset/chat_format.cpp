// dataset/chat_format.cpp — prompt and answer texts of the chat samples.
#include "dataset/chat_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "strategy/registry.h"

namespace steptp::dataset {
namespace {

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

prompt::PromptInput prompt_input(const StepRecord& r, int n_answers) {
  prompt::PromptInput in;
  in.task = r.workload;
  in.declarations = r.declarations;
  in.program = r.original;
  for (const std::string& step : r.provenance) {
    const std::string name = step.substr(0, step.find('('));
    if (strategy::find_strategy(name) != nullptr) in.history.push_back(step);
  }
  in.num_answers = std::max(1, n_answers);
  return in;
}

std::string user_prompt(const StepRecord& r, int n_answers) {
  return prompt::user_message(prompt_input(r, n_answers));
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
      nlohmann::ordered_json::array({{{"role", "system"}, {"content", prompt::system_message()}},
                                     {{"role", "user"}, {"content", user}},
                                     {{"role", "assistant"}, {"content", assistant}}});
  return line.dump();
}

nlohmann::json llama_factory_dataset_info() {
  nlohmann::ordered_json info;
  for (const char* kind : {"single", "multi"})
    for (const char* split : {"train", "test"})
      info[fmt::format("steptp_{}_{}", kind, split)] = {
          {"file_name", fmt::format("{}_{}.jsonl", kind, split)},
          {"formatting", "sharegpt"},
          {"columns", {{"messages", "messages"}}},
          {"tags",
           {{"role_tag", "role"},
            {"content_tag", "content"},
            {"user_tag", "user"},
            {"assistant_tag", "assistant"},
            {"system_tag", "system"}}}};
  return nlohmann::json::parse(info.dump());
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
