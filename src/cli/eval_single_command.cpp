// cli/eval_single_command.cpp — `steptp eval-single --data FILE.jsonl --endpoint URL --model M`:
// single-step accuracy of a model served over an OpenAI-compatible API. Exit 0 when the
// evaluation ran (whatever the rates), 2 on bad input (unreadable data, bad records, bad flags)
// or an endpoint that cannot be used. Also `steptp fake-llm`, a scripted OpenAI-compatible
// server (oracle or random legal steps) for offline runs of the above.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>

#include "cli/command.h"
#include "cli/commands.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "llm/eval_single.h"
#include "llm/fake_server.h"
#include "llm/registered_names.h"
#include "llm/response_format.h"
#include "prompt/chat_prompt.h"
#include "strategy/registry.h"

namespace steptp::cli {

void setup_eval_single_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string data, endpoint, model, out, system, transcript, constrained = "none";
    int concurrency = 4, retries = 3, max_tokens = 4096, seeds = 3;
    size_t limit = 0;
    double temperature = 0.0, timeout = 600.0, connect_timeout = 5.0;
    bool json = false, quiet = false;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "eval-single",
      "Single-step evaluation of a model behind an OpenAI-compatible endpoint on "
      "the splits build-dataset writes: each distinct prompt is one question; "
      "parse, legal-step, verified-equivalent and match rates, and accuracy");
  cmd->add_option("--data", f->data,
                  "Chat JSONL: single_test.jsonl, multi_test.jsonl, ... of a build-dataset run")
      ->required();
  cmd->add_option("--endpoint", f->endpoint, "Base URL, e.g. http://127.0.0.1:8000/v1")->required();
  cmd->add_option("--model", f->model, "Model name the server knows")->required();
  cmd->add_option("--concurrency", f->concurrency, "Requests in flight")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--limit", f->limit, "Evaluate only the first N questions (0 = all)");
  cmd->add_option("--temperature", f->temperature, "Sampling temperature")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--max-tokens", f->max_tokens, "Completion token limit")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--timeout", f->timeout, "Read timeout per request, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1e6));
  cmd->add_option("--connect-timeout", f->connect_timeout, "Connection timeout, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1e4));
  cmd->add_option("--retries", f->retries,
                  "Retries on refused connections, 429/5xx and timeouts; then the run fails")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd->add_option("--seeds", f->seeds, "Verification input sets per candidate")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--system", f->system, "System message for records that have none");
  cmd->add_option("--constrained-decoding", f->constrained,
                  "Ask the server for a bare JSON answer: none | json_schema (OpenAI, vLLM) | "
                  "json_object (llama.cpp)")
      ->check(CLI::IsMember({"none", "json_schema", "json_object"}));
  cmd->add_option("--transcript", f->transcript,
                  "Write every request and response (latency, token usage) as JSONL");
  cmd->add_option("--out", f->out, "Write the full JSON report (with per-question outcomes)");
  cmd->add_flag("--json", f->json, "Print the summary as JSON");
  cmd->add_flag("--quiet", f->quiet, "No progress on stderr");
  cmd->callback([f, &ctx] {
    ctx.exit_code = kExitBadInput;
    auto fail = [](const Error& e) { std::cerr << "steptp eval-single: " << e.render() << "\n"; };
    std::string text;
    if (!read_file(f->data, text)) return;
    llm::EvalOptions options;
    options.known = llm::registered_strategy_names();
    options.sampling.temperature = f->temperature;
    options.sampling.max_tokens = f->max_tokens;
    options.verify.num_seeds = f->seeds;
    options.default_system = f->system;
    options.limit = f->limit;
    auto format = llm::response_format(f->constrained, options.known);
    if (!format) return fail(format.error());
    options.sampling.response_format = *format;
    auto questions = llm::read_eval_questions(text, options.known, f->data);
    if (!questions) return fail(questions.error());
    llm::ClientOptions client_options;
    client_options.base_url = f->endpoint;
    client_options.model = f->model;
    client_options.api_key = llm::api_key_from_environment();
    client_options.concurrency = f->concurrency;
    client_options.max_retries = f->retries;
    client_options.read_timeout_s = f->timeout;
    client_options.connect_timeout_s = f->connect_timeout;
    if (!f->transcript.empty()) {
      auto transcript = llm::Transcript::open(f->transcript);
      if (!transcript) return fail(transcript.error());
      client_options.transcript = std::move(transcript).value();
    }
    if (!f->out.empty()) {
      // Fail on an unwritable report path now, not after the whole evaluation.
      std::filesystem::path parent = std::filesystem::path(f->out).parent_path();
      if (auto writable = ensure_writable_dir(parent.empty() ? "." : parent.string()); !writable)
        return fail(writable.error());
    }
    auto client = llm::ChatClient::create(client_options);
    if (!client) return fail(client.error());
    if (auto reachable = (**client).check_endpoint(); !reachable) return fail(reachable.error());
    auto start = std::chrono::steady_clock::now();
    auto last = start - std::chrono::seconds(10);
    auto progress = [&](size_t done, size_t total, int64_t correct) {
      if (f->quiet) return;
      auto now = std::chrono::steady_clock::now();
      if (done != total && now - last < std::chrono::seconds(2)) return;
      last = now;
      double secs = std::chrono::duration<double>(now - start).count();
      std::cerr << fmt::format(
          "eval-single: {}/{} questions, {} correct, {:.2f} questions/s, "
          "{:.1f} s\n",
          done, total, correct, secs > 0 ? done / secs : 0.0, secs);
    };
    auto report = llm::evaluate_single_step(**client, *questions, options, progress);
    if (!report) return fail(report.error());
    if (f->json)
      std::cout << report->to_json(false).dump(2) << "\n";
    else
      std::cout << report->render();
    if (!f->out.empty() && !write_file_atomic(f->out, report->to_json(true).dump(2) + "\n")) return;
    ctx.exit_code = kExitOk;
  });
}

namespace {

// A random legal step of the prompt's program (or, for a list, that many distinct ones): the
// baseline a model must beat. Seeded by the prompt text, so the answers do not depend on the
// order in which concurrent requests arrive.
std::string random_legal_answer(const std::string& user, uint64_t seed) {
  auto in = prompt::parse_user_message(user);
  if (!in) return "no program in the prompt";
  auto program = leir::parse_program(in->declarations + in->program + "\n");
  if (!program) return "the prompt's program does not parse";
  std::vector<std::pair<std::string, leir::Program>> steps;
  for (const strategy::Strategy* s : strategy::all_strategies())
    for (const strategy::Site& site : s->sites(*program)) {
      auto after = s->apply(*program, site);
      if (!after.ok() || *after == *program) continue;
      bool seen = std::any_of(steps.begin(), steps.end(), [&](const auto& e) {
        return e.first == s->name() && e.second == *after;
      });
      if (!seen) steps.emplace_back(std::string(s->name()), *after);
    }
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(user));
  std::shuffle(steps.begin(), steps.end(), rng);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  const size_t n = std::min<size_t>(steps.size(), static_cast<size_t>(in->num_answers));
  for (size_t i = 0; i < n; ++i)
    list.push_back({{"idx", i},
                    {"applied_strategy", steps[i].first},
                    {"transformed_IR", leir::print_body(steps[i].second.blocks)}});
  if (in->num_answers <= 1) {
    if (list.empty()) return "<answer>{}</answer>";
    list[0].erase("idx");
    return "<think>a random legal step</think><answer>" + list[0].dump() + "</answer>";
  }
  return "<think>random legal steps</think><answer>" + list.dump() + "</answer>";
}

}  // namespace

void setup_fake_llm_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string data, answers = "oracle";
    int port = 8000;
    uint64_t seed = 0;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "fake-llm",
      "Serve an OpenAI-compatible endpoint on 127.0.0.1 for trying eval-single and "
      "optimize offline: the oracle answers each prompt with its first reference "
      "answer; random-legal answers a random legal step of the prompt's program");
  cmd->add_option("--data", f->data,
                  "Chat JSONL whose assistant messages are the answers "
                  "(needed by the oracle)");
  cmd->add_option("--answers", f->answers, "oracle | random-legal")
      ->capture_default_str()
      ->check(CLI::IsMember({"oracle", "random-legal"}));
  cmd->add_option("--seed", f->seed, "Seed of random-legal")->capture_default_str();
  cmd->add_option("--port", f->port, "Port")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->callback([f, &ctx] {
    auto answers = std::make_shared<std::map<std::string, std::string>>();
    if (f->answers == "oracle") {
      std::string text;
      if (f->data.empty()) {
        std::cerr << "steptp fake-llm: --answers oracle needs --data\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      if (!read_file(f->data, text)) {
        ctx.exit_code = kExitBadInput;
        return;
      }
      auto questions = llm::read_eval_questions(text, llm::registered_strategy_names(), f->data);
      if (!questions) {
        std::cerr << "steptp fake-llm: " << questions.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      for (const llm::EvalQuestion& q : *questions)
        if (!q.reference_answers.empty())
          for (const llm::ChatMessage& m : q.prompt)
            if (m.role == "user") answers->emplace(m.content, q.reference_answers.front());
    }
    const bool oracle = f->answers == "oracle";
    const uint64_t seed = f->seed;
    llm::FakeServer server([answers, oracle, seed](const llm::FakeRequest& req) {
      for (const llm::ChatMessage& m : req.messages) {
        if (m.role != "user") continue;
        if (!oracle) return llm::FakeReply::text(random_legal_answer(m.content, seed));
        if (auto it = answers->find(m.content); it != answers->end())
          return llm::FakeReply::text(it->second);
      }
      return llm::FakeReply::http_error(404, "{\"error\":\"unknown prompt\"}");
    });
    std::cerr << fmt::format(
        "fake-llm: serving {} on http://127.0.0.1:{}/v1\n",
        oracle ? fmt::format("{} answers", answers->size()) : std::string("random legal steps"),
        f->port);
    auto served = server.serve_forever("127.0.0.1", f->port);
    if (!served) {
      std::cerr << "steptp: " << served.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
    }
  });
}

}  // namespace steptp::cli
