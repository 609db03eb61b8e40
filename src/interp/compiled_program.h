// interp/compiled_program.h — the interpreter's compiled form of a Program (internal to interp/).
//
// Compilation resolves names to tensor and loop-variable slots, turns affine subscripts into
// (base + Σ coef·var) element addresses, decides per access whether bounds and initialization
// must be checked at run time, classifies accumulations (identity and fold kind) and decides
// per innermost loop whether its body may be evaluated a chunk of iterations at a time.
// The executor (executor.cpp) only follows these decisions; it never looks at the IR again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "leir/ir.h"
#include "leir/tensor_table.h"

namespace steptp::interp {

// Iterations evaluated together by one pass over an expression tree.
inline constexpr int kChunk = 256;

// An integer index expression that is not affine: evaluated per lane.
struct IndexNode {
  enum class Kind : uint8_t { kConst, kVar, kAdd, kSub, kMul, kFloorDiv, kMod, kNeg, kLoad };
  Kind kind = Kind::kConst;
  int64_t value = 0;   // kConst
  int slot = -1;       // kVar
  int a = -1, b = -1;  // children (index nodes)
  int access = -1;     // kLoad: the access whose element value is the index
};

// One subscript position: affine (constant + Σ coef·var) or a general index tree.
struct DimIndex {
  bool affine = true;
  int64_t constant = 0;
  std::vector<std::pair<int, int64_t>> terms;  // (slot, coef)
  int node = -1;                               // index tree root when !affine
};

struct Access {
  int tensor = -1;
  std::vector<DimIndex> dims;
  // Whole-address affine form (valid when every dim is affine).
  bool affine = true;
  int64_t base = 0;
  std::vector<std::pair<int, int64_t>> terms;  // (slot, coef in elements)
  bool static_in_bounds = false;  // every dim's interval over the nest lies inside the shape
  // Accumulation self-read: an unwritten element reads as `identity` instead of failing.
  bool has_identity = false;
  double identity = 0.0;
  bool track_race = false;  // dynamic race tracking of this tensor in this top-level block
  bool is_write = false;
};

enum class ValueOp : uint8_t {
  kConst,
  kVar,
  kLoad,
  kNeg,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kAnd,
  kOr,
  kCompare,
  kMax,
  kMin,
  kExp,
  kLog,
  kSqrt,
  kAbs,
  kErf,
  kSelect,
};

struct ValueNode {
  ValueOp op = ValueOp::kConst;
  double value = 0.0;                     // kConst
  int slot = -1;                          // kVar
  int access = -1;                        // kLoad
  std::vector<int> args;                  // child value nodes
  std::vector<leir::CompareOp> compares;  // kCompare: args.size() == compares.size() + 1
};

// How a statement whose LHS address does not move along the chunk loop folds a chunk of
// right-hand-side values into the one element (exactly the sequential result, in order).
enum class Fold : uint8_t {
  kNone,
  kAdd,
  kSubRight,
  kMul,
  kMax,
  kMin,
  kDivInto,
  kFloorDivInto,
  kModInto
};

struct CompiledStmt {
  int lhs = -1;  // access
  int rhs = -1;  // value node
  leir::DType dtype = leir::DType::kF64;
  Fold fold = Fold::kNone;
  int fold_operand = -1;  // value node of `e` when fold != kNone
  size_t top_block = 0;
  size_t ordinal = 0;
  std::string text;
};

struct CompiledLoop {
  int slot = -1;
  int64_t extent = 1;
  leir::LoopKind kind = leir::LoopKind::kSerial;
};

struct CompiledBlock {
  std::vector<CompiledLoop> loops;
  // Items in order: a statement index (>= 0) or a nested block (-1 - index into `nested`).
  std::vector<int> items;
  std::vector<CompiledBlock> nested;
  // The innermost loop's iterations may run kChunk at a time (see compiler.cpp for the rule).
  bool chunked = false;
};

struct TopBlock {
  CompiledBlock block;
  // B/P loop slots of this top-level block with their extents, for the dynamic thread id.
  std::vector<CompiledLoop> parallel_loops;
  std::vector<int> tracked_tensors;  // tensors that need dynamic race tracking here
};

class CompiledProgram {
 public:
  leir::Program program;
  leir::TensorTable table;
  RunOptions options;
  std::vector<Access> accesses;
  std::vector<ValueNode> values;
  std::vector<IndexNode> indices;
  std::vector<CompiledStmt> stmts;
  std::vector<TopBlock> blocks;
  int num_slots = 0;
  std::vector<std::string> slot_names;
  int64_t statement_executions = 0;
  std::vector<std::vector<int64_t>> strides;  // per tensor, row-major
  std::vector<int64_t> sizes;                 // per tensor element count
};

// Compiles a program (interp/compiler.cpp).
Result<std::unique_ptr<CompiledProgram>> compile_program(const leir::Program& program,
                                                         const RunOptions& options);

// Runs a compiled program (interp/executor.cpp).
Result<std::vector<leir::TensorData>> execute(const CompiledProgram& cp,
                                              const std::vector<leir::TensorData>& inputs,
                                              RunStats* stats);

}  // namespace steptp::interp
