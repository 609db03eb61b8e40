#include "verify/verify.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "codegen/c_engine.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "leir/wellformed.h"

namespace steptp::verify {
namespace {

EngineFn interpreter_engine(const interp::RunOptions& run_options) {
  return [run_options](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
    return interp::run_program(p, inputs, run_options);
  };
}

VerifyReport failure(Status status, Side side, std::string message) {
  VerifyReport r;
  r.status = status;
  r.side = side;
  r.message = std::move(message);
  return r;
}

VerifyReport failure_from_error(const Error& e, Side side) {
  return failure(status_from_error_category(e.category), side, e.render());
}

// Row-major index tuple of a flat offset.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int last_block_writing(const leir::Program& p, const std::string& tensor) {
  int last = -1;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    if (s.lhs->name() == tensor) last = static_cast<int>(ctx.top_block);
  });
  return last;
}

bool same_special(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (std::isinf(a) && std::isinf(b)) return (a > 0) == (b > 0);
  return false;
}

// Compares one output tensor; updates the report's error maxima and, on the first differing
// element, fills report.mismatch. Returns true when all elements are close.
bool compare_tensor(const leir::TensorData& expected, const leir::TensorData& actual,
                    const Tolerance& tol, uint64_t seed, const leir::Program& candidate,
                    VerifyReport& report) {
  if (expected.shape != actual.shape || expected.values.size() != actual.values.size()) {
    report.status = Status::kMismatch;
    report.message = "output '" + expected.name + "' has a different shape in the candidate";
    return false;
  }
  int64_t differing = 0;
  int64_t first = -1;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    double e = expected.values[i];
    double a = actual.values[i];
    if (same_special(e, a)) continue;
    double abs_err = std::fabs(a - e);
    double rel_err = abs_err / std::max(std::fabs(e), std::numeric_limits<double>::min());
    bool close = abs_err <= tol.atol + tol.rtol * std::fabs(e);  // NaN compares false: not close
    if (std::isfinite(abs_err)) {
      report.max_abs_error = std::max(report.max_abs_error, abs_err);
      if (std::fabs(e) > tol.atol) report.max_rel_error = std::max(report.max_rel_error, rel_err);
    } else {
      report.max_abs_error = std::numeric_limits<double>::infinity();
    }
    if (!close) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++differing;
    }
  }
  if (differing == 0) return true;
  if (!report.mismatch) {
    Mismatch m;
    m.tensor = expected.name;
    m.index = unflatten(first, expected.shape);
    m.expected = expected.values[static_cast<size_t>(first)];
    m.actual = actual.values[static_cast<size_t>(first)];
    m.differing_elements = differing;
    m.seed = seed;
    m.written_by_block = last_block_writing(candidate, expected.name);
    report.mismatch = m;
  }
  return false;
}

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(idx[i]);
  }
  return s + "]";
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

std::string_view status_name(Status s) {
  switch (s) {
    case Status::kEquivalent:
      return "equivalent";
    case Status::kParseError:
      return "parse_error";
    case Status::kIllFormed:
      return "ill_formed";
    case Status::kBudgetExceeded:
      return "budget_exceeded";
    case Status::kCompileError:
      return "compile_error";
    case Status::kOutOfBounds:
      return "out_of_bounds";
    case Status::kUninitializedRead:
      return "uninitialized_read";
    case Status::kIncompleteOutput:
      return "incomplete_output";
    case Status::kRace:
      return "race";
    case Status::kMismatch:
      return "mismatch";
  }
  return "?";
}

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::kInterpreter:
      return "interpreter";
    case Engine::kCompiled:
      return "compiled";
    case Engine::kBoth:
      return "interpreter+compiled";
    case Engine::kTvm:
      return "interpreter+tvm";
  }
  return "?";
}

Status status_from_error_category(std::string_view c) {
  if (c == "parse_error") return Status::kParseError;
  if (c == "budget_exceeded") return Status::kBudgetExceeded;
  if (c == "compile_error") return Status::kCompileError;
  if (c == "out_of_bounds") return Status::kOutOfBounds;
  if (c == "uninitialized_read") return Status::kUninitializedRead;
  if (c == "incomplete_output") return Status::kIncompleteOutput;
  if (c == "race") return Status::kRace;
  return Status::kIllFormed;  // ill_formed, bad_input, unsupported dtypes: the program is unusable
}

Tolerance tolerance_for(leir::DType t) {
  switch (t) {
    case leir::DType::kF64:
      return {1e-9, 1e-11};
    case leir::DType::kF32:
      return {1e-4, 1e-5};
    case leir::DType::kF16:
    case leir::DType::kBF16:
    case leir::DType::kF8E4M3FN:
    case leir::DType::kF8E4M3FNUZ:
    case leir::DType::kF8E5M2:
      return {1e-2, 1e-2};
    case leir::DType::kC64:
      return {1e-4, 1e-5};
    case leir::DType::kC128:
      return {1e-9, 1e-11};
    case leir::DType::kI8:
    case leir::DType::kI16:
    case leir::DType::kI32:
    case leir::DType::kI64:
    case leir::DType::kU8:
    case leir::DType::kU16:
    case leir::DType::kU32:
    case leir::DType::kU64:
    case leir::DType::kBool:
    case leir::DType::kU4:
    case leir::DType::kI4:
      return {0, 0};
  }
  return {0, 0};
}

namespace {

// The options' compiled engine, else the C backend through the content-addressed kernel cache.
EngineFn compiled_engine(const VerifyOptions& o) {
  if (o.compiled) return o.compiled;
  return [](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
    return codegen::run_compiled(p, inputs);
  };
}

std::vector<std::pair<std::string, EngineFn>> engines_for(const VerifyOptions& o) {
  std::vector<std::pair<std::string, EngineFn>> out;
  if (o.engine != Engine::kCompiled) out.emplace_back("interpreter", interpreter_engine(o.run));
  if (o.engine == Engine::kTvm) {
    if (o.tvm) out.emplace_back("tvm", o.tvm);
  } else if (o.engine != Engine::kInterpreter) {
    out.emplace_back("compiled", compiled_engine(o));
  }
  return out;
}

}  // namespace

VerifyOptions sized_for(const leir::Program& original, VerifyOptions base) {
  if (base.engine == Engine::kTvm) return base;
  const int64_t work = codegen::static_work(original);
  if (work <= kInterpreterWorkLimit) return base;
  base.engine = Engine::kCompiled;
  base.original_on_compiled = true;
  base.run.work_budget = std::max(base.run.work_budget, 4 * work);
  return base;
}

Verifier::Verifier(leir::Program original, VerifyOptions options)
    : original_(std::move(original)), options_(std::move(options)) {
  if (options_.num_seeds < 1) options_.num_seeds = 1;
  if (auto wf = leir::check_well_formed(original_); !wf) {
    original_failure_ = failure_from_error(wf.error(), Side::kOriginal);
    return;
  }
  // The original runs on the interpreter, the semantics of record (unless told otherwise, for
  // shapes the interpreter cannot afford).
  auto compiled = interp::Interpreter::compile(original_, options_.run);
  if (!compiled) {
    original_failure_ = failure_from_error(compiled.error(), Side::kOriginal);
    return;
  }
  const bool on_compiled = options_.original_on_compiled && options_.engine == Engine::kCompiled &&
                           compiled->statically_in_bounds();
  const EngineFn reference = on_compiled ? compiled_engine(options_) : EngineFn();
  for (int k = 0; k < options_.num_seeds; ++k) {
    SeedRun run;
    run.seed = options_.seed + static_cast<uint64_t>(k);
    run.inputs = make_inputs(original_, run.seed, options_.input_scale);
    auto out = on_compiled ? reference(original_, run.inputs) : compiled->run(run.inputs);
    if (!out) {
      original_failure_ = failure_from_error(out.error(), Side::kOriginal);
      return;
    }
    run.expected = std::move(*out);
    runs_.push_back(std::move(run));
  }
}

VerifyReport Verifier::check(const leir::Program& candidate_in) const {
  if (original_failure_) return *original_failure_;
  leir::Program candidate = candidate_in;
  if (candidate.decls.empty()) candidate.decls = original_.decls;
  if (!(candidate.decls == original_.decls)) {
    return failure(Status::kIllFormed, Side::kCandidate,
                   "the candidate changes the tensor declarations (names, roles, dtypes, shapes "
                   "or argument order must stay those of the original)");
  }
  if (auto wf = leir::check_well_formed(candidate); !wf)
    return failure_from_error(wf.error(), Side::kCandidate);

  auto engines = engines_for(options_);
  if (options_.engine == Engine::kCompiled) {
    // The compiled C has no bounds checks: a candidate whose subscripts are not provably inside
    // its tensors runs on the interpreter first, whose checks stop it before the C could write
    // outside a buffer.
    auto compiled = interp::Interpreter::compile(candidate, options_.run);
    if (!compiled) return failure_from_error(compiled.error(), Side::kCandidate);
    if (!compiled->statically_in_bounds())
      engines.insert(engines.begin(), {"interpreter", interpreter_engine(options_.run)});
  }
  VerifyReport report;
  report.engine = std::string(engine_name(options_.engine));
  if (engines.empty() || (options_.engine == Engine::kTvm && !options_.tvm))
    return failure(Status::kCompileError, Side::kCandidate,
                   options_.engine == Engine::kTvm ? "no TVM engine was given"
                                                   : "no compiled engine is available");
  // Compares one engine's outputs of one seed with the original's; false on a mismatch (the
  // report then holds the first differing element and names the engine).
  auto outputs_agree = [&](const SeedRun& run, const std::vector<leir::TensorData>& out,
                           const std::string& engine) {
    for (size_t i = 0; i < run.expected.size() && i < out.size(); ++i) {
      Tolerance tol = options_.tolerance.value_or(tolerance_for(run.expected[i].dtype));
      if (!compare_tensor(run.expected[i], out[i], tol, run.seed, candidate, report)) {
        report.status = Status::kMismatch;
        report.engine = engine;
      }
    }
    return report.status == Status::kEquivalent;
  };
  if (options_.engine == Engine::kInterpreter) {
    // Compile once for all seeds (statically detected problems surface here).
    auto compiled = interp::Interpreter::compile(candidate, options_.run);
    if (!compiled) return failure_from_error(compiled.error(), Side::kCandidate);
    for (const SeedRun& run : runs_) {
      auto out = compiled->run(run.inputs);
      if (!out) return failure_from_error(out.error(), Side::kCandidate);
      ++report.seeds_run;
      if (!outputs_agree(run, *out, std::string(engine_name(options_.engine)))) break;
    }
  } else {
    for (const SeedRun& run : runs_) {
      for (const auto& [name, engine] : engines) {
        auto out = engine(candidate, run.inputs);
        if (!out) {
          VerifyReport r = failure_from_error(out.error(), Side::kCandidate);
          r.engine = name;
          return r;
        }
        if (!outputs_agree(run, *out, name)) break;
      }
      ++report.seeds_run;
      if (report.status != Status::kEquivalent) break;
    }
  }
  if (report.status == Status::kMismatch && report.message.empty() && report.mismatch) {
    const Mismatch& m = *report.mismatch;
    report.message = "output '" + m.tensor + "' differs at " + index_text(m.index) + ": expected " +
                     number_text(m.expected) + ", got " + number_text(m.actual) + " (" +
                     std::to_string(m.differing_elements) + " elements out of tolerance, seed " +
                     std::to_string(m.seed) +
                     (m.written_by_block >= 0 ? ", last written by top-level block " +
                                                    std::to_string(m.written_by_block)
                                              : "") +
                     ")";
  }
  return report;
}

VerifyReport verify(const leir::Program& original, const leir::Program& candidate,
                    const VerifyOptions& options) {
  return Verifier(original, options).check(candidate);
}

VerifyReport verify_text(std::string_view original, std::string_view candidate,
                         const VerifyOptions& options, std::string_view original_file,
                         std::string_view candidate_file) {
  auto orig = leir::parse_program(original, original_file);
  if (!orig) return failure_from_error(orig.error(), Side::kOriginal);
  auto cand = leir::parse_program(candidate, candidate_file);
  if (!cand) return failure_from_error(cand.error(), Side::kCandidate);
  return verify(*orig, *cand, options);
}

std::string VerifyReport::render() const {
  std::string out;
  if (equivalent()) {
    out = "equivalent (" + engine + ", " + std::to_string(seeds_run) + " seeds, max abs error " +
          number_text(max_abs_error) + ", max rel error " + number_text(max_rel_error) + ")";
    return out;
  }
  out = std::string(side == Side::kOriginal ? "original is invalid: " : "not equivalent: ") +
        std::string(status_name(status));
  if (!message.empty()) out += "\n" + message;
  return out;
}

nlohmann::json VerifyReport::to_json() const {
  nlohmann::json j;
  j["status"] = status_name(status);
  j["equivalent"] = equivalent();
  j["side"] = side == Side::kOriginal ? "original" : "candidate";
  j["message"] = message;
  j["engine"] = engine;
  j["seeds_run"] = seeds_run;
  j["max_abs_error"] =
      std::isfinite(max_abs_error) ? nlohmann::json(max_abs_error) : nlohmann::json("inf");
  j["max_rel_error"] =
      std::isfinite(max_rel_error) ? nlohmann::json(max_rel_error) : nlohmann::json("inf");
  if (mismatch) {
    auto finite_or_text = [](double v) {
      return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(number_text(v));
    };
    j["mismatch"] = {{"tensor", mismatch->tensor},
                     {"index", mismatch->index},
                     {"expected", finite_or_text(mismatch->expected)},
                     {"actual", finite_or_text(mismatch->actual)},
                     {"differing_elements", mismatch->differing_elements},
                     {"seed", mismatch->seed},
                     {"written_by_block", mismatch->written_by_block}};
  }
  return j;
}

}  // namespace steptp::verify
