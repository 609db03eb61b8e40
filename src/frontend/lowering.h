// frontend/lowering.h — the state shared by the per-op lowering files: values of graph nodes,
// tensor and loop naming, and the emission of LEIR loop nests as text (reference style).
//
// Each lower_<family>.cpp registers handlers into an OpTable; a handler reads its node's
// arguments as Values and appends top-level blocks. Handlers never guess: an argument form
// they do not support is an "unsupported_op" error naming the op and the node.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/graph_json.h"
#include "leir/ir.h"
#include "support/error.h"

namespace steptp::frontend {

// A LEIR tensor: declared (input/param/const/output) or an intermediate.
struct Tensor {
  std::string name;
  leir::DType dtype = leir::DType::kF64;
  std::vector<int64_t> shape;
  int rank() const { return static_cast<int>(shape.size()); }
};

// The value a graph node evaluates to.
class Lowering;

struct Value {
  enum class Kind { kNone, kTensor, kNumber, kInts, kTuple, kString, kBool };
  Kind kind = Kind::kNone;
  Tensor tensor;
  double number = 0;
  bool integral = false;
  std::vector<int64_t> ints;
  std::vector<Value> items;
  std::string str;
  // A tuple item computed only when a node reads it (the indices of max/min over a dim, which
  // most programs never use): tuple_item lowers it then, as part of the reading node.
  std::function<Result<Value>(Lowering&)> deferred;

  static Value of(Tensor t);
  static Value num(double v, bool integral);
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_number() const { return kind == Kind::kNumber || kind == Kind::kBool; }
};

using Handler = std::function<Result<Value>(Lowering&, const GraphNode&)>;
using OpTable = std::map<std::string, Handler>;

// Registration of each op family (one per lower_<family>.cpp).
void register_elementwise(OpTable& t);
void register_activation(OpTable& t);
void register_matmul(OpTable& t);
void register_reduce(OpTable& t);
void register_softmax(OpTable& t);
void register_norm(OpTable& t);
void register_conv(OpTable& t);
void register_pool(OpTable& t);
void register_loss(OpTable& t);
void register_scan(OpTable& t);
void register_layout(OpTable& t);

// One loop nest being built: spatial loops (usually the output dims) then reduction loops.
struct Nest {
  std::vector<std::string> s;  // variable names of the spatial loops
  std::vector<std::string> r;  // variable names of the reduction loops
};

class Lowering {
 public:
  Lowering(const Graph& g, std::string output_node);

  // ---- arguments ----
  const GraphNode& node() const { return *node_; }
  Result<Value> arg(const GraphNode& n, size_t i, const char* kw) const;  // positional or kw
  bool has_arg(const GraphNode& n, size_t i, const char* kw) const;
  Result<Value> eval(const nlohmann::json& j) const;
  Result<Tensor> tensor_arg(const GraphNode& n, size_t i, const char* kw) const;
  Result<double> number_arg(const GraphNode& n, size_t i, const char* kw, double dflt) const;
  Result<int64_t> int_arg(const GraphNode& n, size_t i, const char* kw, int64_t dflt) const;
  Result<std::vector<int64_t>> ints_arg(const GraphNode& n, size_t i, const char* kw) const;
  nlohmann::json hparam(const char* key) const;  // call_module hyperparameter (null if absent)
  Result<Tensor> module_param(const char* local) const;  // e.g. "weight"; error if absent
  bool has_module_param(const char* local) const;

  // ---- tensors ----
  // The result tensor of the current node (the declared output when this node is the output).
  Tensor result(leir::DType dtype, std::vector<int64_t> shape);
  Tensor temp(leir::DType dtype, std::vector<int64_t> shape);  // a fresh intermediate
  static std::string access(const Tensor& t, const std::vector<std::string>& idx);
  // Reads `t` broadcast (right-aligned) into an iteration over `vars` of the output shape.
  static std::string read_broadcast(const Tensor& t, const std::vector<int64_t>& out_shape,
                                    const std::vector<std::string>& vars);
  static std::string number(double v);         // a LEIR literal; negative values parenthesised
  static std::string p(const std::string& e);  // parenthesise a compound expression

  // ---- emission ----
  // One top-level block: loops over `spatial` then `reduction`; the bound loop is chosen per
  // the reference style (tx on the first spatial dim with extent ≤ 1024; `bind` selects which
  // spatial dim to prefer, -1 = first eligible). `body` returns the statements (no ';').
  void emit(const std::vector<int64_t>& spatial, const std::vector<int64_t>& reduction,
            const std::function<std::vector<std::string>(const Nest&)>& body, int bind = -1);
  // Copy / compute nest writing every element of `out`: out[i] = f(i).
  void emit_map(const Tensor& out, const std::function<std::string(const Nest&)>& f);

  Result<Value> error_unsupported(const std::string& why) const;

  // ---- driver ----
  Result<void> run(const OpTable& table);
  std::string body_text() const;
  const std::vector<leir::TensorDecl>& decls() const { return decls_; }
  const std::map<std::string, std::string>& leir_to_graph() const { return leir_to_graph_; }

 private:
  std::string next_tensor_name();
  const Graph& g_;
  std::string output_node_;
  const GraphNode* node_ = nullptr;
  std::map<std::string, Value> values_;
  std::vector<leir::TensorDecl> decls_;
  std::map<std::string, std::string> leir_to_graph_;
  std::vector<std::string> blocks_;
  int name_counter_ = 0;
  bool output_written_ = false;
  Tensor output_;
};

std::string index_var_name(int i);  // a c d f ... then two letters without e

}  // namespace steptp::frontend

namespace steptp::frontend {

// An elementwise operand read at `vars` of an output of shape `out_shape`: a broadcast tensor
// read or a literal; nullopt for values that are neither.
std::optional<std::string> operand_text(const Value& v, const std::vector<int64_t>& out_shape,
                                        const std::vector<std::string>& vars);

// Emits result[i] = f(operand texts at i) over the current node's output shape and dtype.
Result<Value> map_values(Lowering& L, const std::vector<Value>& ins,
                         const std::function<std::string(const std::vector<std::string>&)>& f);

// The safe tanh of an expression: 1-2/(exp(2x)+1) never divides inf by inf.
std::string tanh_text(const std::string& x);
std::string sigmoid_text(const std::string& x);

}  // namespace steptp::frontend

namespace steptp::frontend {

// Reduction layout helpers shared by reductions, softmax, norms and losses.
// Normalises a dim argument (int, list, or none = all dims) against `rank`; sorted, unique.
Result<std::vector<int>> reduce_dims(const Value& dims, int rank);
std::vector<int64_t> kept_shape(const std::vector<int64_t>& shape, const std::vector<int>& red);
std::vector<int64_t> reduced_extents(const std::vector<int64_t>& shape,
                                     const std::vector<int>& red);
// The full index of the reduced tensor in a nest whose spatial loops are its kept dims and
// whose reduction loops are its reduced dims.
std::vector<std::string> full_index(int rank, const std::vector<int>& red, const Nest& n);
// The index into a keepdim-shaped tensor (0 at reduced dims) from the kept-dim variables.
std::vector<std::string> keepdim_index(int rank, const std::vector<int>& red,
                                       const std::vector<std::string>& kept_vars);

// acc[kept] = combine(acc[kept], term(x index)) over the reduced dims: `combine` is one of
// "+", "*", "max", "min". Returns acc (a fresh intermediate of the kept shape unless given).
Tensor accumulate(Lowering& L, const Tensor& x, const std::vector<int>& red,
                  const std::string& combine,
                  const std::function<std::string(const std::vector<std::string>&)>& term,
                  std::optional<Tensor> into = std::nullopt, bool keepdim_into = false);

}  // namespace steptp::frontend

namespace steptp::frontend {

// A copy of x over its last pad_lo.size() dims, shifted by pad_lo and extended to
// padded_extent, reading `fill` outside x (x itself when nothing changes). Shared by conv
// (zero padding) and pooling (-inf padding for max).
Tensor pad_input(Lowering& L, const Tensor& x, const std::vector<int64_t>& pad_lo,
                 const std::vector<int64_t>& padded_extent, const std::string& fill);

}  // namespace steptp::frontend
