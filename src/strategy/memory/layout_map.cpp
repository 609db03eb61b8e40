// strategy/memory/layout_map.cpp — permute / flatten / split layout maps (see layout_map.h).
#include "strategy/memory/layout_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "leir/interval.h"

namespace steptp::strategy::memory {

using leir::BinaryOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

namespace {

std::optional<int64_t> constant_of(const ExprRef& e) {
  if (e->kind() == ExprKind::kNumber && e->is_integer_literal())
    return static_cast<int64_t>(e->number_value());
  if (e->kind() == ExprKind::kNeg) {
    std::optional<int64_t> v = constant_of(e->operand());
    if (v) return -*v;
  }
  return std::nullopt;
}

// The proper divisors of n (1 < f < n) the sites propose: the smallest, and the largest one not
// above sqrt(n) (the squarest split), without duplicates.
std::vector<int64_t> proposed_factors(int64_t n) {
  std::vector<int64_t> small;
  for (int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0) small.push_back(f);
  if (small.empty()) return {};
  if (small.front() == small.back()) return {small.front()};
  return {small.front(), small.back()};
}

std::string dims_text(const std::vector<int64_t>& d) {
  return fmt::format("[{}]", fmt::join(d, ","));
}

}  // namespace

Outcome<LayoutMap> layout_from_site(const Site& s, const std::vector<int64_t>& dims,
                                    std::string_view strategy) {
  const std::string code = std::string(strategy) + ".bad_layout";
  Outcome<std::string> kind = s.name("layout");
  STEPTP_TRY(kind);
  LayoutMap m;
  m.dims = dims;
  const size_t rank = dims.size();
  if (*kind == "permute") {
    m.kind = LayoutKind::kPermute;
    Outcome<std::vector<int64_t>> perm = s.integers("perm");
    STEPTP_TRY(perm);
    std::vector<int64_t> sorted = *perm;
    std::sort(sorted.begin(), sorted.end());
    bool is_perm = sorted.size() == rank;
    for (size_t i = 0; is_perm && i < rank; ++i) is_perm = sorted[i] == static_cast<int64_t>(i);
    if (!is_perm)
      return infeasible(code, "perm={} is not a permutation of the {} dimensions {}",
                        fmt::join(*perm, ","), rank, dims_text(dims));
    if (std::is_sorted(perm->begin(), perm->end()))
      return infeasible(code, "perm={} is the identity, so the layout would not change",
                        fmt::join(*perm, ","));
    m.perm = *perm;
    return m;
  }
  if (*kind == "flatten") {
    m.kind = LayoutKind::kFlatten;
    if (rank < 2)
      return infeasible(code, "a flatten needs at least 2 dimensions, the tensor has {} {}", rank,
                        dims_text(dims));
    return m;
  }
  if (*kind == "split") {
    m.kind = LayoutKind::kSplit;
    Outcome<int64_t> dim = s.integer("dim");
    STEPTP_TRY(dim);
    Outcome<int64_t> factor = s.integer("factor");
    STEPTP_TRY(factor);
    if (*dim < 0 || *dim >= static_cast<int64_t>(rank))
      return infeasible(code, "dim={} does not name one of the {} dimensions {}", *dim, rank,
                        dims_text(dims));
    int64_t n = dims[static_cast<size_t>(*dim)];
    if (*factor <= 1 || *factor >= n || n % *factor != 0)
      return infeasible(code, "factor {} is not a proper divisor of dimension {} (extent {})",
                        *factor, *dim, n);
    m.dim = *dim;
    m.factor = *factor;
    return m;
  }
  return infeasible(code, "layout '{}' is none of permute, flatten, split", *kind);
}

void add_layout_params(Site& s, const LayoutMap& m) {
  switch (m.kind) {
    case LayoutKind::kPermute:
      s.set("layout", "permute").set_ints("perm", m.perm);
      return;
    case LayoutKind::kFlatten:
      s.set("layout", "flatten");
      return;
    case LayoutKind::kSplit:
      s.set("layout", "split").set_int("dim", m.dim).set_int("factor", m.factor);
      return;
  }
}

std::vector<LayoutMap> candidate_layouts(const std::vector<int64_t>& dims) {
  std::vector<LayoutMap> out;
  const size_t rank = dims.size();
  for (size_t i = 0; i < rank; ++i) {
    for (size_t j = i + 1; j < rank; ++j) {
      LayoutMap m{LayoutKind::kPermute, dims, {}, 0, 0};
      for (size_t k = 0; k < rank; ++k) m.perm.push_back(static_cast<int64_t>(k));
      std::swap(m.perm[i], m.perm[j]);
      out.push_back(std::move(m));
    }
  }
  if (rank >= 2) out.push_back(LayoutMap{LayoutKind::kFlatten, dims, {}, 0, 0});
  for (size_t d = 0; d < rank; ++d)
    for (int64_t f : proposed_factors(dims[d]))
      out.push_back(LayoutMap{LayoutKind::kSplit, dims, {}, static_cast<int64_t>(d), f});
  return out;
}

std::vector<ExprRef> map_indices(const LayoutMap& m, const std::vector<ExprRef>& idx) {
  STEPTP_CHECK(idx.size() == m.dims.size(), "map_indices: rank mismatch");
  switch (m.kind) {
    case LayoutKind::kPermute: {
      std::vector<ExprRef> out;
      for (int64_t k : m.perm) out.push_back(idx[static_cast<size_t>(k)]);
      return out;
    }
    case LayoutKind::kFlatten: {
      // Σ idx[i]*stride[i], row-major; constant terms are folded into one trailing constant.
      int64_t stride = 1;
      std::vector<int64_t> strides(idx.size());
      for (size_t i = idx.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= m.dims[i];
      }
      ExprRef sum;
      int64_t constant = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        if (std::optional<int64_t> c = constant_of(idx[i])) {
          constant += *c * strides[i];
          continue;
        }
        ExprRef term = strides[i] == 1
                           ? idx[i]
                           : Expr::binary(BinaryOp::kMul, idx[i], Expr::integer(strides[i]));
        sum = sum ? Expr::binary(BinaryOp::kAdd, sum, term) : term;
      }
      if (!sum) return {Expr::integer(constant)};
      if (constant > 0) sum = Expr::binary(BinaryOp::kAdd, sum, Expr::integer(constant));
      if (constant < 0) sum = Expr::binary(BinaryOp::kSub, sum, Expr::integer(-constant));
      return {sum};
    }
    case LayoutKind::kSplit: {
      std::vector<ExprRef> out;
      for (size_t i = 0; i < idx.size(); ++i) {
        if (static_cast<int64_t>(i) != m.dim) {
          out.push_back(idx[i]);
          continue;
        }
        if (std::optional<int64_t> c = constant_of(idx[i])) {
          out.push_back(Expr::integer(leir::floor_div(*c, m.factor)));
          out.push_back(Expr::integer(leir::floor_mod(*c, m.factor)));
          continue;
        }
        out.push_back(Expr::binary(BinaryOp::kFloorDiv, idx[i], Expr::integer(m.factor)));
        out.push_back(Expr::binary(BinaryOp::kMod, idx[i], Expr::integer(m.factor)));
      }
      return out;
    }
  }
  return idx;
}

std::vector<int64_t> mapped_shape(const LayoutMap& m) {
  switch (m.kind) {
    case LayoutKind::kPermute: {
      std::vector<int64_t> out;
      for (int64_t k : m.perm) out.push_back(m.dims[static_cast<size_t>(k)]);
      return out;
    }
    case LayoutKind::kFlatten:
      return {leir::element_count(m.dims)};
    case LayoutKind::kSplit: {
      std::vector<int64_t> out;
      for (size_t i = 0; i < m.dims.size(); ++i) {
        if (static_cast<int64_t>(i) != m.dim) {
          out.push_back(m.dims[i]);
        } else {
          out.push_back(m.dims[i] / m.factor);
          out.push_back(m.factor);
        }
      }
      return out;
    }
  }
  return m.dims;
}

std::string describe(const LayoutMap& m) {
  switch (m.kind) {
    case LayoutKind::kPermute:
      return fmt::format("a transpose of {} to dimension order ({}), giving {}", dims_text(m.dims),
                         fmt::join(m.perm, ","), dims_text(mapped_shape(m)));
    case LayoutKind::kFlatten:
      return fmt::format("a row-major flatten of {} into one dimension of {}", dims_text(m.dims),
                         leir::element_count(m.dims));
    case LayoutKind::kSplit:
      return fmt::format("a split of dimension {} (extent {}) into {} x {}, giving {}", m.dim,
                         m.dims[static_cast<size_t>(m.dim)],
                         m.dims[static_cast<size_t>(m.dim)] / m.factor, m.factor,
                         dims_text(mapped_shape(m)));
  }
  return "";
}

}  // namespace steptp::strategy::memory
