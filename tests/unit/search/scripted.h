// tests/unit/search/scripted.h — a scripted policy and a fake evaluator, so that search
// algorithms are tested without a compiler: a state is the program "C = A * v" and v is its key.
#pragma once

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "search/engine.h"

namespace steptp::search::testing {

inline leir::Program program_of(int64_t v) {
  auto p = leir::parse_program(
      fmt::format("input A f64[4]\noutput C "
                  "f64[4]\nB^{{4}}_{{tx=0}}[C^{{f64,g}}_{{tx}}=A^{{f64,g}}_{{tx}}*{};];",
                  v));
  STEPTP_CHECK(p.ok(), "bad test program");
  return std::move(p).value();
}

inline int64_t key_of(const leir::Program& p) {
  return static_cast<int64_t>(p.blocks[0].body[0].stmt->rhs->rhs()->number_value());
}

// Children of each key, in proposal order; a key without an entry has no proposals. A child
// key of -1 stands for an answer that could not be parsed ("leir_parse_error").
using Children = std::map<int64_t, std::vector<int64_t>>;

class ScriptedPolicy final : public Policy {
 public:
  explicit ScriptedPolicy(Children children) : children_(std::move(children)) {}
  // Or a generated tree: key v has children v*10+1 .. v*10+fanout (root 0 → 1..fanout), 15
  // levels deep.
  static ScriptedPolicy generated(int fanout) {
    ScriptedPolicy p(Children{});
    p.fanout_ = fanout;
    return p;
  }
  std::string_view name() const override { return "scripted"; }
  std::vector<Proposal> propose(const PolicyRequest& r) override {
    int64_t v = key_of(r.program);
    calls.push_back(v);
    std::vector<int64_t> kids;
    if (fanout_ > 0) {
      if (v < 100'000'000'000'000)
        for (int i = 1; i <= fanout_; ++i) kids.push_back(v * 10 + i);
    } else if (auto it = children_.find(v); it != children_.end()) {
      kids = it->second;
    }
    std::vector<Proposal> out;
    for (int64_t k : kids) {
      if (static_cast<int>(out.size()) >= r.n) break;
      std::string step = fmt::format("s{}", k);
      if (r.tried.count(step)) continue;
      if (k < 0)
        out.emplace_back(step, Error::make("leir_parse_error", "scripted"));
      else
        out.emplace_back(step, program_of(k));
      if (auto it = promises.find(k); it != promises.end()) out.back().promise = it->second;
    }
    return out;
  }
  std::vector<int64_t> calls;          // the key of every state asked, in order
  std::map<int64_t, double> promises;  // key → the promise its proposal carries (default 1)

 private:
  Children children_;
  int fanout_ = 0;
};

// Times by key (default: a deterministic function of the key, see measure()); verification failures
// and compile errors by key.
class FakeEvaluator final : public Evaluator {
 public:
  std::map<int64_t, double> times;
  std::map<int64_t, std::string> verdicts;  // key → failing status name
  std::set<int64_t> compile_errors;
  int verify_calls = 0;
  int measure_calls = 0;

  Verdict verify(const leir::Program& p) override {
    ++verify_calls;
    auto it = verdicts.find(key_of(p));
    if (it != verdicts.end()) return Verdict{it->second, "scripted"};
    return Verdict{"equivalent", ""};
  }
  Result<double> measure(const leir::Program& p) override {
    ++measure_calls;
    int64_t k = key_of(p);
    if (compile_errors.count(k)) return Error::make("compile_error", "scripted");
    auto it = times.find(k);
    if (it != times.end()) return it->second;
    // Default: deeper states are faster (depth = number of digits of the key), so that every
    // algorithm keeps finding improvements and only the budget stops it.
    int depth = 0;
    for (int64_t x = k; x > 0; x /= 10) ++depth;
    return 100.0 / (1.0 + depth + static_cast<double>(k % 7) * 0.01);
  }
};

}  // namespace steptp::search::testing
