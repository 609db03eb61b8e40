// llm/prompts.cpp — prompt text. Changing a sentence here changes what models see: keep the
// wording stable and the output deterministic (no maps with unstable order, no clocks).
#include "llm/prompts.h"

#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/registry.h"

namespace steptp::llm {
namespace {

std::string declarations_text(const leir::Program& p) {
  std::string out;
  for (const leir::TensorDecl& d : p.decls) out += "  " + leir::print(d) + "\n";
  return out;
}

std::string menu_text(const std::vector<StrategyMenuEntry>& menu) {
  std::string out;
  for (const StrategyMenuEntry& e : menu)
    out += e.summary.empty() ? fmt::format("- {}\n", e.name)
                             : fmt::format("- {}: {}\n", e.name, e.summary);
  return out;
}

std::string shorten(const std::string& s, size_t limit) {
  if (s.size() <= limit) return s;
  return s.substr(0, limit) + fmt::format("... [{} more bytes]", s.size() - limit);
}

std::string format_speedup(double s) { return fmt::format("{:.3g}x", s); }

// The answer format: the chat format of the training data (strategies_spec §6.3).
std::string format_instructions(int num_answers) {
  if (num_answers <= 1)
    return "Think step by step inside <think>...</think>, then give exactly one answer as\n"
           "<answer>{\"applied_strategy\": \"<strategy name from the list>\", "
           "\"transformed_IR\": \"<the whole transformed LEIR body>\"}</answer>\n"
           "The transformed_IR holds every top-level block of the new program, not only the "
           "changed ones, and uses the same declared tensors.\n";
  return fmt::format(
      "Think step by step inside <think>...</think>, analysing each candidate, then give {} "
      "different candidates as a JSON list inside <answer>...</answer>:\n"
      "<answer>[{{\"idx\": 0, \"applied_strategy\": \"<name>\", \"transformed_IR\": \"<LEIR "
      "body>\"}}, ...]</answer>\n"
      "Each transformed_IR is a whole program body derived from the current program by one "
      "strategy, and no two candidates are the same program.\n",
      num_answers);
}

std::string target_rules(Target t) {
  switch (t) {
    case Target::kCuda:
      return "Target: an NVIDIA GPU (CUDA). Every top-level block becomes one kernel.\n"
             "- Loops of kind B are bound to the GPU. Their variable names thread axes tx, ty, "
             "tz or block axes bx, by, bz, optionally followed by lower-case letters (txa, "
             "bya); names are unique within a nest.\n"
             "- Limits: threads per axis x/y/z at most 1024/1024/64 and at most 1024 threads "
             "per block in total; blocks along y and z at most 65535 (x up to 2^31-1). An "
             "extent over 1024 belongs on a block axis.\n"
             "- Scopes: g (global) is visible to every thread; s (shared) only within one "
             "block, so data indexed by block axes may live in s or g; l (local registers) "
             "belongs to one thread, so data indexed by thread axes may live in l, s or g.\n"
             "- P loops are a CPU construct: do not introduce them.\n";
    case Target::kCpu:
      return "Target: a multi-core CPU (C with OpenMP).\n"
             "- B and P loops run in parallel across cores; V loops become SIMD vector code; U "
             "loops are unrolled; L loops are plain serial loops.\n"
             "- Iterations of a B or P loop must not write the same element unless it is a "
             "recognised reduction.\n"
             "- All scopes (g, s, l) are host memory; a small l or s intermediate still helps "
             "locality.\n";
  }
  return "";
}

}  // namespace

std::vector<StrategyMenuEntry> registered_strategy_menu() {
  std::vector<StrategyMenuEntry> menu;
  for (std::string_view name : strategy::reference_strategy_names()) {
    const strategy::Strategy* s = strategy::find_strategy(name);
    menu.push_back({std::string(name), s != nullptr ? std::string(s->summary()) : ""});
  }
  return menu;
}

StrategyNames registered_strategy_names() {
  std::vector<std::string> names;
  for (std::string_view name : strategy::reference_strategy_names()) names.emplace_back(name);
  return StrategyNames(std::move(names));
}

std::string system_prompt() {
  return "You optimize tensor programs written in LEIR one verified step at a time. You apply "
         "exactly the named transformation strategy you report, and you never change the "
         "names, shapes or dtypes of declared tensors.";
}

std::string single_step_prompt(const SingleStepPrompt& in) {
  std::string out;
  out += in.task.empty() ? "Here is a tensor program in LEIR.\n"
                         : fmt::format("Here is the LEIR program of {}.\n", in.task);
  out += "Declared tensors (keep their names, shapes and dtypes unchanged):\n";
  out += declarations_text(in.program);
  out += "Program:\n" + leir::print_body(in.program.blocks) + "\n\n";
  if (in.num_answers <= 1)
    out += "Apply one strategy from the list below to obtain a transformed program that computes "
           "the same outputs for every input (up to floating-point rounding), and name the "
           "strategy you applied.\n";
  else
    out += fmt::format("Give {} different transformed programs, each obtained by applying one "
                       "strategy from the list below, each computing the same outputs for every "
                       "input (up to floating-point rounding), and name the strategy of each.\n",
                       in.num_answers);
  out += "\nStrategies:\n" + menu_text(in.menu) + "\n";
  out += format_instructions(in.num_answers);
  return out;
}

std::string_view target_name(Target t) {
  switch (t) {
    case Target::kCpu: return "cpu";
    case Target::kCuda: return "cuda";
  }
  return "?";
}

std::string multi_step_prompt(const MultiStepPrompt& in) {
  std::string out;
  if (!in.method.empty())
    out += fmt::format("We are optimizing a tensor program by {}: each state is a program, and "
                       "each step applies one strategy and is verified and timed.\n",
                       in.method);
  out += in.task.empty() ? "The current LEIR program:\n"
                         : fmt::format("The current LEIR program of {}:\n", in.task);
  out += leir::print_body(in.current.blocks) + "\n";
  out += "Declared tensors (keep their names, shapes and dtypes unchanged):\n";
  out += declarations_text(in.current);

  out += "\nPath so far: ";
  if (in.path.empty()) {
    out += "none; this is the original program.\n";
  } else {
    out += fmt::format("{} step{} from the original program:\n", in.path.size(),
                       in.path.size() == 1 ? "" : "s");
    for (size_t i = 0; i < in.path.size(); ++i)
      out += fmt::format("  {}. {}{}\n", i + 1, in.path[i].strategy,
                         in.path[i].speedup ? ", speedup " + format_speedup(*in.path[i].speedup)
                                            : "");
  }
  if (in.current_speedup)
    out += fmt::format("The current program runs {} faster than the original.\n",
                       format_speedup(*in.current_speedup));

  if (!in.failed.empty()) {
    size_t first = in.failed.size() > kMaxFailed ? in.failed.size() - kMaxFailed : 0;
    out += fmt::format("\nAttempts from this program that failed ({} in all{}); do not repeat "
                       "them:\n",
                       in.failed.size(), first > 0 ? fmt::format(", last {} shown", kMaxFailed)
                                                   : "");
    for (size_t i = first; i < in.failed.size(); ++i) {
      const FailedAttempt& f = in.failed[i];
      out += fmt::format("  - {}: {}\n", f.strategy.empty() ? "(unparsed answer)" : f.strategy,
                         f.reason);
      if (!f.transformed_ir.empty())
        out += "    tried: " + shorten(f.transformed_ir, kMaxQuotedIr) + "\n";
    }
  }

  out += "\n" + target_rules(in.target);
  out += "\nStrategies:\n" + menu_text(in.menu);
  out += "\nTask: ";
  out += in.num_answers <= 1
             ? "apply one strategy to the current program so that it runs faster on the target "
               "while computing the same outputs (up to floating-point rounding).\n"
             : fmt::format("give {} different programs, each one strategy away from the current "
                           "program, that run faster on the target while computing the same "
                           "outputs (up to floating-point rounding).\n",
                           in.num_answers);
  out += "Build on the current program: keep the blocks you do not change exactly as they are. "
         "An answer identical to the current program, or one that undoes the last step of the "
         "path (for example fusing what was just split), is wrong.\n";
  out += format_instructions(in.num_answers);
  return out;
}

}  // namespace steptp::llm
