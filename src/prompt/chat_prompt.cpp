// prompt/chat_prompt.cpp — the wording of the prompt. Changing a sentence here changes what
// every model is trained on and asked: keep it stable, deterministic and readable back.
#include "prompt/chat_prompt.h"

#include <fmt/format.h>

#include <charconv>

#include "leir/printer.h"
#include "strategy/registry.h"

namespace steptp::prompt {
namespace {

constexpr std::string_view kTaskHeader = "Model: ";
constexpr std::string_view kDeclHeader =
    "Tensor declarations (keep every name, role, dtype and shape unchanged):\n";
constexpr std::string_view kProgramHeader = "Current LEIR:\n";
constexpr std::string_view kHistoryHeader = "Steps applied so far (oldest first):\n";
constexpr std::string_view kHistoryItem = "- ";
constexpr std::string_view kMenuHeader = "Strategies: ";
constexpr std::string_view kMultiMarker = "Give at least ";

std::string task_sentence(int num_answers) {
  if (num_answers <= 1)
    return "Apply exactly one strategy to the program and give the transformed program. Its "
           "outputs must equal the current program's for every input, up to floating-point "
           "rounding. Reason inside <think></think>, then answer inside <answer></answer> with "
           "one JSON object with the keys \"applied_strategy\" and \"transformed_IR\".";
  return fmt::format(
      "{}{} different transformed programs, each obtained by applying exactly one strategy to "
      "the program. Their outputs must equal the current program's for every input, up to "
      "floating-point rounding. Reason inside <think></think>, then answer inside "
      "<answer></answer> with a JSON list of objects with the keys \"idx\", \"applied_strategy\" "
      "and \"transformed_IR\".",
      kMultiMarker, num_answers);
}

// The text between `start` and the next `end` after it; nullopt when either is missing.
std::optional<std::string_view> between(std::string_view text, std::string_view start,
                                        std::string_view end, size_t from = 0) {
  size_t a = text.find(start, from);
  if (a == std::string_view::npos) return std::nullopt;
  a += start.size();
  size_t b = text.find(end, a);
  if (b == std::string_view::npos) return std::nullopt;
  return text.substr(a, b - a);
}

Error bad_prompt(std::string_view what) {
  return Error::make("bad_prompt",
                     fmt::format("the prompt does not have steptp's layout: {}", what));
}

}  // namespace

PromptInput prompt_input(std::string task, const leir::Program& program,
                         std::vector<std::string> history, int num_answers) {
  PromptInput in;
  in.task = std::move(task);
  for (const leir::TensorDecl& d : program.decls) in.declarations += leir::print(d) + "\n";
  in.program = leir::print_body(program.blocks);
  in.history = std::move(history);
  in.num_answers = num_answers;
  return in;
}

std::string_view system_message() {
  return "You are a tensor-program optimizer. Programs are written in LEIR, a loop-nest IR. You "
         "rewrite a program one verified step at a time with a named strategy, and you never "
         "change what it computes.";
}

const std::vector<std::string>& strategy_menu() {
  static const std::vector<std::string> menu = [] {
    std::vector<std::string> out;
    for (const strategy::Strategy* s : strategy::all_strategies()) out.emplace_back(s->name());
    return out;
  }();
  return menu;
}

std::string user_message(const PromptInput& in) {
  std::string out;
  out += fmt::format("{}{}\n", kTaskHeader, in.task);
  out += kDeclHeader;
  out += in.declarations;
  out += kProgramHeader;
  out += in.program + "\n";
  if (!in.history.empty()) {
    out += kHistoryHeader;
    for (const std::string& step : in.history) out += fmt::format("{}{}\n", kHistoryItem, step);
  }
  out += fmt::format("{}{}.\n", kMenuHeader, fmt::join(strategy_menu(), ", "));
  out += task_sentence(in.num_answers);
  return out;
}

Result<PromptInput> parse_user_message(std::string_view text) {
  PromptInput in;
  if (text.substr(0, kTaskHeader.size()) != kTaskHeader) return bad_prompt("no 'Model:' line");
  auto task = between(text, kTaskHeader, "\n");
  auto decls = between(text, kDeclHeader, kProgramHeader);
  if (!task || !decls) return bad_prompt("no tensor declarations");
  size_t program_at = text.find(kProgramHeader);
  auto program = between(text, kProgramHeader, "\n", program_at);
  if (!program) return bad_prompt("no 'Current LEIR:' program line");
  in.task = std::string(*task);
  in.declarations = std::string(*decls);
  in.program = std::string(*program);
  size_t pos = program_at + kProgramHeader.size() + program->size() + 1;
  if (text.substr(pos, kHistoryHeader.size()) == kHistoryHeader) {
    pos += kHistoryHeader.size();
    while (text.substr(pos, kHistoryItem.size()) == kHistoryItem) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) return bad_prompt("an unterminated history line");
      in.history.emplace_back(
          text.substr(pos + kHistoryItem.size(), end - pos - kHistoryItem.size()));
      pos = end + 1;
    }
  }
  if (text.substr(pos, kMenuHeader.size()) != kMenuHeader)
    return bad_prompt("no 'Strategies:' line after the program");
  in.num_answers = 1;
  if (size_t m = text.find(kMultiMarker, pos); m != std::string_view::npos) {
    const char* first = text.data() + m + kMultiMarker.size();
    int n = 0;
    auto [end, ec] = std::from_chars(first, text.data() + text.size(), n);
    if (ec != std::errc() || n < 2) return bad_prompt("an unreadable number of answers");
    in.num_answers = n;
  }
  return in;
}

}  // namespace steptp::prompt
