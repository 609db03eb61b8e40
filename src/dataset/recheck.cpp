// dataset/recheck.cpp — parse, rebuild and verify exported samples.
#include "dataset/recheck.h"

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/c_engine.h"
#include "dataset/chat_format.h"
#include "dataset/progress.h"
#include "dataset/seeded_random.h"
#include "leir/parser.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::dataset {
namespace {

struct Line {
  std::string file;
  int64_t number = 0;
  std::string text;
};

// Above verify::kInterpreterWorkLimit statement executions per run the interpreter is not used;
// above kCompiledWorkLimit the sample is not re-verified at all.
constexpr int64_t kCompiledWorkLimit = 200'000'000;
constexpr const char* kSkipped = "skipped";

// Empty when the sample re-verifies, kSkipped when it is too large to, else the reason.
std::string recheck_line(const std::string& text, verify::VerifyOptions vo) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("messages") || !j["messages"].is_array() ||
      j["messages"].size() != 3)
    return "not a messages record";
  const auto& m = j["messages"];
  const char* roles[] = {"system", "user", "assistant"};
  for (size_t i = 0; i < 3; ++i)
    if (!m[i].is_object() || m[i].value("role", "") != roles[i] || !m[i].contains("content") ||
        !m[i].at("content").is_string())
      return fmt::format("message {} is not a {} message", i, roles[i]);
  auto prompt = prompt::parse_user_message(m[1]["content"].get<std::string>());
  if (!prompt) return prompt.error().render();
  auto original = leir::parse_program(prompt->declarations + prompt->program + "\n");
  if (!original) return "original: " + original.error().render();
  auto answer = split_assistant(m[2]["content"].get<std::string>());
  if (!answer) return answer.error().render();
  if (answer->think.empty()) return "empty <think>";
  nlohmann::json a = nlohmann::json::parse(answer->answer, nullptr, false);
  if (a.is_discarded()) return "answer is not JSON";
  std::vector<nlohmann::json> items =
      a.is_array() ? a.get<std::vector<nlohmann::json>>() : std::vector<nlohmann::json>{a};
  if (items.empty()) return "empty answer list";
  const int64_t work = codegen::static_work(*original);
  if (work > verify::kInterpreterWorkLimit &&
      (vo.engine != verify::Engine::kBoth || work > kCompiledWorkLimit))
    return kSkipped;
  verify::Verifier verifier(*original, verify::sized_for(*original, vo));
  if (verifier.original_failure()) return "original fails: " + verifier.original_failure()->message;
  for (const nlohmann::json& item : items) {
    if (!item.is_object() || !item.contains("applied_strategy") ||
        !item["applied_strategy"].is_string() || !item.contains("transformed_IR") ||
        !item["transformed_IR"].is_string())
      return "an answer lacks applied_strategy or transformed_IR";
    if (!strategy::find_strategy(item["applied_strategy"].get<std::string>()))
      return "unknown strategy " + item["applied_strategy"].get<std::string>();
    auto body = leir::parse_body(item["transformed_IR"].get<std::string>());
    if (!body) return "transformed: " + body.error().render();
    leir::Program candidate{original->decls, std::move(*body)};
    verify::VerifyReport report = verifier.check(candidate);
    if (!report.equivalent()) return "not equivalent: " + report.message;
  }
  return "";
}

}  // namespace

verify::EngineFn one_shot_compiled_engine() {
  return [](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
    // -O1: every sample is a new kernel, compiled once and run on a handful of inputs, so
    // compile time dominates; the values do not depend on the level (-ffp-contract=off stays).
    codegen::CEngineOptions o;
    for (std::string& f : o.compiler.flags)
      if (f == "-O3") f = "-O1";
    o.threads = 1;
    return codegen::run_compiled(p, inputs, o);
  };
}

Result<RecheckSummary> recheck_chat_files(const std::vector<std::string>& files,
                                          int64_t max_samples, uint64_t seed, bool compiled,
                                          int jobs, bool progress) {
  std::vector<Line> lines;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) return Error::make("io_error", "cannot read " + f);
    std::string text;
    for (int64_t n = 1; std::getline(in, text); ++n)
      if (!text.empty()) lines.push_back({f, n, text});
  }
  RecheckSummary s;
  s.lines = static_cast<int64_t>(lines.size());
  // A seeded sample without replacement, checked in file order.
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  SeededRandom rng(seed ^ 0xc4ec);
  const size_t n = std::min(order.size(), static_cast<size_t>(std::max<int64_t>(0, max_samples)));
  for (size_t i = 0; i < n; ++i) std::swap(order[i], order[i + rng.below(order.size() - i)]);
  order.resize(n);
  std::sort(order.begin(), order.end());

  verify::VerifyOptions vo;
  vo.seed = seed + 17;  // other inputs than the generator used
  if (compiled) {
    vo.compiled = one_shot_compiled_engine();
    vo.engine = verify::Engine::kBoth;
  }
  s.engine = std::string(verify::engine_name(vo.engine));
  // Samples are independent: re-verify them on all cores, report in file order.
  std::vector<std::string> why(order.size());
  ProgressBar bar(order.size(), 0, progress && !order.empty(), "re-checks");
  tbb::task_arena arena(jobs > 0 ? jobs : tbb::this_task_arena::max_concurrency());
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, order.size(), [&](size_t k) {
      why[k] = recheck_line(lines[order[k]].text, vo);
      bar.advance("");
    });
  });
  bar.finish();
  for (size_t k = 0; k < order.size(); ++k) {
    if (why[k] == kSkipped) {
      ++s.skipped;
      continue;
    }
    ++s.checked;
    if (why[k].empty()) {
      ++s.passed;
    } else if (s.failures.size() < 20) {
      s.failures.push_back(
          fmt::format("{}:{}: {}", lines[order[k]].file, lines[order[k]].number, why[k]));
    }
  }
  return s;
}

}  // namespace steptp::dataset
