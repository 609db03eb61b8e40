// strategy/math/algebra_rewrites.cpp — the algebraic rewrites of algebra.h: GiNaC's factor,
// expand, normal and collect where they fit, our own rules for together/apart, powsimp and its
// inverse, and log split/combine, each guarded by the domain conditions that keep it sound.
#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "strategy/math/algebra.h"
#include "strategy/math/opaque_functions.h"

namespace steptp::strategy::math {

using namespace GiNaC;  // is_ex_the_function names exp_SERIAL etc. unqualified
using GiNaC::ex;
using GiNaC::numeric;

namespace {

bool is_num(const ex& e) { return GiNaC::is_a<numeric>(e); }
numeric num(const ex& e) { return GiNaC::ex_to<numeric>(e); }

// Runs a rewrite; nullopt when GiNaC throws or nothing changed.
std::optional<ex> changed(const ex& before, const std::function<ex()>& rewrite) {
  try {
    ex after = rewrite();
    if (after.is_equal(before)) return std::nullopt;
    return after;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Applies `fn` bottom-up to every node.
ex map_bottom_up(const ex& e, const std::function<ex(const ex&)>& fn);

struct BottomUp : GiNaC::map_function {
  const std::function<ex(const ex&)>& fn;
  explicit BottomUp(const std::function<ex(const ex&)>& f) : fn(f) {}
  ex operator()(const ex& x) override { return map_bottom_up(x, fn); }
};

ex map_bottom_up(const ex& e, const std::function<ex(const ex&)>& fn) {
  if (e.nops() == 0) return fn(e);
  BottomUp recurse(fn);
  return fn(e.map(recurse));
}

// A text of e that does not depend on GiNaC's term order (which follows hash values that vary
// from run to run): sums and products list their operands' keys sorted. Rewrites that pick one
// of several operands pick the one with the smallest key, so they pick the same every run.
std::string canonical_key(const ex& e) {
  auto joined = [&](std::string head) {
    std::vector<std::string> keys;
    for (size_t i = 0; i < e.nops(); ++i) keys.push_back(canonical_key(e.op(i)));
    if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e))
      std::sort(keys.begin(), keys.end());
    head += "(";
    for (const std::string& k : keys) head += k + ",";
    return head + ")";
  };
  if (GiNaC::is_a<GiNaC::symbol>(e)) return GiNaC::ex_to<GiNaC::symbol>(e).get_name();
  if (GiNaC::is_a<numeric>(e)) {
    std::ostringstream text;
    text << e;
    return text.str();
  }
  if (GiNaC::is_a<GiNaC::add>(e)) return joined("+");
  if (GiNaC::is_a<GiNaC::mul>(e)) return joined("*");
  if (GiNaC::is_a<GiNaC::power>(e)) return joined("^");
  if (GiNaC::is_a<GiNaC::function>(e)) return joined(GiNaC::ex_to<GiNaC::function>(e).get_name());
  std::ostringstream text;
  text << e;
  return text.str();
}

// The sum factor of a product with the smallest canonical key, or nullopt.
std::optional<ex> first_sum_factor(const std::vector<ex>& factors) {
  std::optional<ex> best;
  std::string best_key;
  for (const ex& f : factors) {
    if (!GiNaC::is_a<GiNaC::add>(f)) continue;
    std::string key = canonical_key(f);
    if (!best || key < best_key) {
      best = f;
      best_key = std::move(key);
    }
  }
  return best;
}

// The product of `factors` without one occurrence of `skip`.
ex product_without(const std::vector<ex>& factors, const ex& skip) {
  ex rest = 1;
  bool skipped = false;
  for (const ex& f : factors) {
    if (!skipped && f.is_equal(skip)) {
      skipped = true;
      continue;
    }
    rest *= f;
  }
  return rest;
}

// The factors of a product (a non-product is its own single factor).
std::vector<ex> factors_of(const ex& e) {
  std::vector<ex> out;
  if (GiNaC::is_a<GiNaC::mul>(e))
    for (size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
  else
    out.push_back(e);
  return out;
}

std::vector<ex> terms_of(const ex& e) {
  std::vector<ex> out;
  if (GiNaC::is_a<GiNaC::add>(e))
    for (size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
  else
    out.push_back(e);
  return out;
}

// Numerator and denominator of a term without multiplying anything out.
std::pair<ex, ex> split_fraction(const ex& term) {
  ex top = 1, bottom = 1;
  for (const ex& f : factors_of(term)) {
    if (GiNaC::is_a<GiNaC::power>(f) && is_num(f.op(1)) && num(f.op(1)).is_negative())
      bottom *= GiNaC::pow(f.op(0), -f.op(1));
    else
      top *= f;
  }
  return {top, bottom};
}

bool nonnegative(const ex& e);

bool positive_rec(const ex& e) {
  if (is_num(e)) return num(e).is_rational() && num(e).is_positive();
  if (is_ex_the_function(e, exp)) return true;
  if (is_ex_the_function(e, leir_max)) return positive_rec(e.op(0)) || positive_rec(e.op(1));
  if (GiNaC::is_a<GiNaC::add>(e)) {
    bool one_positive = false;
    for (const ex& t : terms_of(e)) {
      if (!nonnegative(t)) return false;
      one_positive = one_positive || positive_rec(t);
    }
    return one_positive;
  }
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    for (const ex& f : factors_of(e))
      if (!positive_rec(f)) return false;
    return true;
  }
  if (GiNaC::is_a<GiNaC::power>(e)) return positive_rec(e.op(0));
  return false;
}

bool nonnegative(const ex& e) {
  if (positive_rec(e)) return true;
  if (is_num(e)) return num(e).is_rational() && !num(e).is_negative();
  if (is_ex_the_function(e, leir_abs)) return true;
  if (GiNaC::is_a<GiNaC::power>(e) && is_num(e.op(1))) {
    numeric k = num(e.op(1));
    if (k.is_even()) return true;
    if (k.is_rational() && k.denom().is_even()) return true;  // a root: ≥ 0 where defined
    return nonnegative(e.op(0));
  }
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!nonnegative(e.op(i))) return false;
    return true;
  }
  return false;
}

bool contains(const ex& e, const std::function<bool(const ex&)>& pred) {
  if (pred(e)) return true;
  for (size_t i = 0; i < e.nops(); ++i)
    if (contains(e.op(i), pred)) return true;
  return false;
}

// Hides every non-polynomial part (function calls, fractional or symbolic powers) behind pool
// symbols so that GiNaC's polynomial algorithms never invent symbols of their own (whose serial
// numbers, and so whose term order, would change from run to run). exp(k*x) with integer k
// becomes t**k with t standing for exp(x), so exp(x) and exp(-x) stay related.
struct Atomizer {
  GiNaC::exmap back;
  std::vector<std::pair<ex, ex>> known;  // hidden expression → symbol
  size_t next = kAtomSymbols;

  ex symbol_for(const ex& hidden) {
    for (const auto& [h, s] : known)
      if (h.is_equal(hidden)) return s;
    if (next >= kPoolSymbols) throw std::length_error("too many hidden parts");
    ex s = pool_symbol(next++);
    known.emplace_back(hidden, s);
    back[s] = hidden;
    return s;
  }

  ex hide(const ex& e) {
    if (GiNaC::is_a<GiNaC::symbol>(e) || is_num(e)) return e;
    if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
      ex out = GiNaC::is_a<GiNaC::add>(e) ? ex(0) : ex(1);
      for (size_t i = 0; i < e.nops(); ++i)
        out = GiNaC::is_a<GiNaC::add>(e) ? out + hide(e.op(i)) : out * hide(e.op(i));
      return out;
    }
    if (GiNaC::is_a<GiNaC::power>(e) && is_num(e.op(1)) && num(e.op(1)).is_integer())
      return GiNaC::pow(hide(e.op(0)), e.op(1));
    if (is_ex_the_function(e, exp)) {
      const ex& arg = e.op(0);
      if (GiNaC::is_a<GiNaC::mul>(arg) && is_num(arg.op(arg.nops() - 1))) {
        numeric k = num(arg.op(arg.nops() - 1));
        if (k.is_integer()) return GiNaC::pow(symbol_for(GiNaC::exp(arg / k)), k);
      }
    }
    return symbol_for(e);
  }
};

std::optional<ex> via_atoms(const ex& e, const std::function<ex(const ex&)>& polynomial_rewrite) {
  return changed(e, [&] {
    Atomizer atoms;
    ex hidden = atoms.hide(e);
    return polynomial_rewrite(hidden).subs(atoms.back);
  });
}

}  // namespace

bool provably_positive(const ex& e) { return positive_rec(e); }

bool has_log(const ex& e) {
  return contains(e, [](const ex& x) { return is_ex_the_function(x, log); });
}
bool has_exp(const ex& e) {
  return contains(e, [](const ex& x) { return is_ex_the_function(x, exp); });
}
bool has_fraction(const ex& e) {
  return contains(e, [](const ex& x) {
    return GiNaC::is_a<GiNaC::power>(x) && is_num(x.op(1)) && num(x.op(1)).is_negative();
  });
}

namespace {

// factor()'s irreducible factors multiplied out. GiNaC returns one in whatever form its main
// variable left it (-2*(A*E-C*E)*D+2*F, 2*F-2*E*(C*D-A*D) or expanded), and which variable comes
// first follows GiNaC's hash order, which is not stable across processes or across what the
// process computed before. Kept, that form made one catalog unit's records differ between builds
// with the same seed (by --jobs, by shard layout, run to run).
ex multiplied_out_factors(const ex& product) {
  if (GiNaC::is_a<GiNaC::mul>(product)) {
    ex out = 1;
    for (const ex& f : product) out *= multiplied_out_factors(f);
    return out;
  }
  if (GiNaC::is_a<GiNaC::power>(product)) return GiNaC::pow(product.op(0).expand(), product.op(1));
  return product.expand();
}

}  // namespace

std::optional<ex> factor_expr(const ex& e) {
  return via_atoms(e, [](const ex& x) {
    ex nd = GiNaC::numer_denom(x.normal());
    return multiplied_out_factors(GiNaC::factor(nd.op(0))) /
           multiplied_out_factors(GiNaC::factor(nd.op(1)));
  });
}

std::optional<ex> expand_expr(const ex& e) {
  return changed(e, [&] { return e.expand(); });
}

std::optional<ex> cancel_expr(const ex& e) {
  return via_atoms(e, [](const ex& x) { return x.normal(); });
}

std::optional<ex> together_expr(const ex& e) {
  return changed(e, [&] {
    return map_bottom_up(e, [](const ex& x) -> ex {
      if (!GiNaC::is_a<GiNaC::add>(x)) return x;
      std::vector<std::pair<ex, ex>> parts;
      std::vector<ex> dens;  // distinct denominators
      for (const ex& t : terms_of(x)) {
        parts.push_back(split_fraction(t));
        const ex& d = parts.back().second;
        bool seen = false;
        for (const ex& known : dens) seen = seen || known.is_equal(d);
        if (!seen && !d.is_equal(1)) dens.push_back(d);
      }
      if (dens.empty()) return x;
      ex common = 1;
      for (const ex& d : dens) common *= d;
      ex top = 0;
      for (const auto& [n, d] : parts) {
        ex others = 1;
        for (const ex& k : dens)
          if (!k.is_equal(d)) others *= k;
        top += n * others;
      }
      return top / common;
    });
  });
}

std::optional<ex> apart_expr(const ex& e) {
  return changed(e, [&] {
    ex out = 0;
    for (const ex& t : terms_of(e)) {
      auto [top, bottom] = split_fraction(t);
      const std::vector<ex> factors = factors_of(top);
      std::optional<ex> sum = first_sum_factor(factors);
      if (!sum || bottom.is_equal(1)) {
        out += t;
        continue;
      }
      const ex rest = product_without(factors, *sum);
      for (const ex& s : terms_of(*sum)) out += s * rest / bottom;
    }
    return out;
  });
}

std::optional<ex> collect_expr(const ex& e, const GiNaC::symbol& s) {
  return changed(e, [&] {
    ex c = GiNaC::collect(e, s);
    // GiNaC also collects a lone term; only a real gathering (a sum as a coefficient) counts.
    bool gathered = false;
    for (const ex& t : terms_of(c))
      for (const ex& f : factors_of(t)) gathered = gathered || GiNaC::is_a<GiNaC::add>(f);
    return gathered ? c : e;
  });
}

std::optional<ex> distribute_expr(const ex& e) {
  return changed(e, [&] {
    ex out = 0;
    for (const ex& t : terms_of(e)) {
      const std::vector<ex> factors = factors_of(t);
      std::optional<ex> sum = first_sum_factor(factors);
      if (!sum) {
        out += t;
        continue;
      }
      const ex rest = product_without(factors, *sum);
      for (const ex& s : terms_of(*sum)) out += s * rest;
    }
    return out;
  });
}

std::optional<ex> powsimp_expr(const ex& e) {
  return changed(e, [&] {
    return map_bottom_up(e, [](const ex& x) -> ex {
      // exp(n*log(y)) → y**n for an integer n: the same value wherever log(y) is defined
      // (y > 0; at y = 0 both are 0 for n > 0 and infinity for n < 0).
      if (is_ex_the_function(x, exp) && GiNaC::is_a<GiNaC::mul>(x.op(0)) && x.op(0).nops() == 2 &&
          is_num(x.op(0).op(1)) && num(x.op(0).op(1)).is_integer() &&
          is_ex_the_function(x.op(0).op(0), log))
        return GiNaC::pow(x.op(0).op(0).op(0), x.op(0).op(1));
      if (!GiNaC::is_a<GiNaC::mul>(x)) return x;
      ex exp_arg = 0, others = 1;
      int exp_count = 0;
      std::vector<std::pair<ex, ex>> bases;  // base → summed symbolic exponent
      for (const ex& f : factors_of(x)) {
        if (is_ex_the_function(f, exp)) {
          exp_arg += f.op(0);
          ++exp_count;
        } else if (GiNaC::is_a<GiNaC::power>(f) && !is_num(f.op(1)) && provably_positive(f.op(0))) {
          bool merged = false;
          for (auto& [b, k] : bases)
            if (b.is_equal(f.op(0))) {
              k += f.op(1);
              merged = true;
            }
          if (!merged) bases.emplace_back(f.op(0), f.op(1));
        } else {
          others *= f;
        }
      }
      if (exp_count < 2) {
        if (exp_count == 1) others *= GiNaC::exp(exp_arg);
      } else {
        others *= GiNaC::exp(exp_arg);
      }
      for (const auto& [b, k] : bases) others *= GiNaC::pow(b, k);
      return others;
    });
  });
}

std::optional<ex> expand_powsimp_expr(const ex& e) {
  return changed(e, [&] {
    return map_bottom_up(e, [](const ex& x) -> ex {
      if (is_ex_the_function(x, exp) && GiNaC::is_a<GiNaC::add>(x.op(0))) {
        ex out = 1;
        for (const ex& t : terms_of(x.op(0))) out *= GiNaC::exp(t);
        return out;
      }
      if (GiNaC::is_a<GiNaC::power>(x) && GiNaC::is_a<GiNaC::add>(x.op(1)) &&
          provably_positive(x.op(0))) {
        ex out = 1;
        for (const ex& t : terms_of(x.op(1))) out *= GiNaC::pow(x.op(0), t);
        return out;
      }
      return x;
    });
  });
}

std::optional<ex> expand_log_expr(const ex& e) {
  bool refused = false;
  auto r = changed(e, [&] {
    return map_bottom_up(e, [&](const ex& x) -> ex {
      if (!is_ex_the_function(x, log)) return x;
      const ex& arg = x.op(0);
      if (is_ex_the_function(arg, exp)) return arg.op(0);  // real arguments only
      if (!GiNaC::is_a<GiNaC::mul>(arg) && !GiNaC::is_a<GiNaC::power>(arg)) return x;
      ex out = 0;
      for (const ex& f : factors_of(arg)) {
        ex base = f, k = 1;
        if (GiNaC::is_a<GiNaC::power>(f)) {
          base = f.op(0);
          k = f.op(1);
        }
        if (!provably_positive(base)) {
          refused = true;
          return x;
        }
        out += k * (is_ex_the_function(base, exp) ? base.op(0) : GiNaC::log(base));
      }
      return out;
    });
  });
  if (refused) return std::nullopt;
  return r;
}

std::optional<ex> logsimp_expr(const ex& e) {
  return changed(e, [&] {
    return map_bottom_up(e, [](const ex& x) -> ex {
      if (!GiNaC::is_a<GiNaC::add>(x)) return x;
      ex inside = 1, rest = 0;
      int logs = 0;
      for (const ex& t : terms_of(x)) {
        ex coeff = 1, arg;
        bool is_log = false;
        if (is_ex_the_function(t, log)) {
          arg = t.op(0);
          is_log = true;
        } else if (GiNaC::is_a<GiNaC::mul>(t) && t.nops() == 2 && is_num(t.op(1)) &&
                   num(t.op(1)).is_integer() && is_ex_the_function(t.op(0), log)) {
          arg = t.op(0).op(0);
          coeff = t.op(1);
          is_log = true;
        }
        if (is_log) {
          inside *= GiNaC::pow(arg, coeff);
          ++logs;
        } else {
          rest += t;
        }
      }
      if (logs < 2) return x;
      return rest + GiNaC::log(inside);
    });
  });
}

}  // namespace steptp::strategy::math
