// cli/eval_single_command.cpp — `steptp eval-single --data FILE.jsonl --endpoint URL --model M`:
// single-step pass rates of a model served over an OpenAI-compatible API. Exit 0 when the
// evaluation ran (whatever the rates), 2 on bad input (unreadable data, bad records, bad flags).
// Also `steptp fake-llm`, a scripted OpenAI-compatible server for offline runs of the above.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/commands.h"
#include "llm/eval_single.h"
#include "llm/fake_server.h"
#include "llm/prompts.h"

namespace steptp::cli {

void setup_eval_single_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string data, endpoint, model, out, system;
    int concurrency = 4, retries = 3, max_tokens = 8192, seeds = 3;
    size_t limit = 0;
    double temperature = 0.0, timeout = 600.0;
    bool json = false, quiet = false;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "eval-single", "Single-step evaluation of a model behind an OpenAI-compatible endpoint: "
                     "parsed / well-formed / equivalent / strategy pass rates");
  cmd->add_option("--data", f->data, "Chat JSONL with original_program per record")->required();
  cmd->add_option("--endpoint", f->endpoint, "Base URL, e.g. http://127.0.0.1:8000/v1")
      ->required();
  cmd->add_option("--model", f->model, "Model name the server knows")->required();
  cmd->add_option("--concurrency", f->concurrency, "Requests in flight")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--limit", f->limit, "Evaluate only the first N records (0 = all)");
  cmd->add_option("--temperature", f->temperature, "Sampling temperature")->capture_default_str();
  cmd->add_option("--max-tokens", f->max_tokens, "Completion token limit")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--timeout", f->timeout, "Read timeout per request, seconds")
      ->capture_default_str();
  cmd->add_option("--retries", f->retries, "Retries on 429/5xx/timeouts")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd->add_option("--seeds", f->seeds, "Verification input sets per candidate")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--system", f->system, "System message for records that have none");
  cmd->add_option("--out", f->out, "Write the full JSON report (with per-record outcomes)");
  cmd->add_flag("--json", f->json, "Print the summary as JSON");
  cmd->add_flag("--quiet", f->quiet, "No progress on stderr");
  cmd->callback([f, &ctx] {
    std::string text;
    if (!read_file(f->data, text)) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    llm::EvalOptions options;
    options.known = llm::registered_strategy_names();
    options.sampling.temperature = f->temperature;
    options.sampling.max_tokens = f->max_tokens;
    options.verify.num_seeds = f->seeds;
    options.default_system = f->system;
    options.limit = f->limit;
    auto records = llm::parse_eval_records(text, options.known, f->data);
    if (!records) {
      std::cerr << "steptp: " << records.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    llm::ClientOptions client_options;
    client_options.base_url = f->endpoint;
    client_options.model = f->model;
    client_options.api_key = llm::api_key_from_environment();
    client_options.concurrency = f->concurrency;
    client_options.max_retries = f->retries;
    client_options.read_timeout_s = f->timeout;
    auto client = llm::ChatClient::create(client_options);
    if (!client) {
      std::cerr << "steptp: " << client.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    auto start = std::chrono::steady_clock::now();
    auto last = start - std::chrono::seconds(10);
    auto progress = [&](size_t done, size_t total) {
      if (f->quiet) return;
      auto now = std::chrono::steady_clock::now();
      if (done != total && now - last < std::chrono::seconds(2)) return;
      last = now;
      double secs = std::chrono::duration<double>(now - start).count();
      std::cerr << fmt::format("eval-single: {}/{} records, {:.2f} records/s\n", done, total,
                               secs > 0 ? done / secs : 0.0);
    };
    llm::EvalReport report = llm::evaluate_single_step(**client, *records, options, progress);
    if (f->json) std::cout << report.to_json(false).dump(2) << "\n";
    else std::cout << report.render();
    if (!f->out.empty() && !write_file_atomic(f->out, report.to_json(true).dump(2) + "\n")) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    ctx.exit_code = kExitOk;
  });
}

void setup_fake_llm_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string data;
    int port = 8000;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "fake-llm", "Serve an OpenAI-compatible endpoint on 127.0.0.1 that answers each record's "
                  "prompt with its reference answer (an oracle, for trying eval-single offline)");
  cmd->add_option("--data", f->data, "Chat JSONL whose assistant messages are the answers")
      ->required();
  cmd->add_option("--port", f->port, "Port")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->callback([f, &ctx] {
    std::string text;
    if (!read_file(f->data, text)) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    auto records = llm::parse_eval_records(text, llm::registered_strategy_names(), f->data);
    if (!records) {
      std::cerr << "steptp: " << records.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    auto answers = std::make_shared<std::map<std::string, std::string>>();
    for (const llm::EvalRecord& r : *records)
      for (const llm::ChatMessage& m : r.prompt)
        if (m.role == "user") (*answers)[m.content] = r.reference_answer;
    llm::FakeServer server([answers](const llm::FakeRequest& req) {
      for (const llm::ChatMessage& m : req.messages)
        if (auto it = answers->find(m.content); m.role == "user" && it != answers->end())
          return llm::FakeReply::text(it->second);
      return llm::FakeReply::http_error(404, "{\"error\":\"unknown prompt\"}");
    });
    std::cerr << fmt::format("fake-llm: serving {} answers on http://127.0.0.1:{}/v1\n",
                             answers->size(), f->port);
    auto served = server.serve_forever("127.0.0.1", f->port);
    if (!served) {
      std::cerr << "steptp: " << served.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
    }
  });
}

}  // namespace steptp::cli
