// strategy/strategy.h — the interface every Step-TP strategy implements: Site (one candidate
// step, printable and replayable as text), Infeasible (the "does not apply" value) and Strategy.
//
// A strategy proposes sites, checks one, and rewrites a Program into a new one. It never mutates
// its input and never throws for "does not apply": that is an Infeasible value, kept apart from
// bad input (Error) and bugs (STEPTP_CHECK). Datasets, prompts and search see strategies only
// through this header and strategy/registry.h.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::strategy {

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

enum class Category : uint8_t { kGraph, kOperator, kMemory, kMath };
std::string_view category_name(Category c);  // "graph" "operator" "memory" "math"

// The difficulty groups of the dataset filter (strategies_spec §7).
enum class Difficulty : uint8_t { kVeryEasy, kEasy, kHard };
std::string_view difficulty_name(Difficulty d);  // "very_easy" "easy" "hard"

// ---------------------------------------------------------------------------------------------
// Infeasible and Outcome
// ---------------------------------------------------------------------------------------------

// "This strategy does not apply here": a stable code ("loop_tiling.factor_exceeds_extent") that
// programs switch on, and a sentence naming the site (loop, tensor, numbers).
struct Infeasible {
  std::string code;
  std::string message;
  std::string render() const { return code + ": " + message; }
};

template <typename... Args>
Infeasible infeasible(std::string code, fmt::format_string<Args...> format, Args&&... args) {
  return Infeasible{std::move(code), fmt::format(format, std::forward<Args>(args)...)};
}

// A value or an Infeasible. error() exists so that STEPTP_TRY propagates an Infeasible out of a
// function returning another Outcome.
template <typename T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : state_(std::move(value)) {}       // NOLINT: implicit on purpose
  Outcome(Infeasible why) : state_(std::move(why)) {}  // NOLINT: implicit on purpose

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& {
    STEPTP_CHECK(ok(), "value() on an infeasible Outcome: " + infeasible().render());
    return std::get<0>(state_);
  }
  T&& value() && {
    STEPTP_CHECK(ok(), "value() on an infeasible Outcome: " + infeasible().render());
    return std::get<0>(std::move(state_));
  }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Infeasible& infeasible() const {
    STEPTP_CHECK(!ok(), "infeasible() on a feasible Outcome");
    return std::get<1>(state_);
  }
  Infeasible&& error() && {
    STEPTP_CHECK(!ok(), "error() on a feasible Outcome");
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, Infeasible> state_;
};

template <>
class [[nodiscard]] Outcome<void> {
 public:
  Outcome() = default;
  Outcome(Infeasible why) : why_(std::move(why)) {}  // NOLINT: implicit on purpose
  bool ok() const { return !why_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Infeasible& infeasible() const {
    STEPTP_CHECK(!ok(), "infeasible() on a feasible Outcome");
    return *why_;
  }
  Infeasible&& error() && {
    STEPTP_CHECK(!ok(), "error() on a feasible Outcome");
    return std::move(*why_);
  }

 private:
  std::optional<Infeasible> why_;
};

using Check = Outcome<void>;
inline Check feasible() { return Check(); }

// ---------------------------------------------------------------------------------------------
// Site
// ---------------------------------------------------------------------------------------------

// Where a block sits: a top-level block index, then (for a nested block) the body item indices
// leading to it. Printed "2" or "2.1.0".
struct BlockPath {
  size_t top = 0;
  std::vector<size_t> nested;
  bool is_top_level() const { return nested.empty(); }
  std::string to_string() const;
  bool operator==(const BlockPath&) const = default;
};

// One candidate step: the strategy name and its parameters as an ordered list of
// key → values. Text form: `loop_tiling(block=2, loops=a,c, factors=32,16)`. Keys are
// [a-z_]+; values are non-empty runs of [A-Za-z0-9_.-]; a value list is comma-separated and
// a new key starts at the next `key=`.
class Site {
 public:
  struct Param {
    std::string key;
    std::vector<std::string> values;
    bool operator==(const Param&) const = default;
  };

  Site() = default;
  explicit Site(std::string strategy) : strategy_(std::move(strategy)) {}

  // Builders (chainable); setting an existing key replaces its values in place.
  Site& set(std::string key, std::vector<std::string> values);
  Site& set(std::string key, std::string value);
  Site& set_int(std::string key, int64_t value);
  Site& set_ints(std::string key, const std::vector<int64_t>& values);
  Site& set_block(const BlockPath& path);  // key "block"

  const std::string& strategy() const { return strategy_; }
  const std::vector<Param>& params() const { return params_; }
  bool has(std::string_view key) const;
  // The values of `key`; empty when absent.
  const std::vector<std::string>& values(std::string_view key) const;

  // Typed reads. They fail with an Infeasible "site.bad_parameter" naming the key, so a replayed
  // step with a missing or malformed parameter is rejected like any other infeasible step.
  Outcome<std::string> name(std::string_view key) const;                // exactly one value
  Outcome<std::vector<std::string>> names(std::string_view key) const;  // one or more
  Outcome<int64_t> integer(std::string_view key) const;
  Outcome<std::vector<int64_t>> integers(std::string_view key) const;
  Outcome<BlockPath> block() const;

  std::string to_string() const;
  bool operator==(const Site&) const = default;

 private:
  std::string strategy_;
  std::vector<Param> params_;
};

// Parses the text form of a site. Errors are bad input ("bad_site") with the column of the
// problem, e.g. "expected '=' after parameter name 'loops' at column 25".
Result<Site> parse_site(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Strategy
// ---------------------------------------------------------------------------------------------

// The most lanes loop_vectorization gives a V loop (an AVX-512 register of f32); the search's
// look-ahead splits an innermost loop by it before vectorizing.
constexpr int64_t kMaxVectorLanes = 16;

// A before/after example for the generated documentation: a program file and a step text.
struct Example {
  std::string program;  // a .leir program file (declarations + body)
  std::string step;     // a printed Site
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual std::string_view name() const = 0;  // the reference's name, exactly
  virtual Category category() const = 0;
  virtual Difficulty difficulty() const = 0;
  virtual std::string_view summary() const = 0;  // one line, for `steptp strategies`

  // Every place the strategy could apply, with its parameters, in a deterministic order. May
  // over-approximate (check() decides), but should be cheap: no program is built.
  virtual std::vector<Site> sites(const leir::Program& p) const = 0;
  // Full legality of one site. Never throws for a site that does not apply (including one that
  // names a missing block or loop, or belongs to another strategy).
  virtual Check check(const leir::Program& p, const Site& s) const = 0;
  // check(), then the rewritten program. Pure and deterministic.
  virtual Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const = 0;
  // The concrete effect in words, with the real loop/tensor names and numbers. Only meaningful
  // for a feasible site; for an infeasible one it says why not.
  virtual std::string explain(const leir::Program& p, const Site& s) const = 0;

  // A worked example for docs/strategies.md; nullopt when the strategy has none.
  virtual std::optional<Example> example() const { return std::nullopt; }
};

// The sites of `strategy` on `p` that pass check(), in sites() order.
std::vector<Site> feasible_sites(const Strategy& strategy, const leir::Program& p);

// The Infeasible every strategy returns for a site that names another strategy.
Infeasible wrong_strategy(const Strategy& strategy, const Site& s);

// A site given as text (a user's or a model's step) may carry keys the strategy never reads;
// they would be ignored silently. This rejects a key that none of the strategy's sites on `p`
// uses, with Infeasible "site.unknown_parameter" listing the keys that are. When the strategy
// has no site on `p` the step is infeasible anyway, and apply() says why.
Check known_parameters(const Strategy& strategy, const leir::Program& p, const Site& s);

}  // namespace steptp::strategy
