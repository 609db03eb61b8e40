// verify/inputs.cpp — seeded, domain-aware input tensors for verification.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "leir/visit.h"
#include "verify/verify.h"

namespace steptp::verify {
namespace {

// SplitMix64: tiny, fast, and identical on every platform (std::normal_distribution is not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }  // [0,1)
  double normal() {
    // Box–Muller; u1 in (0,1] so log is finite.
    double u1 = 1.0 - uniform();
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

uint64_t name_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

struct InputDomains {
  std::set<std::string> positive;                    // reach log/sqrt/fractional power
  std::map<std::string, int64_t> index_upper_bound;  // used as a subscript: values < bound
};

void collect_tensors(const leir::ExprRef& e, std::set<std::string>& out) {
  leir::for_each_expr(e, [&](const leir::ExprRef& n) {
    if (n->kind() == leir::ExprKind::kAccess) out.insert(n->name());
  });
}

bool needs_positive_argument(const leir::Expr& e) {
  if (e.kind() == leir::ExprKind::kCall)
    return e.function() == leir::Function::kLog || e.function() == leir::Function::kSqrt;
  if (e.kind() == leir::ExprKind::kBinary && e.binary_op() == leir::BinaryOp::kPow) {
    const leir::Expr& exponent = *e.rhs();
    return !(exponent.kind() == leir::ExprKind::kNumber &&
             exponent.number_value() == std::floor(exponent.number_value()));
  }
  return false;
}

InputDomains analyse_domains(const leir::Program& p) {
  InputDomains d;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
    for (const leir::ExprRef& root : {s.lhs, s.rhs}) {
      leir::for_each_expr(root, [&](const leir::ExprRef& n) {
        if (needs_positive_argument(*n)) {
          // The base/argument is the first child for both calls and powers.
          collect_tensors(n->children()[0], d.positive);
        }
        if (n->kind() != leir::ExprKind::kAccess) return;
        const leir::TensorDecl* indexed = p.find_decl(n->name());
        for (size_t dim = 0; dim < n->indices().size(); ++dim) {
          const leir::ExprRef& idx = n->indices()[dim];
          if (idx->kind() != leir::ExprKind::kAccess) continue;
          // A gather A_{..,C_{..},..}: C's values must stay inside A's dimension.
          int64_t bound = indexed && dim < indexed->shape.size() ? indexed->shape[dim] : 1;
          auto [it, inserted] = d.index_upper_bound.emplace(idx->name(), bound);
          if (!inserted) it->second = std::min(it->second, bound);
        }
      });
    }
  });
  return d;
}

}  // namespace

std::vector<leir::TensorData> make_inputs(const leir::Program& p, uint64_t seed, double scale) {
  InputDomains domains = analyse_domains(p);
  std::vector<leir::TensorData> out;
  for (const leir::TensorDecl& decl : p.decls) {
    if (decl.role == leir::TensorRole::kOutput) continue;
    leir::TensorData t{decl.name, decl.dtype, decl.shape, {}};
    int64_t n = leir::element_count(decl.shape);
    t.values.resize(static_cast<size_t>(n));
    // Each tensor gets its own stream so adding a tensor does not change the others' values.
    Rng rng(seed * 0x100000001b3ULL ^ name_hash(decl.name));
    auto bound_it = domains.index_upper_bound.find(decl.name);
    bool positive = domains.positive.count(decl.name) > 0;
    for (double& v : t.values) {
      if (decl.dtype == leir::DType::kBool) {
        v = rng.uniform() < 0.5 ? 0.0 : 1.0;
      } else if (leir::is_integer(decl.dtype)) {
        int64_t hi = bound_it != domains.index_upper_bound.end()
                         ? std::max<int64_t>(1, bound_it->second)
                         : 8;
        v = static_cast<double>(rng.next() % static_cast<uint64_t>(hi));
      } else if (positive) {
        v = (0.5 + 1.5 * rng.uniform()) * scale;
      } else {
        v = rng.normal() * scale;
      }
      v = leir::round_to_dtype(v, decl.dtype);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace steptp::verify
