// cot/strategy_notes.cpp — the sentence table behind notes_for(). Our own wording throughout.
#include "cot/strategy_notes.h"

#include <array>

namespace steptp::cot {
namespace {

struct Entry {
  std::string_view name;
  StrategyNotes notes;
};

constexpr std::string_view kSameIterations =
    "every statement instance still runs exactly once with the same operands, and the order of "
    "dependent instances is unchanged";
constexpr std::string_view kAnnotationOnly =
    "only the loop annotation changes; the iteration space and the statements are identical, so "
    "the values are identical";
constexpr std::string_view kAlgebra =
    "the new right-hand side is an algebraic identity of the old one over the reals, so outputs "
    "agree up to floating-point rounding";

constexpr std::array kTable = {
    Entry{"operator_fusion",
          {"puts the statements of adjacent loop nests with the same iteration space into one nest",
           "each fused statement still runs once per point and producers still run before "
           "consumers within each iteration",
           "fewer passes over memory and fewer kernel launches; intermediate values stay hot"}},
    Entry{"operator_fission",
          {"splits the statements of one loop nest into separate nests over the same space",
           "no statement reads a value that the split moves after it, so every read sees the same "
           "value",
           "smaller loop bodies that are easier to vectorize or schedule, at the cost of one more "
           "pass over memory"}},
    Entry{"compute_inline",
          {"substitutes a producer's expression into its consumer and drops the intermediate",
           "the consumer now computes the producer's expression at exactly the indices it used to "
           "read",
           "one less intermediate tensor and one less pass over memory"}},
    Entry{"expression_splitting",
          {"moves a subexpression of one statement into its own intermediate tensor and nest",
           "the new intermediate holds exactly the subexpression's value at every index it is read",
           "shares work that would otherwise be recomputed and exposes simpler nests, at the cost "
           "of an extra buffer"}},
    Entry{"tensor_concat_to_fuse_operators",
          {"concatenates inputs of similar operators so that one nest computes all of them",
           "every output element is computed from the same operands, only addressed through the "
           "concatenated buffer",
           "one larger kernel instead of several small ones, which improves occupancy"}},
    Entry{"tensor_split_to_decouple_operators",
          {"splits a concatenated computation back into independent operators",
           "each part computes exactly the elements it computed before",
           "independent nests that can be scheduled separately"}},
    Entry{"common_subexpression_elimination",
          {"computes a repeated expression once into an intermediate and reuses it",
           "the reused value is the same expression of the same operands",
           "less arithmetic and fewer memory reads"}},
    Entry{"dead_code_elimination",
          {"removes a loop nest whose results are never read and are not outputs",
           "nothing observable depends on the removed nest",
           "strictly less work and memory traffic"}},
    Entry{"expression_reorder",
          {"swaps two independent loop nests",
           "the two nests share no read-after-write, write-after-read or write-after-write "
           "dependence",
           "better locality between a producer and its consumer"}},
    Entry{"loop_reorder",
          {"changes the nesting order of loops within one nest", kSameIterations,
           "a different memory access order, typically a more contiguous innermost stride"}},
    Entry{"loop_tiling",
          {"splits two adjacent loops into tile and intra-tile loops", kSameIterations,
           "a working set that fits in cache or shared memory"}},
    Entry{"loop_split",
          {"splits one loop into an outer and an inner loop", kSameIterations,
           "finer control of parallelism, vectorization and locality"}},
    Entry{"loop_fusion",
          {"merges two nested loops into one loop over their product", kSameIterations,
           "less loop overhead and one larger parallel dimension"}},
    Entry{"loop_unrolling",
          {"marks a short serial loop to be unrolled", kAnnotationOnly,
           "no loop control and more instruction-level parallelism"}},
    Entry{"loop_parallelization",
          {"marks a loop whose iterations are independent as parallel", kAnnotationOnly,
           "iterations spread over cores"}},
    Entry{"loop_vectorization",
          {"marks a short independent innermost loop as vectorized", kAnnotationOnly,
           "several elements per SIMD instruction"}},
    Entry{"loop_binding",
          {"binds a loop to GPU threads or blocks", kAnnotationOnly,
           "iterations run on parallel GPU hardware"}},
    Entry{"reduction_factorization",
          {"splits one reduction into partial reductions that are combined afterwards",
           "the partial results are combined with the same associative operator, so the result "
           "is the same up to rounding",
           "independent partial reductions that can run in parallel"}},
    Entry{"cache_read_write",
          {"stages a tensor through a faster memory scope",
           "the staged copy holds exactly the values of the original tensor",
           "repeated reads hit shared or local memory instead of global memory"}},
    Entry{"layout_transformation",
          {"changes the memory layout of an intermediate tensor",
           "every write and read uses the same new index map, so each element keeps its value",
           "more contiguous accesses"}},
    Entry{"set_storage_scope",
          {"moves an intermediate tensor to shared or local memory",
           "the scope changes where the values live, not what they are",
           "lower latency for the intermediate's accesses"}},
    Entry{"set_storage_layout",
          {"changes how an intermediate tensor is stored (its subscripts)",
           "every write and read uses the same new index map",
           "simpler or more contiguous address computation"}},
    Entry{"precompute_indices",
          {"computes an index expression once into a table and reads it back",
           "the table holds exactly the index values that were computed inline",
           "less integer arithmetic in the inner loop"}},
    Entry{"factorization",
          {"factors a right-hand side into a product", kAlgebra, "often fewer multiplications"}},
    Entry{"expand_factorization",
          {"multiplies a factored right-hand side out", kAlgebra,
           "exposes terms for later simplification, usually at more arithmetic"}},
    Entry{"cancellation",
          {"cancels common factors of a fraction", kAlgebra, "fewer operations and divisions"}},
    Entry{"expand_cancellation",
          {"undoes a cancellation by restoring a common factor", kAlgebra,
           "exposes structure for other rewrites, usually at more arithmetic"}},
    Entry{"apart",
          {"splits a fraction into a sum of simpler fractions", kAlgebra,
           "terms that can be computed or reused separately"}},
    Entry{"together",
          {"puts a sum of fractions over one denominator", kAlgebra, "fewer divisions"}},
    Entry{"powsimp", {"merges powers of a common base", kAlgebra, "fewer power evaluations"}},
    Entry{"expand_powsimp",
          {"splits a power into powers of a common base", kAlgebra,
           "exposes factors for reuse, usually at more arithmetic"}},
    Entry{"expand_log",
          {"splits the logarithm of a product or quotient into a sum of logarithms", kAlgebra,
           "terms that can be shared, usually at more log evaluations"}},
    Entry{"logsimp",
          {"combines a sum of logarithms into one logarithm", kAlgebra, "fewer log evaluations"}},
    Entry{"collect",
          {"gathers like terms around a common factor", kAlgebra, "fewer multiplications"}},
    Entry{"expand_collect",
          {"distributes a collected factor over its terms again", kAlgebra,
           "exposes terms for other rewrites, usually at more arithmetic"}},
    Entry{"partially_equivalent_then_correct",
          {"computes a cheaper, partially equivalent result and then corrects the difference",
           "the correction restores exactly the elements where the cheap form differs",
           "most of the work runs in the cheaper, more regular form"}},
    Entry{"normal_loop_max_to_prefix_max",
          {"turns a max reduction into a running (prefix) maximum",
           "the last element of the running maximum is the maximum of the whole range",
           "prepares the reduction for online (single-pass) algorithms"}},
    Entry{"exponential_split",
          {"splits an exponential of a difference into a product or quotient of exponentials",
           "exp(a-b) equals exp(a)/exp(b) over the reals", "terms that can be shared or fused"}},
    Entry{"multiplicative_split",
          {"splits a multiplication so that a factor can be applied separately",
           "the product is regrouped, not changed", "factors that can be shared or hoisted"}},
    Entry{"additive_split",
          {"splits a sum so that a term can be computed separately",
           "the sum is regrouped, not changed", "terms that can be shared or hoisted"}},
    Entry{"normal_loop_summation_on_exp_to_prefix_summation_on_exp",
          {"turns a sum of exponentials into a running sum rescaled by a running maximum",
           "each rescaling multiplies by exp(old max - new max), which keeps the sum exact",
           "a single pass instead of two over the reduced axis"}},
    Entry{"online_softmax",
          {"computes softmax with a running maximum and a running rescaled sum",
           "the rescaled running sum equals the sum of exponentials against the final maximum",
           "one fewer pass over the input"}},
    Entry{"flashattention_wo_tiling",
          {"fuses attention scores, online softmax and the value product into one pass",
           "the running output is rescaled together with the running sum, so the final "
           "normalisation matches the three-pass form",
           "the score matrix is never materialised"}},
    Entry{"normal_matmul_to_prefix_matmul_based_on_online_softmax",
          {"turns a matmul after an online softmax into a running, rescaled product",
           "each partial product is rescaled with the softmax's running maximum, so the final "
           "value is the same",
           "the normalised probabilities are never stored"}},
};

StrategyNotes category_fallback(strategy::Category c) {
  switch (c) {
    case strategy::Category::kGraph:
      return {"restructures the loop nests of the program", kSameIterations,
              "fewer passes over memory or better scheduling freedom"};
    case strategy::Category::kOperator:
      return {"restructures the loops of one nest", kSameIterations,
              "better locality or parallelism"};
    case strategy::Category::kMemory:
      return {"changes where or how a tensor is stored",
              "every element keeps its value; only its placement changes",
              "cheaper memory accesses"};
    case strategy::Category::kMath:
      return {"rewrites an expression into an equivalent form", kAlgebra,
              "a cheaper or more reusable form of the arithmetic"};
  }
  return {"", "", ""};
}

}  // namespace

StrategyNotes notes_for(std::string_view strategy_name, strategy::Category category) {
  for (const Entry& e : kTable)
    if (e.name == strategy_name) return e.notes;
  return category_fallback(category);
}

}  // namespace steptp::cot
