// strategy/math/online_patterns.h — recognising the softmax/attention chains the importer emits
// (max block, sum-of-exp block, normalising block, P·V matmul) and building their online
// (prefix-recurrence) forms, shared by the online strategies #40–#43.
//
// Matching is structural (AST equality, never text). Builders are pure and emit well-formed,
// explicitly nested blocks; they do not decide legality beyond what the match established.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "strategy/strategy.h"

namespace steptp::strategy::online {

// A max reduction block `O=max(O,X)` immediately followed by `S=S+exp(X-O)` over the same loops,
// both reducing over one serial loop k, O and S written nowhere else.
struct SoftmaxPair {
  size_t max_block = 0;   // top-level index; the sum block is max_block+1
  leir::ExprRef max_out;  // O_{I}
  leir::ExprRef sum_out;  // S_{I}
  leir::ExprRef x;        // X (the reduced expression, in the header's variables)
  size_t reduce = 0;      // position of k in the header
};

// `code` prefixes the Infeasible codes ("online_softmax." ...).
Outcome<SoftmaxPair> match_softmax_pair(const leir::Program& p, size_t block,
                                        std::string_view code);

// The names and guard of one online recurrence over a pair's header.
struct Recurrence {
  const leir::Block* header = nullptr;  // the loops (the max block's)
  size_t reduce = 0;
  leir::ExprRef max_out, sum_out, x;  // O_{I} and S_{I} give indices, dtypes and scopes
  std::string max_name, sum_name;     // the prefix tensors m and F
  bool guard_neg_inf = false;         // X may be -inf: keep m=-inf prefixes at F=0
};

// The recurrence replacing a pair, with prefix tensors named m and f; guarded when X may be -inf.
Recurrence make_recurrence(const leir::Program& p, const SoftmaxPair& pair, std::string m,
                           std::string f);

// m_{I,k}=max(if_then_else(k-1<0,-inf,m_{I,k-1}),X) and
// F_{I,k}=if_then_else(k-1<0,0,F_{I,k-1}*exp(m_{I,k-1}-m_{I,k}))+exp(X-m_{I,k}) (guarded by
// if_then_else(m_{I,k}==-inf,0,...) when X may be -inf).
std::vector<leir::Stmt> recurrence_stmts(const Recurrence& r);
// m_{idx,n-1} / F_{idx,n-1}: the reduced values, for an access O_{idx} / S_{idx}.
leir::ExprRef last_max(const Recurrence& r, const std::vector<leir::ExprRef>& idx);
leir::ExprRef last_sum(const Recurrence& r, const std::vector<leir::ExprRef>& idx);
int64_t extent(const Recurrence& r);
const std::string& reduce_var(const Recurrence& r);

// A top-level block holding exactly the two recurrence statements that recurrence_stmts builds
// (either guard variant): what online_softmax produced.
std::optional<Recurrence> match_recurrence_block(const leir::Program& p, size_t block);

// Whether X can evaluate to -inf: it holds an inf literal or reads a tensor whose writers do
// (transitively). Over-approximates; inputs are taken as finite.
bool may_be_neg_inf(const leir::Program& p, const leir::ExprRef& x);

// The program with every access to tensor `from` replaced by `make(indices)`.
leir::Program replace_reads(
    const leir::Program& p, size_t first_block, std::string_view from,
    const std::function<leir::ExprRef(const std::vector<leir::ExprRef>&)>& make);

// Statements (other than those in blocks [skip_first, skip_last]) that read or write `tensor`.
bool used_outside(const leir::Program& p, std::string_view tensor, size_t skip_first,
                  size_t skip_last);
// Whether any statement of the program writes `tensor`, except in blocks [skip_first, skip_last].
bool written_outside(const leir::Program& p, std::string_view tensor, size_t skip_first,
                     size_t skip_last);

// The softmax normaliser P_J=want (J = all header variables, distinct) in block `block`, over the
// same loops as `header`, P an intermediate written only there: P_J, or an Infeasible.
Outcome<leir::ExprRef> match_normaliser(const leir::Program& p, size_t block,
                                        const leir::Block& header, const leir::ExprRef& want,
                                        std::string_view code);

// P·V after a normaliser: `P_J=exp(X-…)/…` in block `div`, then `R=R+P_{Pi}*V` in block div+1.
struct Matmul {
  size_t block = 0;
  leir::ExprRef out;                          // R_{Ro}
  leir::ExprRef v;                            // V (in the matmul's variables)
  size_t reduce = 0;                          // position of the matmul's reduction loop r
  std::map<std::string, std::string> to_div;  // matmul var of Pi → the div/max header var
};
// Matches the matmul at block `mm` reading the normaliser output `p_out` (P_J, J = the
// header's variables in some order, k = the reduced one).
Outcome<Matmul> match_pv_matmul(const leir::Program& p, size_t mm, const leir::ExprRef& p_out,
                                const std::string& k, std::string_view code);

// The fused block (recurrences + nested head-dim accumulator) and the copy-out block
// R_{Ro}=Acc_{I,h..,n-1}/F_{I,n-1} that replace blocks [first, last].
leir::Program build_flash(const leir::Program& p, const Recurrence& r, const Matmul& mm,
                          size_t first, size_t last, const std::string& acc_name,
                          std::vector<std::string> head_vars);

// The number of head loops (matmul loops that index neither P nor the reduction).
size_t head_loop_count(const leir::Program& p, const Matmul& mm);

}  // namespace steptp::strategy::online
