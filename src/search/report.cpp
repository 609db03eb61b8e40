// search/report.cpp — JSON and Markdown rendering of a search run.
#include "search/report.h"

#include <fmt/format.h>

#include "leir/printer.h"

namespace steptp::search {
namespace {

// Node ids from the root to `id`.
std::vector<int> path_to(const Engine& engine, int id) {
  std::vector<int> path;
  for (int n = id; n >= 0; n = engine.node(n).parent) path.insert(path.begin(), n);
  return path;
}

std::string backup_name(Backup b) {
  switch (b) {
    case Backup::kMax:
      return "max";
    case Backup::kMean:
      return "mean";
  }
  return "?";
}

int reported_best(const Engine& engine, const RunInfo& info) {
  return info.selection ? info.selection->best : engine.best();
}

// The finalist the selection kept: the reported best, or the program the confirmation then
// measured slower than the baseline.
int selected_node(const RunInfo& info) {
  return info.selection->unconfirmed != 0 ? info.selection->unconfirmed : info.selection->best;
}

const Confirmation* confirmation_of(const RunInfo& info) {
  return info.selection && info.selection->confirmation ? &*info.selection->confirmation : nullptr;
}

}  // namespace

nlohmann::json report_json(const Engine& engine, const RunInfo& info) {
  const Node& best = engine.node(reported_best(engine, info));
  const SearchOptions& o = engine.options();
  nlohmann::json steps = nlohmann::json::array();
  for (int id : path_to(engine, best.id)) {
    if (id == 0) continue;
    const Node& n = engine.node(id);
    nlohmann::json step = {{"step", n.trace.back()},
                           {"time_ms", n.time_ms},
                           {"speedup", n.speedup},
                           {"promise", n.promise},
                           {"program", leir::print_program(n.program)}};
    if (!n.claim.empty()) step["claim"] = n.claim;
    steps.push_back(std::move(step));
  }
  // Every accepted node, so a run can be analysed (and the tree shape of MCTS seen).
  nlohmann::json tree = nlohmann::json::array();
  for (size_t i = 0; i < engine.size(); ++i) {
    const Node& n = engine.node(static_cast<int>(i));
    tree.push_back({{"id", n.id},
                    {"parent", n.parent},
                    {"depth", n.depth},
                    {"step", n.trace.empty() ? std::string() : n.trace.back()},
                    {"time_ms", n.time_ms},
                    {"speedup", n.speedup},
                    {"promise", n.promise},
                    {"children", n.children.size()}});
  }
  nlohmann::json failures = nlohmann::json::object();
  for (const auto& [reason, count] : engine.stats().failures) failures[reason] = count;
  nlohmann::json j = {
      {"format", "steptp-search-report-1"},
      {"workload", info.workload},
      {"source", info.source},
      {"target", info.target},
      {"search", engine.method()},
      {"policy", std::string(engine.policy_name())},
      {"seed", info.seed},
      {"threads", info.threads},
      {"timing", {{"warmup", info.warmup}, {"repeats", info.repeats}, {"statistic", "median"}}},
      {"verify_engine", info.verify_engine},
      {"options",
       {{"budget_policy_calls", o.budget.policy_calls},
        {"budget_candidates", o.budget.candidates},
        {"max_depth", o.budget.max_depth},
        {"proposals", o.proposals},
        {"beam_width", o.beam_width},
        {"uct_c", o.uct_c},
        {"backup", backup_name(o.backup)}}},
      {"baseline_ms", engine.baseline_ms()},
      {"best",
       {{"time_ms", best.time_ms},
        {"speedup", best.speedup},
        {"depth", best.depth},
        {"trace", best.trace},
        {"program", leir::print_program(best.program)}}},
      {"steps", steps},
      {"initial_program", leir::print_program(engine.node(0).program)},
      {"tree", tree},
      {"stats",
       {{"policy_calls", engine.stats().policy_calls},
        {"proposals", engine.stats().proposals},
        {"candidates", engine.stats().candidates},
        {"accepted", engine.stats().accepted},
        {"nodes", engine.size()},
        {"failures", failures}}},
  };
  if (info.selection && info.selection->rounds > 0) {
    nlohmann::json finalists = nlohmann::json::array();
    for (const Finalist& f : info.selection->finalists)
      finalists.push_back(
          {{"id", f.id}, {"search_speedup", f.search_speedup}, {"median_ms", f.median_ms}});
    j["selection"] = {{"rounds", info.selection->rounds},
                      {"search_best", engine.best()},
                      {"kept", selected_node(info)},
                      {"finalists", finalists}};
  }
  if (const Confirmation* c = confirmation_of(info)) {
    // `node` is the program confirmed; `kept` false when it measured slower than the baseline
    // and the run reports the initial program instead.
    j["confirmation"] = {{"rounds", c->rounds},
                         {"node", selected_node(info)},
                         {"kept", info.selection->unconfirmed == 0},
                         {"baseline_ms", c->baseline_ms},
                         {"best_ms", c->best_ms},
                         {"speedup", c->speedup()}};
  }
  if (info.torch) {
    j["torch"] = {{"median_ms", info.torch->median_ms},
                  {"threads", info.torch->threads},
                  {"blas", info.torch->blas},
                  {"speedup_of_best", info.torch->median_ms / best.time_ms},
                  {"speedup_of_baseline", info.torch->median_ms / engine.baseline_ms()}};
  } else if (!info.torch_error.empty()) {
    j["torch"] = {{"error", info.torch_error}};
  }
  return j;
}

std::string report_markdown(const Engine& engine, const RunInfo& info) {
  const Node& best = engine.node(reported_best(engine, info));
  const SearchStats& s = engine.stats();
  std::string md = fmt::format("# steptp optimize: {}\n\n", info.workload);
  md += fmt::format(
      "- search **{}**, policy **{}**, target {}, {} thread(s), seed {}\n"
      "- budget: {} policy calls, {} candidates, max depth {}; used {} calls, {} candidates\n"
      "- timing: median of {} runs after {} warm-up; verification engine: {}\n\n",
      engine.method(), engine.policy_name(), info.target, info.threads, info.seed,
      engine.options().budget.policy_calls, engine.options().budget.candidates,
      engine.options().budget.max_depth, s.policy_calls, s.candidates, info.repeats, info.warmup,
      info.verify_engine);
  md += "| | time (ms) | speedup |\n|---|---:|---:|\n";
  md += fmt::format("| naive baseline (initial program, compiled C) | {:.4f} | 1.00× |\n",
                    engine.baseline_ms());
  md += fmt::format("| best program (depth {}) | {:.4f} | {:.2f}× |\n", best.depth, best.time_ms,
                    best.speedup);
  const int unconfirmed = info.selection ? info.selection->unconfirmed : 0;
  if (const Confirmation* c = confirmation_of(info))
    md += fmt::format(
        "| {} re-measured after the search, alternately ({} rounds) | {:.4f} → "
        "{:.4f} | {:.2f}× |\n",
        unconfirmed != 0 ? fmt::format("node {}", unconfirmed) : std::string("best"), c->rounds,
        c->baseline_ms, c->best_ms, c->speedup());
  if (info.torch)
    md += fmt::format("| PyTorch eager ({} thread(s)) | {:.4f} | best is {:.2f}× faster |\n",
                      info.torch->threads, info.torch->median_ms,
                      info.torch->median_ms / best.time_ms);
  else if (!info.torch_error.empty())
    md += fmt::format("\nPyTorch eager baseline unavailable: {}\n", info.torch_error);
  // After the table: a paragraph between its rows would end it.
  if (info.selection && info.selection->rounds > 0) {
    md += fmt::format(
        "\nKept node {} of {} finalists measured again ({} rounds, median):", selected_node(info),
        info.selection->finalists.size(), info.selection->rounds);
    for (const Finalist& f : info.selection->finalists)
      md += f.median_ms > 0 ? fmt::format(" node {} {:.4f} ms (search {:.2f}×);", f.id, f.median_ms,
                                          f.search_speedup)
                            : fmt::format(" node {} failed to measure;", f.id);
    md += "\n";
  }
  if (unconfirmed != 0)
    md += fmt::format(
        "\nNode {} measured slower than the initial program when re-measured "
        "against it: the initial program is reported as the best.\n",
        unconfirmed);
  md += "\n## Step trace (replayable)\n\n";
  if (best.trace.empty() && unconfirmed == 0) md += "No verified step beat the initial program.\n";
  std::vector<int> path = path_to(engine, best.id);
  for (size_t i = 1; i < path.size(); ++i) {
    const Node& n = engine.node(path[i]);
    md += fmt::format("{}. `{}` — {:.4f} ms, {:.2f}×", i, n.trace.back(), n.time_ms, n.speedup);
    if (!n.claim.empty()) md += fmt::format(" (the model's claim: `{}`)", n.claim);
    // Why the beam kept a step that measured no faster (engine.h, Proposal::promise).
    if (n.promise > 1) md += fmt::format(" (the policy promised {:.2f}× more)", n.promise);
    md += "\n";
  }
  md += "\n## Best program\n\n```\n" + leir::print_program(best.program) + "```\n";
  md += fmt::format("\n## Candidates\n\n{} proposals, {} verified candidates, {} accepted\n\n",
                    s.proposals, s.candidates, s.accepted);
  if (!s.failures.empty()) {
    md += "| failure | count |\n|---|---:|\n";
    for (const auto& [reason, count] : s.failures)
      md += fmt::format("| {} | {} |\n", reason, count);
  }
  return md;
}

}  // namespace steptp::search
