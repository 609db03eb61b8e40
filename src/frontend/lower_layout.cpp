// frontend/lower_layout.cpp — view/reshape/flatten, permute/transpose/T, unsqueeze/squeeze,
// expand, getitem/select/slicing, narrow, cat, split/chunk, flip, contiguous: each a copy nest
// whose read index is the exact inverse of the layout change, so the result is provably the same.
//
//   transpose(A[4,8],0,1) → B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=A_{a,tx};];
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

// Row-major linear index of `vars` over `shape`, as LEIR index arithmetic.
std::string linear_index(const std::vector<int64_t>& shape, const std::vector<std::string>& vars) {
  std::string e;
  int64_t stride = 1;
  std::vector<std::string> terms;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    if (shape[i] != 1)
      terms.push_back(stride == 1 ? vars[i] : vars[i] + "*" + std::to_string(stride));
    stride *= shape[i];
  }
  if (terms.empty()) return "0";
  for (int i = static_cast<int>(terms.size()) - 1; i >= 0; --i)
    e += (e.empty() ? "" : "+") + terms[i];
  return e;
}

// The index into `shape` of linear position `lin` (an expression).
std::vector<std::string> delinearize(const std::vector<int64_t>& shape, const std::string& lin) {
  std::vector<std::string> idx(shape.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    std::string q = stride == 1 ? lin : Lowering::p(lin) + "//" + std::to_string(stride);
    idx[i] = shape[i] == 1 ? "0" : (i == 0 ? q : Lowering::p(q) + "%" + std::to_string(shape[i]));
    stride *= shape[i];
  }
  return idx;
}

int64_t element_count(const std::vector<int64_t>& s) { return leir::element_count(s); }

Result<Value> reshape_like(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  const Tensor X = *x;
  if (element_count(X.shape) != element_count(n.type.shape))
    return L.error_unsupported("reshape changes the element count");
  if (X.shape == n.type.shape) return Value::of(X);
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    return Lowering::access(X, delinearize(X.shape, linear_index(out.shape, nn.s)));
  });
  return Value::of(out);
}

Result<Value> permute_by(Lowering& L, const GraphNode& n, const Tensor& X,
                         const std::vector<int>& perm) {
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> idx(X.shape.size());
    for (size_t i = 0; i < perm.size(); ++i) idx[perm[i]] = nn.s[i];
    return Lowering::access(X, idx);
  });
  return Value::of(out);
}

int norm_dim(int64_t d, int rank) { return static_cast<int>(d < 0 ? d + rank : d); }

Result<Value> lower_transpose(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto a = L.int_arg(n, 1, "dim0", 0);
  auto b = L.int_arg(n, 2, "dim1", 1);
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  std::vector<int> perm(x->rank());
  for (int i = 0; i < x->rank(); ++i) perm[i] = i;
  std::swap(perm[norm_dim(*a, x->rank())], perm[norm_dim(*b, x->rank())]);
  return permute_by(L, n, *x, perm);
}

Result<Value> lower_T(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  std::vector<int> perm(x->rank());
  for (int i = 0; i < x->rank(); ++i) perm[i] = x->rank() - 1 - i;
  return permute_by(L, n, *x, perm);
}

Result<Value> lower_permute(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  std::vector<int64_t> dims;
  if (n.args.size() == 2 && n.args[1].is_array()) {
    auto d = L.ints_arg(n, 1, "dims");
    if (!d.ok()) return d.error();
    dims = *d;
  } else {
    for (size_t i = 1; i < n.args.size(); ++i) {
      auto d = L.int_arg(n, i, nullptr, 0);
      if (!d.ok()) return d.error();
      dims.push_back(*d);
    }
  }
  std::vector<int> perm;
  for (int64_t d : dims) perm.push_back(norm_dim(d, x->rank()));
  return permute_by(L, n, *x, perm);
}

// Broadcast copy: output dims right-aligned against the input (expand / expand_as).
Result<Value> lower_expand(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  return map_values(L, {Value::of(*x)}, [](const std::vector<std::string>& t) { return t[0]; });
}

Result<Value> alias(Lowering& L, const GraphNode& n) {
  auto x = L.arg(n, 0, "input");
  if (!x.ok()) return x.error();
  return *x;
}

// Item i (negative: from the end) of an op's tuple result, lowered now if it was deferred (the
// indices of max/min); an item the lowering could not produce (an "unsupported:<why>" marker) is
// an unsupported error.
Result<Value> tuple_item(Lowering& L, const Value& tuple, int64_t i) {
  if (i < 0) i += static_cast<int64_t>(tuple.items.size());
  if (i < 0 || i >= static_cast<int64_t>(tuple.items.size()))
    return L.error_unsupported("tuple index out of range");
  const Value& v = tuple.items[i];
  if (v.deferred) return v.deferred(L);
  if (v.kind == Value::Kind::kString && v.str.rfind("unsupported:", 0) == 0)
    return L.error_unsupported(v.str.substr(12));
  return v;
}

// x[idx]: ints, slices (any step), None and ellipsis, one per dim.
Result<Value> lower_getitem(Lowering& L, const GraphNode& n) {
  auto x = L.arg(n, 0, nullptr);
  auto k = L.arg(n, 1, nullptr);
  if (!x.ok()) return x.error();
  if (!k.ok()) return k.error();
  if (x->kind == Value::Kind::kTuple && x->str.empty()) {
    if (!k->is_number()) return L.error_unsupported("tuple index is not an integer");
    return tuple_item(L, *x, static_cast<int64_t>(k->number));
  }
  if (x->kind == Value::Kind::kInts) {
    if (!k->is_number()) return L.error_unsupported("slicing a size");
    int64_t i = static_cast<int64_t>(k->number);
    if (i < 0) i += static_cast<int64_t>(x->ints.size());
    return Value::num(static_cast<double>(x->ints.at(i)), true);
  }
  if (!x->is_tensor()) return L.error_unsupported("indexing a non-tensor");
  const Tensor X = x->tensor;
  std::vector<Value> items;
  if (k->kind == Value::Kind::kTuple && k->str.empty())
    items = k->items;
  else if (k->kind == Value::Kind::kInts) {
    for (int64_t i : k->ints) items.push_back(Value::num(static_cast<double>(i), true));
  } else
    items.push_back(*k);
  // Expand an ellipsis to full slices.
  int consumed = 0;
  for (const Value& v : items)
    if (!(v.kind == Value::Kind::kNone) && !(v.kind == Value::Kind::kString && v.str == "..."))
      ++consumed;
  std::vector<Value> full;
  for (const Value& v : items) {
    if (v.kind == Value::Kind::kString && v.str == "...") {
      for (int i = consumed; i < X.rank(); ++i) {
        Value s;
        s.kind = Value::Kind::kTuple;
        s.str = "slice";
        s.items = {Value{}, Value{}, Value{}};
        full.push_back(s);
      }
    } else if (v.is_tensor()) {
      return L.error_unsupported("indexing with a tensor");
    } else {
      full.push_back(v);
    }
  }
  // Per input dim: start, step (or a fixed int), and where the output var comes from.
  struct Dim {
    bool fixed;
    int64_t start, step;
  };
  std::vector<Dim> dims;
  std::vector<int> out_of_in;  // for each input dim, the output dim index (or -1)
  int out_dim = 0, in_dim = 0;
  for (const Value& v : full) {
    if (v.kind == Value::Kind::kNone) {
      ++out_dim;
      continue;
    }
    if (in_dim >= X.rank()) return L.error_unsupported("too many indices");
    const int64_t size = X.shape[in_dim];
    if (v.is_number()) {
      int64_t i = static_cast<int64_t>(v.number);
      if (i < 0) i += size;
      dims.push_back({true, i, 0});
      out_of_in.push_back(-1);
    } else if (v.kind == Value::Kind::kTuple && v.str == "slice") {
      int64_t step = v.items[2].is_number() ? static_cast<int64_t>(v.items[2].number) : 1;
      if (step <= 0) return L.error_unsupported("slice with a non-positive step");
      int64_t start = v.items[0].is_number() ? static_cast<int64_t>(v.items[0].number) : 0;
      if (start < 0) start += size;
      start = std::clamp<int64_t>(start, 0, size);
      dims.push_back({false, start, step});
      out_of_in.push_back(out_dim++);
    } else {
      return L.error_unsupported("unsupported index kind");
    }
    ++in_dim;
  }
  for (; in_dim < X.rank(); ++in_dim) {
    dims.push_back({false, 0, 1});
    out_of_in.push_back(out_dim++);
  }
  Tensor out = L.result(n.type.dtype, n.type.shape);
  if (element_count(out.shape) == 0) return L.error_unsupported("empty slice");
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> idx;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].fixed) {
        idx.push_back(std::to_string(dims[d].start));
        continue;
      }
      std::string v = nn.s[out_of_in[d]];
      if (dims[d].step != 1) v += "*" + std::to_string(dims[d].step);
      if (dims[d].start != 0) v += "+" + std::to_string(dims[d].start);
      idx.push_back(v);
    }
    return Lowering::access(X, idx);
  });
  return Value::of(out);
}

Result<Value> lower_select(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  auto d = L.int_arg(n, 1, "dim", 0);
  auto i = L.int_arg(n, 2, "index", 0);
  if (!x.ok()) return x.error();
  if (!d.ok()) return d.error();
  if (!i.ok()) return i.error();
  const Tensor X = *x;
  const int dim = norm_dim(*d, X.rank());
  const int64_t idx = *i < 0 ? *i + X.shape[dim] : *i;
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> ix(nn.s.begin(), nn.s.end());
    ix.insert(ix.begin() + dim, std::to_string(idx));
    return Lowering::access(X, ix);
  });
  return Value::of(out);
}

Result<Value> lower_flip(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  std::vector<int64_t> dims;
  if (n.args.size() == 2 || n.kwargs.contains("dims")) {
    auto d = L.ints_arg(n, 1, "dims");
    if (!d.ok()) return d.error();
    dims = *d;
  } else {
    for (size_t i = 1; i < n.args.size(); ++i) dims.push_back(*L.int_arg(n, i, nullptr, 0));
  }
  const Tensor X = *x;
  std::vector<bool> flip(X.rank(), false);
  for (int64_t d : dims) flip[norm_dim(d, X.rank())] = true;
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> ix;
    for (int d = 0; d < X.rank(); ++d)
      ix.push_back(flip[d] ? std::to_string(X.shape[d] - 1) + "-" + nn.s[d] : nn.s[d]);
    return Lowering::access(X, ix);
  });
  return Value::of(out);
}

Result<Value> lower_cat(Lowering& L, const GraphNode& n) {
  auto lst = L.arg(n, 0, "tensors");
  auto d = L.int_arg(n, 1, "dim", 0);
  if (!lst.ok()) return lst.error();
  if (!d.ok()) return d.error();
  Tensor out = L.result(n.type.dtype, n.type.shape);
  const int dim = norm_dim(*d, out.rank());
  int64_t offset = 0;
  for (const Value& v : lst->items) {
    if (!v.is_tensor()) return L.error_unsupported("cat of a non-tensor");
    const Tensor X = v.tensor;
    L.emit(X.shape, {}, [&](const Nest& nn) {
      std::vector<std::string> oi = nn.s;
      if (offset) oi[dim] = nn.s[dim] + "+" + std::to_string(offset);
      return std::vector<std::string>{Lowering::access(out, oi) + "=" + Lowering::access(X, nn.s)};
    });
    offset += X.shape[dim];
  }
  return Value::of(out);
}

// split/chunk: one copy per piece (pieces are ordinary tensors in a tuple).
Result<Value> lower_split(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto d = L.int_arg(n, 2, "dim", 0);
  if (!d.ok()) return d.error();
  const Tensor X = *x;
  const int dim = norm_dim(*d, X.rank());
  Value tuple;
  tuple.kind = Value::Kind::kTuple;
  int64_t offset = 0;
  for (const ValueType& piece : n.type.tuple) {
    Tensor out = L.temp(piece.dtype, piece.shape);
    const int64_t off = offset;
    L.emit_map(out, [&](const Nest& nn) {
      std::vector<std::string> ix = nn.s;
      if (off) ix[dim] = nn.s[dim] + "+" + std::to_string(off);
      return Lowering::access(X, ix);
    });
    offset += piece.shape[dim];
    tuple.items.push_back(Value::of(out));
  }
  return tuple;
}

Result<Value> lower_diag(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  if (x->rank() != 1 || (L.has_arg(n, 1, "diagonal") && *L.int_arg(n, 1, "diagonal", 0) != 0))
    return L.error_unsupported("diag of a 1-D tensor on the main diagonal only");
  const Tensor X = *x;
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    return fmt::format("if_then_else({}=={},{},0)", nn.s[0], nn.s[1],
                       Lowering::access(X, {nn.s[0]}));
  });
  return Value::of(out);
}

Handler triangle(bool upper) {
  return [upper](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto x = L.tensor_arg(n, 0, "input");
    auto k = L.int_arg(n, 1, "diagonal", 0);
    if (!x.ok()) return x.error();
    if (!k.ok()) return k.error();
    const Tensor X = *x;
    const int64_t diag = *k;
    Tensor out = L.result(n.type.dtype, n.type.shape);
    L.emit_map(out, [&](const Nest& nn) {
      const std::string& r = nn.s[nn.s.size() - 2];
      const std::string& c = nn.s.back();
      std::string rhs = diag == 0 ? r : r + "+" + Lowering::p(Lowering::number(diag));
      return fmt::format("if_then_else({}{}{},{},0)", c, upper ? ">=" : "<=", rhs,
                         Lowering::access(X, nn.s));
    });
    return Value::of(out);
  };
}

// x.narrow(dim, start, length): the elements start..start+length-1 along dim.
Result<Value> lower_narrow(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto dim = L.int_arg(n, 1, "dim", 0);
  auto start = L.int_arg(n, 2, "start", 0);
  if (!dim.ok()) return dim.error();
  if (!start.ok()) return start.error();
  const int d = norm_dim(*dim, x->rank());
  if (d < 0 || d >= x->rank()) return L.error_unsupported("narrow: dim out of range");
  int64_t first = *start < 0 ? *start + x->shape[d] : *start;
  Tensor out = L.result(n.type.dtype, n.type.shape);
  if (element_count(out.shape) == 0) return L.error_unsupported("empty narrow");
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> idx = nn.s;
    if (first != 0) idx[d] += "+" + std::to_string(first);
    return Lowering::access(*x, idx);
  });
  return Value::of(out);
}

Result<Value> lower_getattr(Lowering& L, const GraphNode& n) {
  auto what = L.arg(n, 1, nullptr);
  if (!what.ok()) return what.error();
  // torch.max(x, dim).values / .indices: the named fields of a (values, indices) result.
  if (what->kind == Value::Kind::kString && (what->str == "values" || what->str == "indices")) {
    auto x = L.arg(n, 0, nullptr);
    if (!x.ok()) return x.error();
    if (x->kind != Value::Kind::kTuple || !x->str.empty() || x->items.size() != 2)
      return L.error_unsupported("attribute '" + what->str +
                                 "' of a value that is not a "
                                 "(values, indices) pair");
    return tuple_item(L, *x, what->str == "values" ? 0 : 1);
  }
  if (what->kind == Value::Kind::kString && what->str == "T") return lower_T(L, n);
  if (what->kind == Value::Kind::kString && what->str == "mT") {
    auto x = L.tensor_arg(n, 0, "input");
    if (!x.ok()) return x.error();
    std::vector<int> perm(x->rank());
    for (int i = 0; i < x->rank(); ++i) perm[i] = i;
    std::swap(perm[x->rank() - 1], perm[x->rank() - 2]);
    return permute_by(L, n, *x, perm);
  }
  return L.error_unsupported("attribute '" + what->str + "'");
}

}  // namespace

void register_layout(OpTable& t) {
  t["view"] = reshape_like;
  t["reshape"] = reshape_like;
  t["flatten"] = reshape_like;
  t["unsqueeze"] = reshape_like;
  t["squeeze"] = reshape_like;
  t["view_as"] = reshape_like;
  t["reshape_as"] = reshape_like;
  t["module:Flatten"] = reshape_like;
  t["transpose"] = lower_transpose;
  t["permute"] = lower_permute;
  t["T"] = lower_T;
  t["getattr"] = lower_getattr;
  t["narrow"] = lower_narrow;
  t["t"] = lower_T;
  t["expand"] = lower_expand;
  t["expand_as"] = lower_expand;
  t["contiguous"] = alias;
  t["dropout"] = alias;
  t["module:Dropout"] = alias;
  t["module:Identity"] = alias;
  t["getitem"] = lower_getitem;
  t["select"] = lower_select;
  t["flip"] = lower_flip;
  t["cat"] = lower_cat;
  t["concat"] = lower_cat;
  t["split"] = lower_split;
  t["chunk"] = lower_split;
  t["diag"] = lower_diag;
  t["tril"] = triangle(false);
  t["triu"] = triangle(true);
}

}  // namespace steptp::frontend
