// cli/tokens_command.cpp — `steptp tokens FILE.jsonl... --tokenizer tokenizer.json`: the token
// length of every chat sample (a `messages` array per line, as build-dataset exports it) rendered
// with the Qwen3 chat template, summarised per file as prompt (every turn before the final
// assistant turn), answer (that turn) and total; `--ids` prints the ids of every sample so that
// they can be compared with another tokenizer; `--max-tokens N` turns the summary into a check
// (exit 1 when a sample is longer). `--plain` counts each file's whole text instead (a LEIR, TIR
// or CUDA program per file), for comparing the lengths of one program in several languages.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "cli/commands.h"
#include "dataset/stats.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/qwen3_chat.h"

namespace steptp::cli {
namespace {

// The messages of one exported line; a line that is not a chat sample is bad input.
Result<std::vector<tokenizer::ChatMessage>> chat_messages(const std::string& line,
                                                          const std::string& where) {
  nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
  if (record.is_discarded() || !record.is_object())
    return Error::make("bad_input", fmt::format("{}: not a JSON object", where));
  auto it = record.find("messages");
  if (it == record.end() || !it->is_array())
    return Error::make("bad_input", fmt::format("{}: no \"messages\" array", where));
  std::vector<tokenizer::ChatMessage> messages;
  for (const nlohmann::json& m : *it) {
    if (!m.is_object() || !m.contains("role") || !m.contains("content") || !m["role"].is_string() ||
        !m["content"].is_string())
      return Error::make(
          "bad_input",
          fmt::format("{}: every message needs string \"role\" and \"content\"", where));
    messages.emplace_back(m["role"].get<std::string>(), m["content"].get<std::string>());
  }
  return messages;
}

// One sample's lengths: the prompt is the conversation up to the final assistant turn, the
// answer what that turn adds (its header and end marker included, as a trainer's labels are).
struct SampleLengths {
  int64_t prompt = 0, answer = 0, total = 0;
};

SampleLengths sample_lengths(const tokenizer::BpeTokenizer& tok,
                             const std::vector<tokenizer::ChatMessage>& messages,
                             std::vector<int32_t>* ids) {
  std::vector<int32_t> all = tok.encode(tokenizer::render_qwen3_chat(messages));
  SampleLengths l;
  l.total = static_cast<int64_t>(all.size());
  const bool ends_with_answer = !messages.empty() && messages.back().first == "assistant";
  if (ends_with_answer) {
    const std::vector<tokenizer::ChatMessage> before(messages.begin(), messages.end() - 1);
    l.prompt = tokenizer::chat_token_count(tok, before);
    l.answer = l.total - l.prompt;
  } else {
    l.prompt = l.total;
  }
  if (ids) *ids = std::move(all);
  return l;
}

struct FileLengths {
  std::vector<int64_t> prompt, answer, total;
  void add(const SampleLengths& l) {
    prompt.push_back(l.prompt);
    answer.push_back(l.answer);
    total.push_back(l.total);
  }
  void add(const FileLengths& other) {
    prompt.insert(prompt.end(), other.prompt.begin(), other.prompt.end());
    answer.insert(answer.end(), other.answer.begin(), other.answer.end());
    total.insert(total.end(), other.total.begin(), other.total.end());
  }
  // The total's summary, with the prompt's and answer's beside it.
  nlohmann::json to_json() const {
    nlohmann::json j = dataset::to_json(dataset::summarize_lengths(total));
    j["prompt"] = dataset::to_json(dataset::summarize_lengths(prompt));
    j["answer"] = dataset::to_json(dataset::summarize_lengths(answer));
    return j;
  }
};

}  // namespace

void setup_tokens_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::vector<std::string> files;
    std::string tokenizer;
    int64_t max_tokens = 0;
    bool ids = false;
    bool json = false;
    bool plain = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "tokens", "Token lengths of exported chat samples (Qwen3 chat template), or their ids");
  cmd->add_option("files", flags->files, "Chat JSONL files (a \"messages\" array per line)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--plain", flags->plain,
                "Count each file's whole text as one sample (a program per file), no chat "
                "template");
  cmd->add_option("--tokenizer", flags->tokenizer, "Hugging Face tokenizer.json")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-tokens", flags->max_tokens,
                  "Check: exit 1 when a sample is longer than this (0: no check)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  cmd->add_flag("--ids", flags->ids,
                "Print one JSON line per sample: {file, line, tokens, ids} (no summary)");
  cmd->add_flag("--json", flags->json, "Print the summary as one JSON object");
  cmd->callback([flags, &ctx] {
    ctx.exit_code = kExitBadInput;
    Result<tokenizer::BpeTokenizer> tok = tokenizer::BpeTokenizer::from_file(flags->tokenizer);
    if (!tok) {
      std::cerr << "steptp: " << tok.error().render() << "\n";
      return;
    }
    nlohmann::json summary = {{"tokenizer", flags->tokenizer}, {"files", nlohmann::json::object()}};
    int64_t over_budget = 0;
    FileLengths all;
    std::vector<int64_t> plain_lengths;
    for (const std::string& file : flags->files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "steptp: cannot read " << file << "\n";
        return;
      }
      if (flags->plain) {
        std::ostringstream text;
        text << in.rdbuf();
        const auto n = static_cast<int64_t>(tok->encode(text.str()).size());
        plain_lengths.push_back(n);
        if (flags->max_tokens > 0 && n > flags->max_tokens) ++over_budget;
        summary["files"][file] = {{"tokens", n}};
        continue;
      }
      FileLengths lengths;
      std::string line;
      for (int64_t number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        Result<std::vector<tokenizer::ChatMessage>> messages =
            chat_messages(line, fmt::format("{}:{}", file, number));
        if (!messages) {
          std::cerr << "steptp: " << messages.error().render() << "\n";
          return;
        }
        std::vector<int32_t> ids;
        const SampleLengths l = sample_lengths(*tok, *messages, flags->ids ? &ids : nullptr);
        lengths.add(l);
        if (flags->max_tokens > 0 && l.total > flags->max_tokens) ++over_budget;
        if (flags->ids)
          std::cout << nlohmann::json{{"file", file},
                                      {"line", number},
                                      {"tokens", l.total},
                                      {"prompt_tokens", l.prompt},
                                      {"answer_tokens", l.answer},
                                      {"ids", ids}}
                           .dump()
                    << "\n";
      }
      all.add(lengths);
      summary["files"][file] = lengths.to_json();
    }
    summary["all"] =
        flags->plain ? dataset::to_json(dataset::summarize_lengths(plain_lengths)) : all.to_json();
    if (flags->max_tokens > 0) {
      summary["max_tokens"] = flags->max_tokens;
      summary["over_max_tokens"] = over_budget;
    }
    if (flags->json) {
      std::cout << summary.dump(1) << "\n";
    } else if (flags->plain) {
      for (const auto& [file, l] : summary["files"].items())
        std::cout << fmt::format("{}: {} tokens\n", file, l["tokens"].get<int64_t>());
    } else if (!flags->ids) {
      auto figures = [](const nlohmann::json& l) {
        return fmt::format("mean {} · p50 {} · p90 {} · p99 {} · max {}", l["mean"].get<int64_t>(),
                           l["p50"].get<int64_t>(), l["p90"].get<int64_t>(),
                           l["p99"].get<int64_t>(), l["max"].get<int64_t>());
      };
      for (const auto& [file, l] : summary["files"].items())
        std::cout << fmt::format("{}: {} samples · tokens {}\n  prompt {}\n  answer {}\n", file,
                                 l["count"].get<int64_t>(), figures(l), figures(l["prompt"]),
                                 figures(l["answer"]));
    }
    if (flags->max_tokens > 0 && !flags->json && !flags->ids)
      std::cout << fmt::format("{} samples over {} tokens\n", over_budget, flags->max_tokens);
    ctx.exit_code = over_budget > 0 ? kExitNo : kExitOk;
  });
}

}  // namespace steptp::cli
