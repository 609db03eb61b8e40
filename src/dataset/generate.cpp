// dataset/generate.cpp — one unit's candidate generation and verification (see generate.h).
#include "dataset/generate.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "codegen/c_emitter.h"
#include "codegen/c_engine.h"
#include "codegen/cuda_emitter.h"
#include "codegen/tir_emitter.h"
#include "cot/chain_of_thought.h"
#include "dataset/dead_code_injection.h"
#include "dataset/reduced_instance.h"
#include "dataset/seeded_random.h"
#include "frontend/importer.h"
#include "leir/printer.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::dataset {
namespace {

using strategy::Strategy;

// GiNaC keeps non-atomic reference counts on shared global objects, so the math strategies
// (which convert to and from GiNaC) must not run concurrently. Everything else runs in parallel.
std::mutex& algebra_mutex() {
  static std::mutex m;
  return m;
}

class AlgebraGuard {
 public:
  explicit AlgebraGuard(const Strategy& s) {
    if (s.category() == strategy::Category::kMath) lock_ = std::unique_lock(algebra_mutex());
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

// Inverse strategy ← its forward partner.
constexpr std::pair<std::string_view, std::string_view> kInversePairs[] = {
    {"expand_factorization", "factorization"},
    {"expand_cancellation", "cancellation"},
    {"apart", "together"},
    {"expand_powsimp", "powsimp"},
    {"logsimp", "expand_log"},
    {"expand_collect", "collect"},
    {"operator_fission", "operator_fusion"},
    {"tensor_split_to_decouple_operators", "tensor_concat_to_fuse_operators"},
    {"loop_fusion", "loop_split"},
};

struct State {
  leir::Program program;
  std::vector<std::string> provenance;
  std::vector<const Strategy*> allowed;
  // Leading steps of the provenance that do not count against max_depth (the inlining prefix
  // of the fully inlined state).
  size_t free_steps = 0;
  // With a reduced instance: the same steps replayed on the reduced program, where this
  // state's candidates are verified.
  std::optional<leir::Program> twin;
};

struct Child {
  const Strategy* strategy = nullptr;
  leir::Program program;
  std::vector<std::string> provenance;  // including the step that produced it
  size_t free_steps = 0;                // as in State
  std::optional<leir::Program> twin;    // as in State

  State state(std::vector<const Strategy*> allowed) const {
    return {program, provenance, std::move(allowed), free_steps, twin};
  }
};

// With STEPTP_DATASET_DEBUG set, a strategy that throws is reported on stderr with the program
// and the step, so the bug can be replayed with `steptp apply`.
void report_internal_error(const leir::Program& p, const std::string& step,
                           const std::exception& e) {
  if (!std::getenv("STEPTP_DATASET_DEBUG")) return;
  static std::mutex m;
  std::lock_guard lock(m);
  std::cerr << "internal error in " << step << ": " << e.what() << "\n"
            << leir::print_program(p) << "\n";
}

std::string declarations_text(const leir::Program& p) {
  std::string s;
  for (const leir::TensorDecl& d : p.decls) s += leir::print(d) + "\n";
  return s;
}

class UnitGenerator {
 public:
  UnitGenerator(const WorkUnit& unit, const nlohmann::json& shapes, const ReducedInstance* reduced,
                const GenerateOptions& o, UnitResult& out)
      : unit_(unit),
        shapes_(shapes),
        reduced_(reduced),
        options_(o),
        seed_(unit_seed(o.seed, unit.id)),
        rng_(seed_),
        out_(out) {}

  void run(const leir::Program& initial);

 private:
  std::vector<Child> expand(const State& state);
  std::vector<Child> pick(const std::vector<Child>& from, std::string_view strategy, size_t n);
  void record(const State& state, const Strategy& s, const strategy::Site& site,
              const leir::Program& after, const verify::VerifyReport& report);
  // The feasible sites of `s` on the state's program; with a reduced program, only those it
  // offers too (the others are counted as reduced_infeasible).
  std::vector<strategy::Site> sites_to_sample(const Strategy& s, const State& state);
  // The step replayed on the state's reduced program, when it is the same transformation
  // there (same_up_to_sizes); otherwise nullopt, with the reason counted.
  std::optional<leir::Program> replay_on_twin(const State& state, const Strategy& s,
                                              const strategy::Site& site,
                                              const leir::Program& after);
  // The unit's verification settings: its seeds, derived from the unit's seed.
  verify::VerifyOptions verify_options() const;
  // Whether `p` computes what `reference` computes (the budget is charged for it).
  bool equivalent_to(const leir::Program& reference, const leir::Program& p);

  const WorkUnit& unit_;
  const nlohmann::json& shapes_;
  const ReducedInstance* reduced_;  // null: candidates are verified at the shapes shown
  const GenerateOptions& options_;
  uint64_t seed_;
  SeededRandom rng_;
  UnitResult& out_;
  int64_t spent_ = 0;  // statement executions spent on verification so far
};

std::vector<Child> UnitGenerator::pick(const std::vector<Child>& from, std::string_view strategy,
                                       size_t n) {
  std::vector<const Child*> matching;
  for (const Child& c : from)
    if (strategy.empty() || c.strategy->name() == strategy) matching.push_back(&c);
  std::vector<Child> chosen;
  while (!matching.empty() && chosen.size() < n) {
    size_t k = rng_.below(matching.size());
    chosen.push_back(*matching[k]);
    matching.erase(matching.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return chosen;
}

verify::VerifyOptions UnitGenerator::verify_options() const {
  verify::VerifyOptions vo;
  vo.num_seeds = options_.verify_seeds;
  vo.seed = seed_ % 1'000'003;
  if (options_.tvm) {
    vo.engine = verify::Engine::kTvm;
    vo.tvm = options_.tvm;
  }
  return vo;
}

bool UnitGenerator::equivalent_to(const leir::Program& reference, const leir::Program& p) {
  spent_ += std::max<int64_t>(1, options_.verify_seeds) * codegen::static_work(reference);
  return verify::verify(reference, p, verify_options()).equivalent();
}

std::vector<Child> UnitGenerator::expand(const State& state) {
  std::vector<Child> children;
  if (static_cast<int>(state.provenance.size() - state.free_steps) > options_.max_depth)
    return children;
  if (!state.provenance.empty() && options_.unit_work_budget > 0 &&
      spent_ >= options_.unit_work_budget) {
    ++out_.rejected["state_over_unit_budget"];
    return children;
  }
  ++out_.states;
  const leir::Program& checked = state.twin ? *state.twin : state.program;
  const int64_t cost_per_check =
      std::max<int64_t>(1, options_.verify_seeds) * codegen::static_work(checked);
  verify::VerifyOptions vo = verify_options();
  vo.run.work_budget = std::max<int64_t>(50'000'000, 20 * codegen::static_work(checked));
  verify::Verifier verifier(checked, vo);
  if (verifier.original_failure()) {
    ++out_.rejected["original_" +
                    std::string(verify::status_name(verifier.original_failure()->status))];
    return children;
  }
  // 1. Every allowed strategy's feasible sites, and how many of them it would like verified.
  std::vector<std::pair<const Strategy*, std::vector<strategy::Site>>> enumerated;
  for (const Strategy* s : state.allowed) {
    try {
      AlgebraGuard guard(*s);
      enumerated.emplace_back(s, sites_to_sample(*s, state));
    } catch (const std::exception& e) {
      // A bug inside one strategy must not sink the whole build: it is counted and reported
      // (stats "internal_error:<strategy>"), never turned into a sample.
      ++out_.rejected["internal_error:" + std::string(s->name())];
      report_internal_error(state.program, std::string(s->name()) + " (sites)", e);
    }
  }
  std::vector<size_t> wanted;
  for (const auto& [s, sites] : enumerated) {
    const int max_sites = s->difficulty() == strategy::Difficulty::kHard
                              ? options_.max_sites_per_strategy
                              : options_.max_sites_easy;
    wanted.push_back(max_sites > 0 ? std::min(sites.size(), static_cast<size_t>(max_sites))
                                   : sites.size());
  }
  // 2. An expensive program cannot afford them all: the largest per-strategy limit k whose
  // checks fit in the unit's remaining budget, but at least one site per strategy, so every
  // applicable strategy still appears.
  size_t k = SIZE_MAX;
  if (options_.unit_work_budget > 0) {
    const int64_t left = std::max<int64_t>(0, options_.unit_work_budget - spent_);
    auto cost_at = [&](size_t limit) {
      int64_t checks = 0;
      for (size_t w : wanted) checks += static_cast<int64_t>(std::min(w, limit));
      return checks * cost_per_check;
    };
    size_t most = 1;
    for (size_t w : wanted) most = std::max(most, w);
    k = most;
    while (k > 1 && cost_at(k) > left) --k;
    if (k < most) out_.rejected["budget_limited_states"] += 1;
  }
  for (size_t e = 0; e < enumerated.size(); ++e) {
    const Strategy* s = enumerated[e].first;
    std::vector<strategy::Site>& sites = enumerated[e].second;
    const size_t limit = std::min(wanted[e], k);
    if (sites.size() > limit) {
      // A seeded sample that keeps the strategy's own site order.
      std::vector<size_t> idx(sites.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      for (size_t i = 0; i < limit; ++i) std::swap(idx[i], idx[i + rng_.below(idx.size() - i)]);
      idx.resize(limit);
      std::sort(idx.begin(), idx.end());
      std::vector<strategy::Site> sampled;
      for (size_t i : idx) sampled.push_back(sites[i]);
      out_.rejected["not_sampled"] += static_cast<int64_t>(sites.size() - limit);
      sites = std::move(sampled);
    }
    for (const strategy::Site& site : sites) {
      ++out_.candidates;
      std::optional<strategy::Outcome<leir::Program>> applied;
      try {
        AlgebraGuard guard(*s);
        applied.emplace(s->apply(state.program, site));
      } catch (const std::exception& e) {
        ++out_.rejected["internal_error:" + std::string(s->name())];
        report_internal_error(state.program, site.to_string(), e);
        continue;
      }
      if (!applied->ok()) {
        ++out_.rejected["apply_infeasible"];
        continue;
      }
      const leir::Program& after = applied->value();
      if (after == state.program) {
        ++out_.rejected["unchanged"];
        continue;
      }
      std::optional<leir::Program> twin_after;
      if (state.twin && !(twin_after = replay_on_twin(state, *s, site, after))) continue;
      verify::VerifyReport report = verifier.check(twin_after ? *twin_after : after);
      spent_ += cost_per_check;
      if (!report.equivalent()) {
        // The strategy is named: a step that does not verify is a strategy bug to look at.
        ++out_.rejected[std::string(verify::status_name(report.status)) + ":" +
                        std::string(s->name())];
        continue;
      }
      try {
        record(state, *s, site, after, report);
      } catch (const std::exception& e) {
        ++out_.rejected["internal_error:" + std::string(s->name())];
        report_internal_error(state.program, site.to_string() + " (explaining)", e);
        continue;
      }
      ++out_.verified;
      Child c{s, after, state.provenance, state.free_steps, std::move(twin_after)};
      c.provenance.push_back(site.to_string());
      children.push_back(std::move(c));
    }
  }
  return children;
}

// Only sites that the reduced instance offers too can be verified there: drawing the sample among
// them (instead of drawing first and losing most of a large program's tiling and split factors to
// the replay) is what lets default-shape states keep their share of samples.
std::vector<strategy::Site> UnitGenerator::sites_to_sample(const Strategy& s, const State& state) {
  std::vector<strategy::Site> sites = strategy::feasible_sites(s, state.program);
  if (!state.twin) return sites;
  std::set<std::string> offered;
  for (const strategy::Site& t : strategy::feasible_sites(s, *state.twin))
    offered.insert(t.to_string());
  const size_t before = sites.size();
  std::erase_if(sites, [&](const strategy::Site& x) { return !offered.contains(x.to_string()); });
  if (sites.size() < before)
    out_.rejected["reduced_infeasible:" + std::string(s.name())] +=
        static_cast<int64_t>(before - sites.size());
  return sites;
}

std::optional<leir::Program> UnitGenerator::replay_on_twin(const State& state, const Strategy& s,
                                                           const strategy::Site& site,
                                                           const leir::Program& after) {
  std::optional<strategy::Outcome<leir::Program>> replayed;
  try {
    AlgebraGuard guard(s);
    replayed.emplace(s.apply(*state.twin, site));
  } catch (const std::exception& e) {
    ++out_.rejected["internal_error:" + std::string(s.name())];
    report_internal_error(*state.twin, site.to_string() + " (reduced instance)", e);
    return std::nullopt;
  }
  if (!replayed->ok()) {
    ++out_.rejected["reduced_infeasible:" + std::string(s.name())];
    return std::nullopt;
  }
  if (replayed->value() == *state.twin || !same_up_to_sizes(after, replayed->value())) {
    ++out_.rejected["reduced_differs:" + std::string(s.name())];
    return std::nullopt;
  }
  return std::move(*replayed).value();
}

void UnitGenerator::record(const State& state, const Strategy& s, const strategy::Site& site,
                           const leir::Program& after, const verify::VerifyReport& report) {
  StepRecord r;
  r.unit = unit_.id;
  r.workload = unit_.workload;
  r.level = unit_.level;
  r.instance = unit_.instance;
  r.shapes = shapes_;
  r.seed = seed_;
  r.declarations = declarations_text(state.program);
  r.original = leir::print_body(state.program.blocks);
  r.transformed = leir::print_body(after.blocks);
  r.original_hash = leir::hash_value(state.program);
  r.transformed_hash = leir::hash_value(after);
  r.strategy = std::string(s.name());
  r.category = std::string(strategy::category_name(s.category()));
  r.difficulty = std::string(strategy::difficulty_name(s.difficulty()));
  r.site = site.to_string();
  r.depth = static_cast<int>(state.provenance.size());
  r.provenance = state.provenance;
  {
    AlgebraGuard guard(s);
    r.cot = cot::explain_step(s, state.program, site, after).text();
  }
  r.verification.engine = report.engine;
  r.verification.status = std::string(verify::status_name(report.status));
  r.verification.seeds_run = report.seeds_run;
  r.verification.max_abs_error = report.max_abs_error;
  r.verification.max_rel_error = report.max_rel_error;
  if (state.twin) {
    r.verification.instance = "reduced";
    r.verification.shapes = reduced_->shapes;
  }
  if (options_.with_lowered) {
    if (auto c = codegen::emit_c(after)) r.lowered["c"] = c->code;
    if (auto cu = codegen::emit_cuda(after)) r.lowered["cuda"] = cu->code;
    if (auto tir = codegen::emit_tir(after)) r.lowered["tir"] = *tir;
  }
  out_.records.push_back(std::move(r));
}

void UnitGenerator::run(const leir::Program& initial) {
  const auto& registry = strategy::all_strategies();
  std::vector<const Strategy*> math;
  for (const Strategy* s : registry)
    if (s->category() == strategy::Category::kMath) math.push_back(s);
  const Strategy* inline_strategy = strategy::find_strategy("compute_inline");

  std::optional<leir::Program> twin_root;
  if (reduced_) twin_root = reduced_->program;
  // Depth 0: every strategy on the imported program.
  const std::vector<Child> first = expand({initial, {}, registry, 0, twin_root});

  // Math strategies after one and two compute_inline steps.
  std::vector<Child> math_sources = first;
  if (inline_strategy) {
    std::vector<const Strategy*> math_and_inline = math;
    math_and_inline.push_back(inline_strategy);
    for (const Child& c1 : pick(first, "compute_inline", options_.inline_states)) {
      std::vector<Child> second = expand(c1.state(math_and_inline));
      math_sources.insert(math_sources.end(), second.begin(), second.end());
      for (const Child& c2 : pick(second, "compute_inline", 1)) {
        std::vector<Child> third = expand(c2.state(math));
        math_sources.insert(math_sources.end(), third.begin(), third.end());
      }
    }
  }

  // Math strategies on the fully inlined program: the tracer gives every torch op its own
  // block, so log(exp(A)*(B*B+1)) only exists after several compute_inline steps. The first
  // feasible site is inlined until none is left (at most full_inline_steps); when that takes
  // more steps than the states above, the result is verified against the imported program and
  // the math strategies run on it. The inlining prefix does not count against max_depth.
  if (inline_strategy && options_.full_inline_steps > 2) {
    leir::Program inlined = initial;
    std::optional<leir::Program> twin_inlined = twin_root;
    std::vector<std::string> prefix;
    try {
      for (int step = 0; step < options_.full_inline_steps; ++step) {
        std::vector<strategy::Site> sites = strategy::feasible_sites(*inline_strategy, inlined);
        if (sites.empty()) break;
        strategy::Outcome<leir::Program> next = inline_strategy->apply(inlined, sites.front());
        if (!next.ok()) break;
        if (twin_inlined) {
          strategy::Outcome<leir::Program> replayed =
              inline_strategy->apply(*twin_inlined, sites.front());
          if (!replayed.ok() || !same_up_to_sizes(next.value(), replayed.value())) break;
          twin_inlined = replayed.value();
        }
        inlined = next.value();
        prefix.push_back(sites.front().to_string());
      }
    } catch (const std::exception& e) {
      ++out_.rejected["internal_error:compute_inline"];
      report_internal_error(inlined, "compute_inline (inlining fully)", e);
      prefix.clear();
    }
    if (prefix.size() > 2) {
      const bool kept =
          twin_inlined ? equivalent_to(*twin_root, *twin_inlined) : equivalent_to(initial, inlined);
      if (kept) {
        std::vector<Child> results =
            expand({inlined, prefix, math, prefix.size(), std::move(twin_inlined)});
        math_sources.insert(math_sources.end(), results.begin(), results.end());
      } else {
        ++out_.rejected["full_inline_failed"];
      }
    }
  }

  // Inverse strategies from their forward partner's results.
  for (const auto& [inverse_name, forward_name] : kInversePairs) {
    const Strategy* inverse = strategy::find_strategy(inverse_name);
    const Strategy* forward = strategy::find_strategy(forward_name);
    if (!inverse || !forward) continue;
    const std::vector<Child>& sources =
        forward->category() == strategy::Category::kMath ? math_sources : first;
    for (const Child& c : pick(sources, forward_name, options_.inverse_states))
      expand(c.state({inverse}));
  }

  // Dead-code elimination on a program with injected dead code.
  if (const Strategy* dce = strategy::find_strategy("dead_code_elimination")) {
    if (auto injected = inject_dead_code(initial, rng_)) {
      std::optional<leir::Program> twin_injected;
      if (twin_root) {
        auto replayed = inject_dead_code_at(*twin_root, injected->source, injected->at);
        if (replayed && same_up_to_sizes(injected->program, replayed->program))
          twin_injected = std::move(replayed->program);
      }
      if (twin_root && !twin_injected)
        ++out_.rejected["reduced_differs:inject_dead_code"];
      else if (twin_injected ? equivalent_to(*twin_root, *twin_injected)
                             : equivalent_to(initial, injected->program))
        expand({injected->program, {injected->step}, {dce}, 0, std::move(twin_injected)});
      else
        ++out_.rejected["injection_failed"];
    }
  }

  // Random multi-step chains: walk from a random first step, enumerating everything each time.
  for (const Child& start : pick(first, "", options_.chain_width)) {
    Child current = start;
    while (static_cast<int>(current.provenance.size()) <= options_.max_depth) {
      std::vector<Child> next = expand(current.state(registry));
      std::vector<Child> step = pick(next, "", 1);
      if (step.empty()) break;
      current = std::move(step.front());
    }
  }
}

struct ImportedInstance {
  leir::Program program;
  nlohmann::json shapes;  // the graph's "shapes" (empty object when it has none)
};

Result<ImportedInstance> import_instance(const std::string& graph_path) {
  std::ifstream in(graph_path);
  if (!in) return Error::make("io_error", "cannot read " + graph_path);
  std::stringstream text;
  text << in.rdbuf();
  auto imported = frontend::import_graph_json(text.str(), graph_path);
  if (!imported) return imported.error();
  nlohmann::json graph = nlohmann::json::parse(text.str(), nullptr, false);
  nlohmann::json shapes =
      graph.is_object() && graph.contains("shapes") ? graph["shapes"] : nlohmann::json::object();
  return ImportedInstance{imported->program, std::move(shapes)};
}

}  // namespace

uint64_t unit_seed(uint64_t seed, const std::string& unit_id) { return stable_hash(unit_id, seed); }

UnitResult generate_from_program(const WorkUnit& unit, const leir::Program& initial,
                                 const nlohmann::json& shapes, const GenerateOptions& options,
                                 const ReducedInstance* reduced) {
  UnitResult out;
  out.unit = unit.id;
  out.workload = unit.workload;
  UnitGenerator(unit, shapes, reduced, options, out).run(initial);
  return out;
}

UnitResult generate_unit(const WorkUnit& unit, const GenerateOptions& options) {
  UnitResult failed;
  failed.unit = unit.id;
  failed.workload = unit.workload;
  Result<ImportedInstance> imported = import_instance(unit.graph_path);
  if (!imported) {
    failed.import_error = imported.error().category + ": " + imported.error().message;
    return failed;
  }
  if (unit.instance == "small" ||
      codegen::static_work(imported->program) <= options.instance_work_budget)
    return generate_from_program(unit, imported->program, imported->shapes, options);
  // Too expensive to verify at its own shapes: verified on the reduced instance, when there is
  // one that is affordable and has the same structure.
  const std::string over = "over_budget: the instance needs more than " +
                           std::to_string(options.instance_work_budget) +
                           " statement executions per run";
  if (unit.reduced_graph_path.empty()) {
    failed.import_error = over + " and has no reduced instance";
    return failed;
  }
  Result<ImportedInstance> reduced = import_instance(unit.reduced_graph_path);
  if (!reduced) {
    failed.import_error = over + "; its reduced instance: " + reduced.error().category + ": " +
                          reduced.error().message;
    return failed;
  }
  if (codegen::static_work(reduced->program) > options.instance_work_budget) {
    failed.import_error = over + ", and so does its reduced instance";
    return failed;
  }
  if (!same_up_to_sizes(imported->program, reduced->program)) {
    failed.import_error =
        "reduced_differs: the reduced instance is not the same program up to "
        "its sizes";
    return failed;
  }
  const ReducedInstance twin{reduced->program, reduced->shapes};
  return generate_from_program(unit, imported->program, imported->shapes, options, &twin);
}

}  // namespace steptp::dataset
