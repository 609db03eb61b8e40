#include "codegen/c_reduction_nests.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/access.h"
#include "leir/visit.h"

namespace steptp::codegen {
namespace {

// Declarations fixing the unrolled loops b.loops[jammed] to their iteration `index`, counted
// row-major (the last loop fastest): "const int64_t i_t = 1;" ...
std::vector<std::string> pinned_iteration(const leir::Block& b, const std::vector<size_t>& jammed,
                                          int64_t index) {
  std::vector<std::string> pinned(jammed.size());
  for (size_t k = jammed.size(); k-- > 0;) {
    const leir::Loop& l = b.loops[jammed[k]];
    pinned[k] = fmt::format("const int64_t {} = {};", c_var_name(l.var), index % l.extent);
    index /= l.extent;
  }
  return pinned;
}

// An empty asm statement that claims to change each named vector: GCC must keep each in a
// register from there on and cannot fold its load back into every multiply that uses it.
void emit_register_pins(Writer& w, const std::vector<std::string>& names) {
  // An asm statement takes at most 30 operands; an in-out operand counts twice.
  constexpr size_t kOperandsPerBarrier = 15;
  for (size_t i = 0; i < names.size(); i += kOperandsPerBarrier) {
    std::vector<std::string> operands;
    for (size_t j = i; j < std::min(names.size(), i + kOperandsPerBarrier); ++j)
      operands.push_back(fmt::format("\"+v\"({})", names[j]));
    w.line(fmt::format("__asm__(\"\" : {});", fmt::join(operands, ", ")));
  }
}

std::string shared_row_name(size_t read, int64_t vector) {
  return fmt::format("stp_r{}_{}", read, vector);
}
// Loads each shared row read once, vector by vector, then passes the vectors through an empty
// asm statement that claims to change them: GCC must keep each one in a register from there
// on and cannot fold the load back into the multiplies (the wide tile is GCC-only code).
void emit_shared_row_loads(Writer& w, CExprPrinter& expr, const leir::Block& b,
                           const StationaryTile& t, const std::vector<bool>& shared,
                           const std::string& type) {
  std::vector<std::string> loaded;
  for (size_t k = 0; k < shared.size(); ++k) {
    if (!shared[k]) continue;
    for (int64_t v = 0; v < t.vectors; ++v) {
      const std::string name = shared_row_name(k, v);
      w.line(fmt::format("{} {};", type, name));
      w.open(fmt::format("{{ const int64_t {} = {};", c_var_name(b.loops.back().var),
                         stationary_vector_start(b.loops.back().extent, v, t.lanes)));
      w.line(fmt::format("{} = (*({}*)&{});", name, type, expr.element(t.row_reads[k])));
      w.close();
      loaded.push_back(name);
    }
  }
  emit_register_pins(w, loaded);
}

}  // namespace

std::string for_header(const leir::Loop& l) {
  std::string v = c_var_name(l.var);
  return fmt::format("for (int64_t {0} = 0; {0} < {1}; ++{0}) {{", v, l.extent);
}

// The element lives in a private accumulator for the whole loop; each SIMD lane reduces its
// share of the iterations and OpenMP combines the lanes with `op` at the end.
void emit_lane_reduction(Writer& w, CExprPrinter& expr, const leir::Block& b, const leir::Loop& l,
                         const std::string& op) {
  const leir::Stmt& s = *b.body[0].stmt;
  std::string element = expr.element(s.lhs);
  w.open("{");
  w.line(fmt::format("{} stp_acc = {};", c_storage_type(expr.info(s.lhs->name()).dtype), element));
  w.line(fmt::format("#pragma omp simd reduction({}:stp_acc)", op));
  w.open(for_header(l));
  expr.substitute(s.lhs, "stp_acc");
  std::string value = expr.value(s.rhs);
  expr.clear_substitution();
  w.line(fmt::format("stp_acc = {};", expr.convert_for_store(s.lhs, value)));
  w.close();
  w.line(fmt::format("{} = stp_acc;", element));
  w.close();
}

// A lane jam in explicit 8-double vectors (is_explicit_wide_lane_jam): inside the hoisted
// loops, one vector accumulator per jam iteration starting at zero; per step of the collapsed
// loops, each distinct vector read (a read and the jammed variables it mentions) loaded once
// into a register that an empty asm pins there, then every accumulator updated from those
// registers and broadcast scalars; after the loops each destination element gains its
// accumulator's 8 lanes, summed pairwise.
void emit_wide_lane_jam(Writer& w, CExprPrinter& expr, const leir::Block& b, const LaneJam& jam) {
  const leir::Stmt& s = *b.body[0].stmt;
  const leir::Loop& lanes = b.loops.back();
  const std::string type = "stp_v8d";
  std::vector<leir::ExprRef> reads;  // the reads that move with the V loop: vector loads
  leir::for_each_expr(s.rhs, [&](const leir::ExprRef& e) {
    if (e->kind() == leir::ExprKind::kAccess && !leir::equal(e, s.lhs) &&
        analysis::mentions_var(e, lanes.var) &&
        std::none_of(reads.begin(), reads.end(),
                     [&](const leir::ExprRef& r) { return leir::equal(r, e); }))
      reads.push_back(e);
  });
  // The load that read k needs in jam iteration j: one per distinct value of the jammed
  // variables the read mentions.
  std::map<std::string, std::string> load_names;
  std::vector<std::vector<std::string>> load_of(static_cast<size_t>(jam.accumulators),
                                                std::vector<std::string>(reads.size()));
  std::vector<std::pair<int64_t, size_t>> first_use;  // (iteration, read) of each load
  for (int64_t j = 0; j < jam.accumulators; ++j) {
    const std::vector<std::string> pinned = pinned_iteration(b, jam.jammed, j);
    for (size_t k = 0; k < reads.size(); ++k) {
      std::string key = std::to_string(k);
      for (size_t m = 0; m < jam.jammed.size(); ++m)
        if (analysis::mentions_var(reads[k], b.loops[jam.jammed[m]].var)) key += " " + pinned[m];
      auto [it, fresh] = load_names.emplace(key, fmt::format("stp_l{}", load_names.size()));
      if (fresh) first_use.emplace_back(j, k);
      load_of[static_cast<size_t>(j)][k] = it->second;
    }
  }
  auto in_iteration = [&](int64_t j, const auto& fn) {
    w.open(fmt::format("{{ {}", fmt::join(pinned_iteration(b, jam.jammed, j), " ")));
    fn();
    w.close();
  };
  for (size_t k : jam.hoisted) w.open(for_header(b.loops[k]));
  w.open("{");
  w.line(fmt::format("typedef double {} __attribute__((vector_size({}), aligned(8), may_alias));",
                     type, kWideJamLanes * 8));
  std::vector<std::string> accumulators;
  for (int64_t j = 0; j < jam.accumulators; ++j)
    accumulators.push_back(fmt::format("stp_w{} = {{0.0}}", j));
  w.line(fmt::format("{} {};", type, fmt::join(accumulators, ", ")));
  // Not unrolled: a short collapsed loop unrolled completely holds every step's loads at
  // once, more than the registers, and GCC spilled them (a 4 x 2 jam over 2 x 2 steps).
  for (size_t k = 0; k + 1 < jam.collapsed.size(); ++k) {
    w.line("#pragma GCC unroll 1");
    w.open(for_header(b.loops[jam.collapsed[k]]));
  }
  w.line("#pragma GCC unroll 1");
  w.open(fmt::format("for (int64_t {0} = 0; {0} < {1}; {0} += {2}) {{", c_var_name(lanes.var),
                     lanes.extent, kWideJamLanes));
  std::vector<std::string> loaded;
  for (const auto& use : first_use) {
    const auto j = use.first;  // not a binding: the lambda below captures them
    const auto k = use.second;
    const std::string& name = load_of[static_cast<size_t>(j)][k];
    w.line(fmt::format("{} {};", type, name));
    in_iteration(
        j, [&] { w.line(fmt::format("{} = (*({}*)&{});", name, type, expr.element(reads[k]))); });
    loaded.push_back(name);
  }
  emit_register_pins(w, loaded);
  for (int64_t j = 0; j < jam.accumulators; ++j)
    in_iteration(j, [&] {
      const std::string acc = fmt::format("stp_w{}", j);
      expr.substitute(s.lhs, acc);
      for (size_t k = 0; k < reads.size(); ++k)
        expr.substitute(reads[k], load_of[static_cast<size_t>(j)][k]);
      std::string value = expr.value(s.rhs);
      expr.clear_substitution();
      w.line(fmt::format("{} = {};", acc, value));
    });
  for (size_t k = 0; k < jam.collapsed.size(); ++k) w.close();
  for (int64_t j = 0; j < jam.accumulators; ++j)
    in_iteration(j, [&] {
      const std::string acc = fmt::format("stp_w{}", j);
      w.line(
          fmt::format("{0} = {0} + ((({1}[0] + {1}[1]) + ({1}[2] + {1}[3])) + "
                      "(({1}[4] + {1}[5]) + ({1}[6] + {1}[7])));",
                      expr.element(s.lhs), acc));
    });
  w.close();
  for (size_t k = 0; k < jam.hoisted.size(); ++k) w.close();
}

// Register-tiled reduction lanes (see find_lane_jam): inside the hoisted loops, one
// accumulator per iteration of the jammed loops, each updated in its own scope where the
// jammed variables are constants, all in one SIMD loop over the collapsed loops.
void emit_lane_jam(Writer& w, CExprPrinter& expr, const leir::Block& b, const LaneJam& jam,
                   const std::string& op) {
  const leir::Stmt& s = *b.body[0].stmt;
  std::string type = c_storage_type(expr.info(s.lhs->name()).dtype);
  std::vector<std::string> accumulators;
  for (int64_t j = 0; j < jam.accumulators; ++j)
    accumulators.push_back(fmt::format("stp_acc{}", j));
  // Calls fn(j) inside a scope that fixes the jammed variables to accumulator j's iteration.
  auto for_each_accumulator = [&](const auto& fn) {
    for (int64_t j = 0; j < jam.accumulators; ++j) {
      w.open(fmt::format("{{ {}", fmt::join(pinned_iteration(b, jam.jammed, j), " ")));
      fn(j);
      w.close();
    }
  };
  for (size_t k : jam.hoisted) w.open(for_header(b.loops[k]));
  w.open("{");
  w.line(fmt::format("{} {};", type, fmt::join(accumulators, ", ")));
  for_each_accumulator(
      [&](int64_t j) { w.line(fmt::format("{} = {};", accumulators[j], expr.element(s.lhs))); });
  std::string collapse =
      jam.collapsed.size() > 1 ? fmt::format(" collapse({})", jam.collapsed.size()) : "";
  w.line(fmt::format("#pragma omp simd{} reduction({}:{})", collapse, op,
                     fmt::join(accumulators, ",")));
  for (size_t k : jam.collapsed) w.open(for_header(b.loops[k]));
  for_each_accumulator([&](int64_t j) {
    expr.substitute(s.lhs, accumulators[j]);
    std::string value = expr.value(s.rhs);
    expr.clear_substitution();
    w.line(fmt::format("{} = {};", accumulators[j], expr.convert_for_store(s.lhs, value)));
  });
  for (size_t k = 0; k < jam.collapsed.size(); ++k) w.close();
  for_each_accumulator(
      [&](int64_t j) { w.line(fmt::format("{} = {};", expr.element(s.lhs), accumulators[j])); });
  w.close();
  for (size_t k = 0; k < jam.hoisted.size(); ++k) w.close();
}

// Output-stationary vector accumulators (see find_stationary_tile): every element one pass
// of the reduction loops updates — per jammed iteration, the row as vectors — is loaded into
// a register before the loops and stored after them.
void emit_stationary_tile(Writer& w, CExprPrinter& expr, const leir::Block& b,
                          const StationaryTile& t) {
  const leir::Stmt& s = *b.body[0].stmt;
  const leir::Loop& row = b.loops.back();
  // Calls fn(name) for each accumulator, in a scope that fixes the jammed variables to its
  // iteration and the row variable to its first element.
  auto for_each_accumulator = [&](const auto& fn) {
    for (int64_t r = 0; r < t.rows; ++r) {
      std::vector<std::string> pinned = pinned_iteration(b, t.jammed, r);
      for (int64_t v = 0; v < t.vectors; ++v) {
        w.open(fmt::format("{{ {} const int64_t {} = {};", fmt::join(pinned, " "),
                           c_var_name(row.var), stationary_vector_start(row.extent, v, t.lanes)));
        fn(fmt::format("stp_v{}_{}", r, v), v);
        w.close();
      }
    }
  };
  const std::string type = fmt::format("stp_v{}d", t.lanes);
  auto as_vector = [&](const std::string& element) {
    return fmt::format("(*({}*)&{})", type, element);
  };
  std::vector<std::string> names;
  for_each_accumulator([&](const std::string& name, int64_t) { names.push_back(name); });
  w.open("{");
  // Under-aligned and may_alias: a load or store of `lanes` doubles at any element address.
  w.line(fmt::format("typedef double {} __attribute__((vector_size({}), aligned(8), may_alias));",
                     type, t.lanes * 8));
  w.line(fmt::format("{} {};", type, fmt::join(names, ", ")));
  for_each_accumulator([&](const std::string& name, int64_t) {
    w.line(fmt::format("{} = {};", name, as_vector(expr.element(s.lhs))));
  });
  for (size_t k : t.reduction) w.open(for_header(b.loops[k]));
  const std::vector<bool> shared = shared_row_reads(b, t);
  emit_shared_row_loads(w, expr, b, t, shared, type);
  for_each_accumulator([&](const std::string& name, int64_t v) {
    expr.substitute(s.lhs, name);
    for (size_t k = 0; k < t.row_reads.size(); ++k) {
      const leir::ExprRef& r = t.row_reads[k];
      expr.substitute(r, shared[k] ? shared_row_name(k, v) : as_vector(expr.element(r)));
    }
    std::string value = expr.value(s.rhs);
    expr.clear_substitution();
    w.line(fmt::format("{} = {};", name, value));
  });
  for (size_t k = 0; k < t.reduction.size(); ++k) w.close();
  for_each_accumulator([&](const std::string& name, int64_t) {
    w.line(fmt::format("{} = {};", as_vector(expr.element(s.lhs)), name));
  });
  w.close();
}

}  // namespace steptp::codegen
