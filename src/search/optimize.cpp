// search/optimize.cpp — wiring one optimization run together.
#include "search/optimize.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "codegen/compiler_driver.h"
#include "leir/printer.h"
#include "llm/chat_client.h"
#include "search/chat_answer_source.h"
#include "search/cuda_evaluator.h"
#include "search/llm_policy.h"
#include "search/policies.h"
#include "search/report.h"
#include "search/selection.h"

namespace steptp::search {
namespace {

int default_proposals(Algorithm a) {
  switch (a) {
    case Algorithm::kChain:
      return 1;
    case Algorithm::kMcts:
      return 2;
    case Algorithm::kGreedy:
    case Algorithm::kBeam:
    case Algorithm::kDfs:
    case Algorithm::kBfs:
      return 3;
  }
  return 3;
}

struct PolicyBundle {
  std::unique_ptr<AnswerSource> source;
  std::unique_ptr<Policy> policy;
  LlmPolicy* llm = nullptr;  // the policy, when it is the llm policy
  std::string endpoint;
};

// One line on stderr per expansion: where the search stands and how long it has run.
std::function<void(const Engine&)> progress_printer(const std::string& workload) {
  auto start = std::chrono::steady_clock::now();
  return [workload, start](const Engine& e) {
    const SearchStats& s = e.stats();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << fmt::format(
        "optimize {}: expansion {}, policy calls {}/{}, candidates {}/{} "
        "({} accepted), best {:.2f}x, {:.1f} s\n",
        workload, e.events().size(), s.policy_calls, e.options().budget.policy_calls, s.candidates,
        e.options().budget.candidates, s.accepted, e.node(e.best()).speedup, elapsed);
  };
}

Result<PolicyBundle> make_policy(const OptimizeOptions& o, const Problem& problem) {
  PolicyBundle b;
  if (o.policy == "enumerate") {
    b.policy = std::make_unique<EnumeratePolicy>();
  } else if (o.policy == "random") {
    b.policy = std::make_unique<RandomPolicy>(o.seed);
  } else if (o.policy == "cost") {
    // The CPU's kernels are built for this machine: price its 512-bit versions where it has
    // them (CostModelOptions::wide_vectors).
    b.policy = std::make_unique<CostPolicy>(
        CostModelOptions{.threads = o.threads,
                         .wide_vectors = o.target == "cpu" && codegen::machine_has_wide_vectors()});
  } else if (o.policy == "llm") {
    if (o.endpoint.empty() || o.model.empty())
      return Error::make("bad_flags", "--policy llm needs --endpoint URL and --model M");
    llm::ClientOptions c;
    c.base_url = o.endpoint;
    c.model = o.model;
    c.api_key = llm::api_key_from_environment();
    c.max_retries = o.llm.retries;
    c.read_timeout_s = o.llm.timeout_s;
    c.connect_timeout_s = o.llm.connect_timeout_s;
    if (!o.llm.transcript.empty()) {
      auto transcript = llm::Transcript::open(o.llm.transcript);
      if (!transcript.ok()) return std::move(transcript).error();
      c.transcript = std::move(transcript).value();
    }
    Result<std::unique_ptr<llm::ChatClient>> client = llm::ChatClient::create(c);
    if (!client.ok()) return std::move(client).error();
    // A wrong endpoint or model fails here, in seconds, not after the baseline is measured.
    if (Result<void> reachable = (*client)->check_endpoint(); !reachable.ok())
      return std::move(reachable).error();
    ChatSourceOptions so;
    so.seed = static_cast<int64_t>(o.seed);
    so.temperature = o.llm.temperature;
    so.max_tokens = o.llm.max_tokens;
    so.response_format = o.llm.response_format;
    auto source = std::make_unique<ChatAnswerSource>(std::move(client).value(), so);
    auto policy = std::make_unique<LlmPolicy>(*source, problem.name);
    b.llm = policy.get();
    b.endpoint = source->client().endpoint();
    b.source = std::move(source);
    b.policy = std::move(policy);
  } else {
    return Error::make(
        "bad_flags", "unknown policy '" + o.policy + "' (expected llm, enumerate, random or cost)");
  }
  return b;
}

}  // namespace

Result<OptimizeResult> optimize(const std::string& spec, const OptimizeOptions& o) {
  if (o.target != "cpu" && o.target != "cuda")
    return Error::make("bad_flags", "unknown target '" + o.target + "' (expected cpu or cuda)");
  if (o.target == "cuda" && !gpu_available())
    return Error::make("no_gpu",
                       "--target cuda measures on a GPU, and this machine has none (nvidia-smi "
                       "-L lists no GPU); use --target cpu, or `steptp lower --target cuda` to "
                       "only generate the code");
  Result<Problem> problem = load_problem(spec, o.workloads_dir, o.shapes, o.work_limit);
  if (!problem.ok()) return std::move(problem).error();
  Result<PolicyBundle> policy = make_policy(o, *problem);
  if (!policy.ok()) return std::move(policy).error();

  CompiledEvaluatorOptions eo;
  eo.timing.threads = o.threads;
  eo.timing.repeats = o.repeats;
  eo.timing.warmup = o.warmup;
  eo.engine = o.verify_engine;
  eo.tvm = o.tvm_engine;
  eo.interpreter_work_limit = o.interpreter_work_limit;
  eo.verify_seed = o.seed;
  std::unique_ptr<Evaluator> evaluator;
  std::string verify_engine;
  if (o.target == "cuda") {
    std::string dir = o.cuda_work_dir.empty()
                          ? (std::filesystem::temp_directory_path() / "steptp-search-cuda").string()
                          : o.cuda_work_dir;
    auto cuda = std::make_unique<CudaEvaluator>(problem->program, eo, dir);
    verify_engine = cuda->verify_engine();
    evaluator = std::move(cuda);
  } else {
    auto cpu = std::make_unique<CompiledEvaluator>(problem->program, eo);
    verify_engine = cpu->verify_engine();
    evaluator = std::move(cpu);
  }

  if (std::optional<Verdict> bad = evaluator->check_initial())
    return Error::make("bad_program", fmt::format("the start program is not valid ({}): {}",
                                                  bad->status, bad->message));

  SearchOptions so = o.search;
  so.proposals = o.proposals > 0 ? o.proposals : default_proposals(o.algorithm);
  Result<std::unique_ptr<Engine>> engine = Engine::create(
      problem->program, *policy->policy, *evaluator, so, std::string(algorithm_name(o.algorithm)));
  if (!engine.ok()) return std::move(engine).error();
  if (o.progress) (*engine)->set_on_expand(progress_printer(problem->name));
  run(o.algorithm, **engine);
  if (policy->llm != nullptr && policy->llm->fatal_error()) {
    Error e = *policy->llm->fatal_error();
    e.message = fmt::format("endpoint {}: {} (the search stopped after {} policy calls)",
                            policy->endpoint, e.message, (*engine)->stats().policy_calls);
    return e;
  }

  RunInfo info;
  info.workload = problem->name;
  info.source =
      problem->source + (problem->instance.empty() ? "" : " (" + problem->instance + " shapes)");
  info.target = o.target;
  info.threads = o.threads;
  info.repeats = o.repeats;
  info.warmup = o.warmup;
  info.seed = o.seed;
  info.verify_engine = verify_engine;
  info.selection = select_best(**engine, *evaluator, o.finalists, o.confirm_rounds);
  const Node& best = (*engine)->node(info.selection->best);
  if (o.torch) {
    if (o.target != "cpu") {
      info.torch_error = "the PyTorch eager baseline is timed on the CPU only";
    } else {
      TorchTimingOptions t;
      t.python = o.python;
      t.script = o.torch_script;
      t.threads = o.threads;
      t.repeats = o.repeats;
      t.warmup = o.warmup;
      Result<TorchBaseline> torch = time_torch_baseline(*problem, t);
      if (torch.ok())
        info.torch = *torch;
      else
        info.torch_error = torch.error().message;
    }
  }
  OptimizeResult r;
  r.json = report_json(**engine, info);
  r.markdown = report_markdown(**engine, info);
  r.best_program = leir::print_program(best.program);
  r.speedup = best.speedup;
  return r;
}

}  // namespace steptp::search
