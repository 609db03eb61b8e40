// strategy/math/online_patterns.cpp — structural matchers and builders of the online family.
#include "strategy/math/online_patterns.h"

#include <algorithm>
#include <set>

#include "analysis/access.h"
#include "leir/printer.h"
#include "leir/visit.h"

namespace steptp::strategy::online {

using leir::BinaryOp;
using leir::CompareOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

namespace {

bool is_call(const ExprRef& e, Function f) {
  return e->kind() == ExprKind::kCall && e->function() == f;
}

// The single statement of a block with exactly one statement, or nullptr.
const leir::Stmt* single_stmt(const leir::Block& b) {
  if (b.body.size() != 1 || !b.body[0].is_stmt()) return nullptr;
  return &*b.body[0].stmt;
}

ExprRef var(const std::string& v) { return Expr::index_var(v); }
ExprRef minus_one(const std::string& v) {
  return Expr::binary(BinaryOp::kSub, var(v), Expr::integer(1));
}
ExprRef first_step(const std::string& k) {  // k-1<0
  return Expr::compare({minus_one(k), Expr::integer(0)}, {CompareOp::kLt});
}
ExprRef ite(ExprRef c, ExprRef t, ExprRef f) {
  return Expr::call(Function::kIfThenElse, {std::move(c), std::move(t), std::move(f)});
}
ExprRef sub(ExprRef a, ExprRef b) {
  return Expr::binary(BinaryOp::kSub, std::move(a), std::move(b));
}
ExprRef mul(ExprRef a, ExprRef b) {
  return Expr::binary(BinaryOp::kMul, std::move(a), std::move(b));
}
ExprRef add(ExprRef a, ExprRef b) {
  return Expr::binary(BinaryOp::kAdd, std::move(a), std::move(b));
}
ExprRef exp_of(ExprRef a) { return Expr::call(Function::kExp, {std::move(a)}); }

ExprRef prefix(const std::string& name, const ExprRef& like, std::vector<ExprRef> idx,
               ExprRef last) {
  idx.push_back(std::move(last));
  return Expr::access(name, like->dtype(), like->scope(), std::move(idx));
}

// Simultaneous substitution of index variables.
ExprRef substitute(const ExprRef& e, const std::map<std::string, ExprRef>& m) {
  return leir::rewrite(e, [&](const ExprRef& n) {
    if (n->kind() != ExprKind::kIndexVar) return n;
    auto it = m.find(n->name());
    return it == m.end() ? n : it->second;
  });
}

// The recurrence value `if_then_else(k-1<0,0,T_{k-1}*exp(m_{k-1}-m_k))+term*exp(X-m_k)`,
// optionally guarded against an all -inf prefix.
ExprRef rescaled(const Recurrence& r, const std::string& t_name, const ExprRef& t_like,
                 const std::vector<ExprRef>& t_idx, const ExprRef& factor) {
  const std::string& k = reduce_var(r);
  const std::vector<ExprRef>& i = r.max_out->indices();
  ExprRef m_k = prefix(r.max_name, r.max_out, i, var(k));
  ExprRef m_prev = prefix(r.max_name, r.max_out, i, minus_one(k));
  ExprRef t_prev = prefix(t_name, t_like, t_idx, minus_one(k));
  ExprRef carried = ite(first_step(k), Expr::integer(0), mul(t_prev, exp_of(sub(m_prev, m_k))));
  ExprRef fresh = exp_of(sub(r.x, m_k));
  if (factor) fresh = mul(fresh, factor);
  ExprRef value = add(carried, fresh);
  if (!r.guard_neg_inf) return value;
  ExprRef all_neg_inf = Expr::compare({m_k, Expr::neg(Expr::inf())}, {CompareOp::kEq});
  return ite(all_neg_inf, Expr::integer(0), value);
}

void for_each_stmt_in(const leir::Program& p, size_t from, size_t to,
                      const std::function<void(const leir::Stmt&)>& fn) {
  std::vector<leir::Block> part(p.blocks.begin() + long(from), p.blocks.begin() + long(to));
  leir::for_each_stmt(part, [&](const leir::Stmt& s, const leir::StmtContext&) { fn(s); });
}

// Loop variables of the header, in order.
std::vector<std::string> header_vars(const leir::Block& b) {
  std::vector<std::string> v;
  for (const leir::Loop& l : b.loops) v.push_back(l.var);
  return v;
}

// The header loops absent from `out`'s subscript, when the subscript is distinct header
// variables and integer constants; nullopt otherwise.
std::optional<std::vector<size_t>> reduction_loops(const leir::Block& b, const ExprRef& out) {
  std::vector<std::string> hv = header_vars(b), used;
  for (const ExprRef& i : out->indices()) {
    if (i->kind() == ExprKind::kNumber && i->is_integer_literal()) continue;
    if (i->kind() != ExprKind::kIndexVar) return std::nullopt;
    if (std::find(hv.begin(), hv.end(), i->name()) == hv.end()) return std::nullopt;
    if (std::find(used.begin(), used.end(), i->name()) != used.end()) return std::nullopt;
    used.push_back(i->name());
  }
  std::vector<size_t> red;
  for (size_t i = 0; i < hv.size(); ++i)
    if (std::find(used.begin(), used.end(), hv[i]) == used.end()) red.push_back(i);
  return red;
}

// `S=S+e` or `S=e+S`: e, else nullptr.
ExprRef summand(const leir::Stmt& s) {
  const ExprRef& r = s.rhs;
  if (r->kind() != ExprKind::kBinary || r->binary_op() != BinaryOp::kAdd) return nullptr;
  if (leir::equal(r->lhs(), s.lhs)) return r->rhs();
  if (leir::equal(r->rhs(), s.lhs)) return r->lhs();
  return nullptr;
}

}  // namespace

int64_t extent(const Recurrence& r) { return r.header->loops[r.reduce].extent; }
const std::string& reduce_var(const Recurrence& r) { return r.header->loops[r.reduce].var; }

Outcome<SoftmaxPair> match_softmax_pair(const leir::Program& p, size_t block,
                                        std::string_view code) {
  const std::string c(code);
  if (block >= p.blocks.size())
    return infeasible(c + "no_such_block", "there is no top-level block {}", block);
  const leir::Block& mb = p.blocks[block];
  // 1. A single max reduction O=max(O,X).
  const leir::Stmt* ms = single_stmt(mb);
  if (ms == nullptr || !is_call(ms->rhs, Function::kMax) ||
      !leir::equal(ms->rhs->args()[0], ms->lhs))
    return infeasible(c + "not_max_reduction", "block {} is not a single max reduction O=max(O,X)",
                      block);
  const ExprRef& o = ms->lhs;
  const ExprRef& x = ms->rhs->args()[1];
  // 2. O is indexed by distinct header loops (and constants); exactly one serial loop reduces.
  std::optional<std::vector<size_t>> red = reduction_loops(mb, o);
  if (!red)
    return infeasible(c + "irregular_output", "{} is not indexed by distinct loops of block {}",
                      leir::print(o), block);
  if (red->size() != 1 || mb.loops[(*red)[0]].kind != leir::LoopKind::kSerial)
    return infeasible(c + "reduction_loops",
                      "block {} reduces over {} loops; an online recurrence needs exactly one "
                      "serial loop",
                      block, red->size());
  // 3. The next block, over the same loops, sums exp(X-O) into S indexed like O.
  if (block + 1 >= p.blocks.size() || !(p.blocks[block + 1].loops == mb.loops))
    return infeasible(c + "no_exp_sum",
                      "block {} is not followed by a sum of exp over the same loops", block);
  const leir::Stmt* ss = single_stmt(p.blocks[block + 1]);
  ExprRef e = ss ? summand(*ss) : nullptr;
  if (e == nullptr || !is_call(e, Function::kExp) || !leir::equal(e->args()[0], sub(x, o)) ||
      ss->lhs->indices().size() != o->indices().size())
    return infeasible(c + "no_exp_sum", "block {} does not compute S=S+exp({}-{})", block + 1,
                      leir::print(x), leir::print(o));
  for (size_t i = 0; i < o->indices().size(); ++i)
    if (!leir::equal(o->indices()[i], ss->lhs->indices()[i]))
      return infeasible(c + "no_exp_sum", "{} and {} are indexed differently", leir::print(o),
                        leir::print(ss->lhs));
  // 4. O and S start from their identities and are written only here; X reads neither.
  const std::string& on = o->name();
  const std::string& sn = ss->lhs->name();
  for (const std::string& t : {on, sn}) {
    const leir::TensorDecl* d = p.find_decl(t);
    if ((d != nullptr && d->role != leir::TensorRole::kOutput) ||
        written_outside(p, t, block, block + 1))
      return infeasible(c + "continued_accumulation",
                        "{} is written outside blocks {}-{}, so the reduction does not start from "
                        "its identity",
                        t, block, block + 1);
  }
  if (on == sn || analysis::mentions_tensor(x, on) || analysis::mentions_tensor(x, sn))
    return infeasible(c + "self_reference", "the reduced expression {} reads {} or {}",
                      leir::print(x), on, sn);
  return SoftmaxPair{block, o, ss->lhs, x, (*red)[0]};
}

Recurrence make_recurrence(const leir::Program& p, const SoftmaxPair& pair, std::string m,
                           std::string f) {
  Recurrence r;
  r.header = &p.blocks[pair.max_block];
  r.reduce = pair.reduce;
  r.max_out = pair.max_out;
  r.sum_out = pair.sum_out;
  r.x = pair.x;
  r.max_name = std::move(m);
  r.sum_name = std::move(f);
  r.guard_neg_inf = may_be_neg_inf(p, pair.x);
  return r;
}

std::vector<leir::Stmt> recurrence_stmts(const Recurrence& r) {
  const std::string& k = reduce_var(r);
  const std::vector<ExprRef>& i = r.max_out->indices();
  ExprRef m_k = prefix(r.max_name, r.max_out, i, var(k));
  ExprRef m_prev = prefix(r.max_name, r.max_out, i, minus_one(k));
  ExprRef running =
      Expr::call(Function::kMax, {ite(first_step(k), Expr::neg(Expr::inf()), m_prev), r.x});
  ExprRef f_k = prefix(r.sum_name, r.sum_out, i, var(k));
  return {leir::Stmt{m_k, running},
          leir::Stmt{f_k, rescaled(r, r.sum_name, r.sum_out, i, nullptr)}};
}

ExprRef last_max(const Recurrence& r, const std::vector<ExprRef>& idx) {
  return prefix(r.max_name, r.max_out, idx, Expr::integer(extent(r) - 1));
}
ExprRef last_sum(const Recurrence& r, const std::vector<ExprRef>& idx) {
  return prefix(r.sum_name, r.sum_out, idx, Expr::integer(extent(r) - 1));
}

std::optional<Recurrence> match_recurrence_block(const leir::Program& p, size_t block) {
  if (block >= p.blocks.size()) return std::nullopt;
  const leir::Block& b = p.blocks[block];
  if (b.body.size() != 2 || !b.body[0].is_stmt() || !b.body[1].is_stmt()) return std::nullopt;
  const leir::Stmt& ms = *b.body[0].stmt;
  const leir::Stmt& fs = *b.body[1].stmt;
  if (!is_call(ms.rhs, Function::kMax) || ms.lhs->indices().empty() ||
      fs.lhs->indices().size() != ms.lhs->indices().size())
    return std::nullopt;
  const ExprRef& k = ms.lhs->indices().back();
  if (k->kind() != ExprKind::kIndexVar) return std::nullopt;
  std::vector<std::string> hv = header_vars(b);
  auto pos = std::find(hv.begin(), hv.end(), k->name());
  if (pos == hv.end()) return std::nullopt;
  std::vector<ExprRef> idx(ms.lhs->indices().begin(), ms.lhs->indices().end() - 1);
  Recurrence r;
  r.header = &b;
  r.reduce = size_t(pos - hv.begin());
  r.max_out = Expr::access("O", ms.lhs->dtype(), ms.lhs->scope(), idx);
  r.sum_out = Expr::access("S", fs.lhs->dtype(), fs.lhs->scope(), idx);
  r.x = ms.rhs->args()[1];
  r.max_name = ms.lhs->name();
  r.sum_name = fs.lhs->name();
  for (bool guard : {false, true}) {
    r.guard_neg_inf = guard;
    std::vector<leir::Stmt> want = recurrence_stmts(r);
    if (want[0] == ms && want[1] == fs) return r;
  }
  return std::nullopt;
}

bool may_be_neg_inf(const leir::Program& p, const ExprRef& x) {
  auto has_inf = [](const ExprRef& e) {
    bool found = false;
    leir::for_each_expr(e, [&](const ExprRef& n) { found = found || n->kind() == ExprKind::kInf; });
    return found;
  };
  std::set<std::string> tainted;
  auto reads_tainted = [&](const ExprRef& e) {
    bool found = false;
    leir::for_each_expr(e, [&](const ExprRef& n) {
      found = found || (n->kind() == ExprKind::kAccess && tainted.count(n->name()) > 0);
    });
    return found;
  };
  for (bool changed = true; changed;) {
    changed = false;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
      if (tainted.count(s.lhs->name()) == 0 && (has_inf(s.rhs) || reads_tainted(s.rhs))) {
        tainted.insert(s.lhs->name());
        changed = true;
      }
    });
  }
  return has_inf(x) || reads_tainted(x);
}

leir::Program replace_reads(const leir::Program& p, size_t first_block, std::string_view from,
                            const std::function<ExprRef(const std::vector<ExprRef>&)>& make) {
  leir::Program out = p;
  std::vector<leir::Block> tail(p.blocks.begin() + long(first_block), p.blocks.end());
  tail = leir::rewrite_exprs(tail, [&](const ExprRef& n) {
    if (n->kind() != ExprKind::kAccess || n->name() != from) return n;
    return make(n->indices());
  });
  std::copy(tail.begin(), tail.end(), out.blocks.begin() + long(first_block));
  return out;
}

bool used_outside(const leir::Program& p, std::string_view tensor, size_t skip_first,
                  size_t skip_last) {
  bool used = false;
  auto scan = [&](const leir::Stmt& s) {
    leir::for_each_expr(s.lhs, [&](const ExprRef& n) {
      used = used || (n->kind() == ExprKind::kAccess && n->name() == tensor);
    });
    leir::for_each_expr(s.rhs, [&](const ExprRef& n) {
      used = used || (n->kind() == ExprKind::kAccess && n->name() == tensor);
    });
  };
  for_each_stmt_in(p, 0, skip_first, scan);
  for_each_stmt_in(p, skip_last + 1, p.blocks.size(), scan);
  return used;
}

bool written_outside(const leir::Program& p, std::string_view tensor, size_t skip_first,
                     size_t skip_last) {
  bool written = false;
  auto scan = [&](const leir::Stmt& s) { written = written || s.lhs->name() == tensor; };
  for_each_stmt_in(p, 0, skip_first, scan);
  for_each_stmt_in(p, skip_last + 1, p.blocks.size(), scan);
  return written;
}

Outcome<ExprRef> match_normaliser(const leir::Program& p, size_t block, const leir::Block& header,
                                  const ExprRef& want, std::string_view code) {
  const std::string c(code);
  if (block >= p.blocks.size() || !(p.blocks[block].loops == header.loops))
    return infeasible(c + "no_normaliser", "no block {} over the same loops normalises the softmax",
                      block);
  const leir::Stmt* s = single_stmt(p.blocks[block]);
  if (s == nullptr || !leir::equal(s->rhs, want))
    return infeasible(c + "no_normaliser", "block {} does not compute {}", block,
                      leir::print(want));
  std::optional<std::vector<size_t>> red = reduction_loops(header, s->lhs);
  if (!red || !red->empty() || s->lhs->indices().size() != header.loops.size())
    return infeasible(c + "irregular_output", "{} is not indexed by every loop of block {}",
                      leir::print(s->lhs), block);
  if (p.find_decl(s->lhs->name()) != nullptr || written_outside(p, s->lhs->name(), block, block))
    return infeasible(c + "declared_tensor", "{} is declared or written elsewhere", s->lhs->name());
  return s->lhs;
}

Outcome<Matmul> match_pv_matmul(const leir::Program& p, size_t mm, const ExprRef& p_out,
                                const std::string& k, std::string_view code) {
  const std::string c(code);
  if (mm >= p.blocks.size())
    return infeasible(c + "no_matmul", "the normaliser is the last block; no P·V matmul follows");
  const leir::Block& b = p.blocks[mm];
  const leir::Stmt* s = single_stmt(b);
  // 1. R=R+P_{Pi}*V (either operand order), R written here first.
  ExprRef e = s ? summand(*s) : nullptr;
  if (e == nullptr || e->kind() != ExprKind::kBinary || e->binary_op() != BinaryOp::kMul)
    return infeasible(c + "no_matmul", "block {} is not a sum of products R=R+P*V", mm);
  bool p_left = e->lhs()->kind() == ExprKind::kAccess && e->lhs()->name() == p_out->name();
  bool p_right = e->rhs()->kind() == ExprKind::kAccess && e->rhs()->name() == p_out->name();
  if (p_left == p_right)
    return infeasible(c + "no_matmul", "block {} does not multiply {} by another operand", mm,
                      p_out->name());
  const ExprRef& pa = p_left ? e->lhs() : e->rhs();
  const ExprRef& v = p_left ? e->rhs() : e->lhs();
  std::optional<std::vector<size_t>> red = reduction_loops(b, s->lhs);
  if (!red || red->size() != 1)
    return infeasible(c + "matmul_reduction", "block {} does not reduce over exactly one loop", mm);
  const std::string& r = b.loops[(*red)[0]].var;
  // 2. P is read with distinct loop variables, the reduced one at k's position.
  Matmul out{mm, s->lhs, v, (*red)[0], {}};
  const std::vector<ExprRef>& pj = p_out->indices();
  if (pa->indices().size() != pj.size())
    return infeasible(c + "matmul_mismatch", "{} has another rank than {}", leir::print(pa),
                      leir::print(p_out));
  std::vector<std::string> hv = header_vars(b);
  for (size_t i = 0; i < pj.size(); ++i) {
    const ExprRef& q = pa->indices()[i];
    if (q->kind() != ExprKind::kIndexVar || out.to_div.count(q->name()) > 0 ||
        std::find(hv.begin(), hv.end(), q->name()) == hv.end())
      return infeasible(c + "matmul_mismatch", "{} is not indexed by distinct loops",
                        leir::print(pa));
    out.to_div[q->name()] = pj[i]->name();
    if ((pj[i]->name() == k) != (q->name() == r))
      return infeasible(c + "matmul_mismatch",
                        "the matmul reduces {} over '{}', not over the softmax axis '{}'",
                        leir::print(pa), r, k);
  }
  // 3. V and R are other tensors than P, and R starts from 0.
  const std::string& rn = s->lhs->name();
  const leir::TensorDecl* d = p.find_decl(rn);
  if ((d != nullptr && d->role != leir::TensorRole::kOutput) || written_outside(p, rn, mm, mm) ||
      analysis::mentions_tensor(v, p_out->name()) || analysis::mentions_tensor(v, rn))
    return infeasible(c + "continued_accumulation", "{} is written before block {}", rn, mm);
  return out;
}

size_t head_loop_count(const leir::Program& p, const Matmul& mm) {
  size_t n = 0;
  for (const leir::Loop& l : p.blocks[mm.block].loops)
    if (mm.to_div.count(l.var) == 0) ++n;
  return n;
}

leir::Program build_flash(const leir::Program& p, const Recurrence& r, const Matmul& mm,
                          size_t first, size_t last, const std::string& acc_name,
                          std::vector<std::string> head_vars) {
  const leir::Block& mb = p.blocks[mm.block];
  // Matmul variables in the fused block's terms: P's loops map to the header's, the head
  // loops get fresh names; the reverse map turns the header's into the copy-out's.
  std::map<std::string, ExprRef> to_fused, to_copy;
  for (const auto& [m, d] : mm.to_div) {
    to_fused[m] = var(d);
    to_copy[d] = var(m);
  }
  leir::Block nested;
  std::vector<ExprRef> head_fused, head_copy;
  size_t h = 0;
  for (const leir::Loop& l : mb.loops) {
    if (mm.to_div.count(l.var) > 0) continue;
    STEPTP_CHECK(h < head_vars.size(), "build_flash: too few head variables");
    to_fused[l.var] = var(head_vars[h]);
    head_fused.push_back(var(head_vars[h]));
    head_copy.push_back(var(l.var));
    nested.loops.push_back(leir::Loop{leir::LoopKind::kSerial, l.extent, head_vars[h]});
    ++h;
  }
  std::vector<ExprRef> acc_idx = r.max_out->indices();
  acc_idx.insert(acc_idx.end(), head_fused.begin(), head_fused.end());
  const ExprRef& like = mm.out;
  ExprRef acc_k = prefix(acc_name, like, acc_idx, var(reduce_var(r)));
  ExprRef v = substitute(mm.v, to_fused);
  nested.body.push_back(leir::Item::of(leir::Stmt{acc_k, rescaled(r, acc_name, like, acc_idx, v)}));

  leir::Block fused{r.header->loops, {}};
  for (leir::Stmt& s : recurrence_stmts(r)) fused.body.push_back(leir::Item::of(std::move(s)));
  fused.body.push_back(leir::Item::of(std::move(nested)));

  leir::Block copy;
  for (size_t i = 0; i < mb.loops.size(); ++i)
    if (i != mm.reduce) copy.loops.push_back(mb.loops[i]);
  std::vector<ExprRef> row;
  for (const ExprRef& i : r.max_out->indices()) row.push_back(substitute(i, to_copy));
  std::vector<ExprRef> acc_last = row;
  acc_last.insert(acc_last.end(), head_copy.begin(), head_copy.end());
  ExprRef value =
      Expr::binary(BinaryOp::kDiv, prefix(acc_name, like, acc_last, Expr::integer(extent(r) - 1)),
                   last_sum(r, row));
  copy.body.push_back(leir::Item::of(leir::Stmt{mm.out, value}));

  leir::Program out = p;
  out.blocks.erase(out.blocks.begin() + long(first), out.blocks.begin() + long(last) + 1);
  out.blocks.insert(out.blocks.begin() + long(first), {std::move(fused), std::move(copy)});
  return out;
}

}  // namespace steptp::strategy::online
