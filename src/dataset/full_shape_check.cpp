// dataset/full_shape_check.cpp — default-shape steps verified at the shapes they show.
#include "dataset/full_shape_check.h"

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "codegen/c_engine.h"
#include "dataset/progress.h"
#include "dataset/recheck.h"
#include "dataset/seeded_random.h"
#include "leir/parser.h"
#include "verify/verify.h"

namespace steptp::dataset {
namespace {

// Empty when the step verifies at full shape, else the reason.
std::string check_one(const StepRecord& r, const verify::VerifyOptions& vo) {
  auto original = leir::parse_program(r.declarations + r.original + "\n");
  if (!original) return "original: " + original.error().render();
  auto body = leir::parse_body(r.transformed);
  if (!body) return "transformed: " + body.error().render();
  verify::Verifier verifier(*original, vo);
  if (verifier.original_failure()) return "original fails: " + verifier.original_failure()->message;
  verify::VerifyReport report = verifier.check(leir::Program{original->decls, std::move(*body)});
  return report.equivalent() ? "" : "not equivalent: " + report.message;
}

}  // namespace

FullShapeCheck check_at_full_shape(const std::vector<const StepRecord*>& records,
                                   const FullShapeCheckOptions& options) {
  FullShapeCheck out;
  std::vector<const StepRecord*> eligible;
  for (const StepRecord* r : records) {
    if (r->verification.instance != "reduced") continue;
    ++out.candidates;
    auto p = leir::parse_program(r->declarations + r->original + "\n");
    if (p && codegen::static_work(*p) <= options.work_limit) eligible.push_back(r);
  }
  out.eligible = static_cast<int64_t>(eligible.size());
  // A seeded sample without replacement, checked in record order.
  SeededRandom rng(options.seed ^ 0xf0115ea9e);
  const size_t n =
      std::min(eligible.size(), static_cast<size_t>(std::max<int64_t>(0, options.samples)));
  std::vector<size_t> order(eligible.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = 0; i < n; ++i) std::swap(order[i], order[i + rng.below(order.size() - i)]);
  order.resize(n);
  std::sort(order.begin(), order.end());

  verify::VerifyOptions vo;
  vo.num_seeds = 2;
  vo.seed = options.seed + 29;  // other inputs than the generator and --recheck use
  vo.engine = verify::Engine::kCompiled;
  vo.original_on_compiled = true;
  vo.run.work_budget = std::max<int64_t>(50'000'000, 4 * options.work_limit);
  vo.compiled = one_shot_compiled_engine();
  std::vector<std::string> why(order.size());
  ProgressBar bar(order.size(), 0, options.progress && !order.empty(), "full-shape checks");
  tbb::task_arena arena(options.jobs > 0 ? options.jobs : tbb::this_task_arena::max_concurrency());
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, order.size(), [&](size_t k) {
      why[k] = check_one(*eligible[order[k]], vo);
      bar.advance(eligible[order[k]]->unit);
    });
  });
  bar.finish();
  for (size_t k = 0; k < order.size(); ++k) {
    ++out.checked;
    if (why[k].empty())
      ++out.passed;
    else if (out.failures.size() < 20)
      out.failures.push_back(
          fmt::format("{} {}: {}", eligible[order[k]]->unit, eligible[order[k]]->site, why[k]));
  }
  return out;
}

}  // namespace steptp::dataset
