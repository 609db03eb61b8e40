// search/engine.h — the machinery every multi-step search shares: the search tree of verified
// programs, the policy and evaluator interfaces, the budget, duplicate detection and failure
// accounting. Algorithms (algorithms.h) only decide WHICH node to expand next.
//
// Invariants: every node but the root was verified against the INITIAL program and measured;
// the budget (policy calls, evaluated candidates) is charged here and nowhere else, so every
// algorithm spends exactly the same stated budget.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::search {

// ---------------------------------------------------------------------------------------------
// Policies: what proposes the next programs
// ---------------------------------------------------------------------------------------------

// One proposed next program. `step` is replayable text: a printed strategy Site
// ("loop_tiling(block=0, loops=a,c, factors=4,8)") or, for a model answer, "llm:<strategy>".
// A proposal that could not even be built carries an Error whose category is the failure reason
// ("infeasible", "llm_call_error", "answer_parse_error", "leir_parse_error").
struct Proposal {
  std::string step;
  Result<leir::Program> program;
  // How many times faster the policy expects the program to become after one more step that it
  // has already foreseen (1: none foreseen). A step that only enables a gain (an inline that lets
  // a factorization remove a pow) measures no faster by itself; the beam ranks its children by
  // measured speedup times this promise, so that such a step survives to take its follow-up.
  double promise = 1.0;
  // What the policy said the step was, where that is not the step itself: a model's raw claim
  // ("llm:loop_tiling") beside the registered step identified from its program. Empty otherwise.
  std::string claim;

  Proposal(std::string s, Result<leir::Program> p) : step(std::move(s)), program(std::move(p)) {}
};

// What a policy sees of the state it expands.
struct PolicyRequest {
  const leir::Program& program;           // the state
  const leir::Program& initial;           // the root of the search
  const std::vector<std::string>& trace;  // steps from the root to the state
  int depth = 0;
  double speedup = 1.0;                      // the state's measured speedup over the baseline
  const std::set<std::string>& tried;        // steps already proposed from this state
  const std::vector<std::string>& failures;  // "step: reason" of this state's rejected candidates
  int n = 1;                                 // how many proposals are wanted
  std::string_view method;                   // the algorithm's name, for prompts
  // Steps proposed from this state whose verified program measured no faster than the state.
  std::set<std::string> no_gain = {};
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  // Up to request.n proposals, none of them in request.tried. An empty answer means the policy
  // has nothing more to offer for this state (the node becomes a dead end). One call = one
  // policy call of the budget.
  virtual std::vector<Proposal> propose(const PolicyRequest& request) = 0;
};

// ---------------------------------------------------------------------------------------------
// Evaluators: verification and measurement
// ---------------------------------------------------------------------------------------------

struct Verdict {
  std::string status;  // verify::status_name: "equivalent", "mismatch", "race", ...
  std::string message;
  bool equivalent() const { return status == "equivalent"; }
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Is the candidate the same computation as the initial program?
  virtual Verdict verify(const leir::Program& candidate) = 0;
  // Median run time in milliseconds; an Error's category ("compile_error", ...) is counted as the
  // failure reason.
  virtual Result<double> measure(const leir::Program& program) = 0;
  // Why the initial program itself is not a valid program to search from (it reads outside a
  // tensor, leaves an output incomplete, ...), or nullopt. Asked once, before any search.
  virtual std::optional<Verdict> check_initial() { return std::nullopt; }
};

// ---------------------------------------------------------------------------------------------
// Options, nodes, results
// ---------------------------------------------------------------------------------------------

struct Budget {
  int policy_calls = 20;  // calls to Policy::propose
  int candidates = 20;    // candidates sent to the verifier (and measured when equivalent)
  int max_depth = 8;      // steps from the initial program
};

enum class Backup { kMax, kMean };

struct SearchOptions {
  Budget budget;
  int proposals = 3;  // proposals asked per expansion (chain always asks 1)
  int beam_width = 2;
  double uct_c = 1.0;  // exploration constant (rewards are normalised to the best so far)
  double widen_c =
      1.0;  // progressive widening: children allowed = ceil(widen_c·visits^widen_alpha)
  double widen_alpha = 0.5;
  Backup backup = Backup::kMax;
};

struct Node {
  int id = 0;
  int parent = -1;
  int depth = 0;
  leir::Program program;
  std::vector<std::string> trace;  // steps from the root
  double time_ms = 0;
  double speedup = 1;  // baseline time / time
  double promise = 1;  // the proposal's promise (see Proposal)
  std::string claim;   // the proposal's claim (see Proposal)
  std::vector<int> children;
  std::set<std::string> tried;  // steps proposed from here
  std::vector<std::string> failures;
  bool dead = false;  // the policy had nothing more to propose here
  int expansions = 0;
  // MCTS statistics.
  int visits = 0;
  double value_sum = 0;
  double value_max = 0;
};

struct Event {
  int node = 0;               // the node expanded
  int proposals = 0;          // proposals received
  std::vector<int> children;  // accepted (verified + measured) children
};

struct SearchStats {
  int policy_calls = 0;
  int proposals = 0;
  int candidates = 0;                   // verified (charged to the candidate budget)
  int accepted = 0;                     // equivalent and measured
  std::map<std::string, int> failures;  // reason → count (duplicates included as "duplicate")
};

// ---------------------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------------------

class Engine {
 public:
  // Measures the initial program (the naive baseline; not charged to the budget). Errors: the
  // initial program cannot be measured.
  static Result<std::unique_ptr<Engine>> create(leir::Program initial, Policy& policy,
                                                Evaluator& evaluator, SearchOptions options,
                                                std::string method);

  // One policy call for node `id`, asking for n proposals, then every proposal is de-duplicated,
  // verified and measured. Returns the new children (possibly none). Does nothing and returns
  // {} once the budget is spent.
  std::vector<int> expand(int id, int n);

  bool exhausted() const;
  // Whether `id` may still be expanded (not dead, depth below the limit).
  bool expandable(int id) const;

  const Node& node(int id) const { return nodes_.at(static_cast<size_t>(id)); }
  Node& node(int id) { return nodes_.at(static_cast<size_t>(id)); }
  size_t size() const { return nodes_.size(); }
  int best() const { return best_; }
  double baseline_ms() const { return nodes_.front().time_ms; }
  const SearchOptions& options() const { return options_; }
  const SearchStats& stats() const { return stats_; }
  const std::vector<Event>& events() const { return events_; }
  const std::string& method() const { return method_; }
  std::string_view policy_name() const { return policy_.name(); }
  // Called after every expansion (for progress output); may be null.
  void set_on_expand(std::function<void(const Engine&)> f) { on_expand_ = std::move(f); }

 private:
  Engine(Policy& policy, Evaluator& evaluator, SearchOptions options, std::string method);
  bool seen(const leir::Program& p) const;
  void remember(const leir::Program& p);
  void fail(int parent, const std::string& step, const std::string& reason);

  Policy& policy_;
  Evaluator& evaluator_;
  SearchOptions options_;
  std::string method_;
  std::vector<Node> nodes_;
  // Every program evaluated so far (root, accepted and rejected), for de-duplication across
  // the whole search: a program is verified and measured at most once.
  std::vector<leir::Program> seen_;
  std::unordered_map<size_t, std::vector<int>> by_hash_;
  int best_ = 0;
  SearchStats stats_;
  std::vector<Event> events_;
  std::function<void(const Engine&)> on_expand_;
};

}  // namespace steptp::search
