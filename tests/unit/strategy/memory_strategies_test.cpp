// The five memory strategies (cache_read_write, layout_transformation, set_storage_scope,
// set_storage_layout, precompute_indices): every site on every test program either is rejected
// consistently by check() and apply(), or yields a well-formed program that round-trips and
// verifies equivalent to its input; plus the layout maps against brute-force enumeration and the
// rules that keep declared tensors in global memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "leir/interval.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "leir/wellformed.h"
#include "strategy/memory/layout_map.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::strategy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMemoryStrategies[] = {"cache_read_write", "layout_transformation",
                                             "set_storage_scope", "set_storage_layout",
                                             "precompute_indices"};

leir::Program parse(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), "test program does not parse: " + text);
  return *p;
}

std::vector<std::pair<std::string, leir::Program>> test_programs() {
  std::vector<std::pair<std::string, leir::Program>> out;
  for (const char* dir : {"tests/data/verify", "tests/data/programs"}) {
    fs::path root = fs::path(STEPTP_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root))
      if (e.path().extension() == ".leir") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::ifstream in(f);
      std::stringstream ss;
      ss << in.rdbuf();
      Result<leir::Program> p = leir::parse_program(ss.str(), f.string());
      if (!p.ok()) continue;  // a fixture of another module's error tests
      out.emplace_back(fs::path(dir).filename().string() + "/" + f.filename().string(), *p);
    }
  }
  return out;
}

TEST(MemoryStrategies, AreRegisteredInReferenceOrder) {
  std::vector<std::string> seen;
  for (const Strategy* s : all_strategies())
    for (const char* n : kMemoryStrategies)
      if (s->name() == n) seen.push_back(n);
  EXPECT_EQ(seen,
            std::vector<std::string>(std::begin(kMemoryStrategies), std::end(kMemoryStrategies)));
  for (const char* n : kMemoryStrategies)
    EXPECT_EQ(find_strategy(n)->category(), Category::kMemory) << n;
}

TEST(MemoryStrategies, EverySiteOnEveryTestProgramVerifies) {
  auto programs = test_programs();
  ASSERT_GE(programs.size(), 20u);
  verify::VerifyOptions options;
  options.num_seeds = 2;
  struct Count {
    int sites = 0, feasible = 0, verified = 0, programs = 0;
  };
  std::map<std::string, Count> counts;
  for (const auto& [file, original] : programs) {
    ASSERT_TRUE(leir::check_well_formed(original).ok()) << file;
    verify::Verifier verifier(original, options);
    ASSERT_FALSE(verifier.original_failure().has_value())
        << file << ": " << verifier.original_failure()->render();
    for (const char* n : kMemoryStrategies) {
      const Strategy* strategy = find_strategy(n);
      std::vector<Site> sites = strategy->sites(original);
      EXPECT_EQ(sites, strategy->sites(original)) << n << " sites are not deterministic";
      Count& c = counts[n];
      c.programs += !sites.empty();
      for (const Site& site : sites) {
        ++c.sites;
        Check check = strategy->check(original, site);
        Outcome<leir::Program> applied = strategy->apply(original, site);
        EXPECT_FALSE(strategy->explain(original, site).empty());
        if (!check.ok()) {
          ASSERT_FALSE(applied.ok()) << file << " " << site.to_string();
          EXPECT_EQ(applied.infeasible().code, check.infeasible().code);
          EXPECT_EQ(check.infeasible().code.rfind(std::string(n) + ".", 0), 0u)
              << check.infeasible().render();
          continue;
        }
        ++c.feasible;
        ASSERT_TRUE(applied.ok()) << file << " " << site.to_string() << ": "
                                  << applied.infeasible().render();
        const std::string where =
            file + " " + site.to_string() + "\n" + leir::print_body(applied->blocks);
        Result<void> wf = leir::check_well_formed(*applied);
        ASSERT_TRUE(wf.ok()) << where << "\n" << wf.error().render();
        Result<leir::Program> reparsed = leir::parse_program(leir::print_program(*applied));
        ASSERT_TRUE(reparsed.ok() && *reparsed == *applied) << where;
        Result<Site> replay = parse_site(site.to_string());
        ASSERT_TRUE(replay.ok() && *replay == site) << where;
        verify::VerifyReport report = verifier.check(*applied);
        ASSERT_TRUE(report.equivalent()) << where << "\n" << report.render();
        ++c.verified;
      }
    }
  }
  std::cout << "[memory] strategy: programs with sites / sites / feasible / verified\n";
  for (const char* n : kMemoryStrategies) {
    const Count& c = counts[n];
    std::cout << "[memory] " << n << ": " << c.programs << " / " << c.sites << " / " << c.feasible
              << " / " << c.verified << "\n";
    EXPECT_GE(c.verified, 5) << n << " applies to almost none of the test programs";
  }
}

// ---- layout maps, checked by enumerating every point of the box --------------------------------

// The value of an index expression at one point, computed by the interval evaluator with
// degenerate ranges (independent of the map code).
int64_t eval_at(const leir::ExprRef& e, const std::map<std::string, int64_t>& point) {
  leir::VarRanges r;
  for (const auto& [v, x] : point) r[v] = leir::Interval{x, x};
  std::optional<leir::Interval> iv = leir::index_interval(*e, r);
  STEPTP_CHECK(iv && iv->lo == iv->hi, "not a point: " + leir::print(e));
  return iv->lo;
}

// Applies the map to every point of the box and checks that it lands inside the mapped shape,
// hits every element exactly once, and agrees with `expected` (the hand-written formula).
void expect_bijection(
    const memory::LayoutMap& m,
    const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& expected) {
  const std::vector<std::string> vars = {"a", "c", "d"};
  std::vector<leir::ExprRef> idx;
  for (size_t i = 0; i < m.dims.size(); ++i) idx.push_back(leir::Expr::index_var(vars[i]));
  std::vector<leir::ExprRef> mapped = memory::map_indices(m, idx);
  std::vector<int64_t> shape = memory::mapped_shape(m);
  ASSERT_EQ(mapped.size(), shape.size());
  std::set<std::vector<int64_t>> images;
  std::vector<int64_t> point(m.dims.size(), 0);
  int64_t total = leir::element_count(m.dims);
  for (int64_t n = 0; n < total; ++n) {
    int64_t rest = n;
    for (size_t i = m.dims.size(); i-- > 0;) {
      point[i] = rest % m.dims[i];
      rest /= m.dims[i];
    }
    std::map<std::string, int64_t> env;
    for (size_t i = 0; i < point.size(); ++i) env[vars[i]] = point[i];
    std::vector<int64_t> image;
    for (size_t d = 0; d < mapped.size(); ++d) {
      image.push_back(eval_at(mapped[d], env));
      ASSERT_GE(image.back(), 0);
      ASSERT_LT(image.back(), shape[d]);
    }
    EXPECT_EQ(image, expected(point));
    images.insert(image);
  }
  EXPECT_EQ(static_cast<int64_t>(images.size()), leir::element_count(shape));
  EXPECT_EQ(leir::element_count(shape), total);
}

TEST(LayoutMap, PermuteMovesDimensions) {
  memory::LayoutMap m{memory::LayoutKind::kPermute, {2, 3, 4}, {2, 0, 1}, 0, 0};
  EXPECT_EQ(memory::mapped_shape(m), (std::vector<int64_t>{4, 2, 3}));
  expect_bijection(m, [](const std::vector<int64_t>& p) {
    return std::vector<int64_t>{p[2], p[0], p[1]};
  });
}

TEST(LayoutMap, FlattenIsRowMajor) {
  memory::LayoutMap m{memory::LayoutKind::kFlatten, {3, 4, 5}, {}, 0, 0};
  EXPECT_EQ(memory::mapped_shape(m), (std::vector<int64_t>{60}));
  expect_bijection(m, [](const std::vector<int64_t>& p) {
    return std::vector<int64_t>{p[0] * 20 + p[1] * 5 + p[2]};
  });
  // Constant components fold into one offset.
  auto idx = memory::map_indices(
      m, {leir::Expr::integer(2), leir::Expr::index_var("a"), leir::Expr::integer(3)});
  EXPECT_EQ(leir::print(idx[0]), "a*5+43");
}

TEST(LayoutMap, SplitDividesOneDimension) {
  memory::LayoutMap m{memory::LayoutKind::kSplit, {4, 6}, {}, 1, 3};
  EXPECT_EQ(memory::mapped_shape(m), (std::vector<int64_t>{4, 2, 3}));
  expect_bijection(m, [](const std::vector<int64_t>& p) {
    return std::vector<int64_t>{p[0], p[1] / 3, p[1] % 3};
  });
}

TEST(LayoutMap, SitesRejectMalformedLayouts) {
  auto bad = [](Site s) {
    Outcome<memory::LayoutMap> m = memory::layout_from_site(s, {4, 6}, "x");
    return m.ok() ? std::string("ok") : m.infeasible().code;
  };
  EXPECT_EQ(bad(Site("x").set("layout", "permute").set_ints("perm", {0, 1})), "x.bad_layout");
  EXPECT_EQ(bad(Site("x").set("layout", "permute").set_ints("perm", {1, 1})), "x.bad_layout");
  EXPECT_EQ(bad(Site("x").set("layout", "split").set_int("dim", 1).set_int("factor", 4)),
            "x.bad_layout");
  EXPECT_EQ(bad(Site("x").set("layout", "split").set_int("dim", 2).set_int("factor", 2)),
            "x.bad_layout");
  EXPECT_EQ(bad(Site("x").set("layout", "spiral")), "x.bad_layout");
  EXPECT_EQ(bad(Site("x").set("layout", "split").set_int("dim", 1).set_int("factor", 3)), "ok");
  EXPECT_EQ(bad(Site("x").set("layout", "split")), "site.bad_parameter");
}

// ---- declared tensors stay in global memory ---------------------------------------------------

const char* kGemmBiasRelu =
    "input A f64[4,8]\ninput C f64[8,6]\ninput D f64[6]\noutput G f64[4,6]\n"
    "B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
    "C^{f64,g}_{c,a};];B^{4}_{tx=0}L^{6}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];"
    "B^{4}_{tx=0}L^{6}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];";

// The scopes with which each tensor is referenced anywhere in the program.
std::map<std::string, std::set<char>> scopes_of(const leir::Program& p) {
  std::map<std::string, std::set<char>> out;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
    auto note = [&](const leir::ExprRef& n) {
      if (n->kind() == leir::ExprKind::kAccess)
        out[n->name()].insert(leir::scope_letter(n->scope()));
    };
    leir::for_each_expr(s.lhs, note);
    leir::for_each_expr(s.rhs, note);
  });
  return out;
}

TEST(MemoryStrategies, DeclaredTensorsNeverLeaveGlobalMemory) {
  leir::Program p = parse(kGemmBiasRelu);
  for (const char* n : {"cache_read_write", "set_storage_scope"}) {
    const Strategy* s = find_strategy(n);
    int applied = 0;
    for (const Site& site : feasible_sites(*s, p)) {
      leir::Program out = *s->apply(p, site);
      for (const auto& [tensor, scopes] : scopes_of(out)) {
        if (p.find_decl(tensor) == nullptr) continue;
        EXPECT_EQ(scopes, std::set<char>{'g'}) << site.to_string() << " moved " << tensor;
      }
      ++applied;
    }
    EXPECT_GT(applied, 0) << n;
  }
  // Asking for it explicitly is refused, for every declared tensor and scope.
  const Strategy* scope = find_strategy("set_storage_scope");
  for (const leir::TensorDecl& d : p.decls)
    for (const char* sc : {"s", "l"}) {
      Check c = scope->check(p, Site("set_storage_scope").set("tensor", d.name).set("scope", sc));
      ASSERT_FALSE(c.ok());
      EXPECT_EQ(c.infeasible().code, "set_storage_scope.known_tensor");
    }
}

TEST(MemoryStrategies, CacheWriteOfAnOutputCopiesBackToGlobal) {
  leir::Program p = parse(kGemmBiasRelu);
  const Strategy* s = find_strategy("cache_read_write");
  Outcome<leir::Program> out = s->apply(p, Site("cache_read_write")
                                               .set_block(BlockPath{2, {}})
                                               .set("tensor", "G")
                                               .set("mode", "write")
                                               .set("scope", "l"));
  ASSERT_TRUE(out.ok()) << out.infeasible().render();
  ASSERT_EQ(out->blocks.size(), 4u);
  EXPECT_EQ(leir::print(out->blocks[3]),
            "B^{4}_{tx=0}L^{6}_{a=0}[G^{f64,g}_{tx,a}=H^{f64,l}_{tx,a};];");
}

TEST(MemoryStrategies, ForeignAndMalformedSitesAreInfeasible) {
  leir::Program p = parse(kGemmBiasRelu);
  for (const char* n : kMemoryStrategies) {
    const Strategy* s = find_strategy(n);
    EXPECT_FALSE(s->check(p, Site("loop_split").set_block(BlockPath{0, {}})).ok()) << n;
    EXPECT_FALSE(s->check(p, Site(n)).ok()) << n;
    EXPECT_FALSE(s->check(p, Site(n)
                                 .set_block(BlockPath{9, {}})
                                 .set("tensor", "A")
                                 .set("mode", "read")
                                 .set("scope", "s")
                                 .set("index", "0")
                                 .set("layout", "flatten"))
                     .ok())
        << n;
  }
}

TEST(MemoryStrategies, PrecomputeIgnoresGathersAndWrittenTensors) {
  const Strategy* s = find_strategy("precompute_indices");
  // The only non-trivial subscript is already a gather.
  EXPECT_TRUE(s->sites(parse("input A f64[8,5]\ninput T i64[8]\noutput D f64[8]\n"
                             "B^{8}_{tx=0}[D^{f64,g}_{tx}=-A^{f64,g}_{tx,T^{i64,g}_{tx}};];"))
                  .empty());
  // a-1 indexes the tensor being written: left alone.
  EXPECT_TRUE(s->sites(parse("input A f64[8,32]\noutput C f64[8]\n"
                             "B^{8}_{tx=0}L^{32}_{a=0}[H^{f64,g}_{tx,a}=max(if_then_else(a-1<0,"
                             "-inf,H^{f64,g}_{tx,a-1}),A^{f64,g}_{tx,a});];B^{8}_{tx=0}[C^{f64,g}"
                             "_{tx}=H^{f64,g}_{tx,31};];"))
                  .empty());
}

}  // namespace
}  // namespace steptp::strategy
