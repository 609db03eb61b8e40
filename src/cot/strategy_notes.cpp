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
           "aims at fewer passes over memory and fewer kernel launches, with intermediate values "
           "kept hot",
           ""}},
    Entry{"operator_fission",
          {"splits the statements of one loop nest into separate nests over the same space",
           "no statement reads a value that the split moves after it, so every read sees the same "
           "value",
           "aims at smaller loop bodies that are easier to vectorize or schedule, at the cost of "
           "one more pass over memory",
           "separate nests that later steps can schedule, vectorize or bind one by one"}},
    Entry{"compute_inline",
          {"substitutes a producer's expression into its consumer and drops the intermediate",
           "the consumer now computes the producer's expression at exactly the indices it used to "
           "read",
           "aims at one intermediate tensor and one pass over memory fewer", ""}},
    Entry{"expression_splitting",
          {"moves a subexpression of one statement into its own intermediate tensor and nest",
           "the new intermediate holds exactly the subexpression's value at every index it is read",
           "aims to share work that would otherwise be recomputed and to expose simpler nests, at "
           "the cost of an extra buffer",
           "simpler nests that later steps can fuse or schedule"}},
    Entry{"tensor_concat_to_fuse_operators",
          {"concatenates inputs of similar operators so that one nest computes all of them",
           "every output element is computed from the same operands, only addressed through the "
           "concatenated buffer",
           "aims at one larger kernel instead of several small ones, for better occupancy", ""}},
    Entry{"tensor_split_to_decouple_operators",
          {"splits a concatenated computation back into independent operators",
           "each part computes exactly the elements it computed before",
           "aims at independent nests that can be scheduled separately",
           "independent nests that later steps can schedule separately"}},
    Entry{
        "common_subexpression_elimination",
        {"computes a repeated expression once into an intermediate and reuses it",
         "the reused value is the same expression of the same operands",
         "aims at less arithmetic and fewer memory reads by computing the repeated expression once",
         ""}},
    Entry{"dead_code_elimination",
          {"removes a loop nest whose results are never read and are not outputs",
           "nothing observable depends on the removed nest",
           "aims at less work and memory traffic by dropping a nest nobody reads", ""}},
    Entry{"expression_reorder",
          {"swaps two independent loop nests",
           "the two nests share no read-after-write, write-after-read or write-after-write "
           "dependence",
           "aims at better locality between a producer and its consumer",
           "an order in which a producer sits next to its consumer, ready for fusion"}},
    Entry{"loop_reorder",
          {"changes the nesting order of loops within one nest", kSameIterations,
           "aims at a more contiguous innermost stride through a different loop order",
           "a loop order that later tiling, vectorization or binding can use"}},
    Entry{"loop_tiling",
          {"splits two adjacent loops into tile and intra-tile loops", kSameIterations,
           "aims at a working set per tile that fits in cache or shared memory",
           "tile loops that later steps can bind, cache or parallelize"}},
    Entry{"loop_split",
          {"splits one loop into an outer and an inner loop", kSameIterations,
           "aims at finer control of parallelism, vectorization and locality through an inner loop "
           "of a chosen extent",
           "an inner loop of a chosen extent to vectorize, unroll or bind"}},
    Entry{"loop_fusion",
          {"merges two nested loops into one loop over their product", kSameIterations,
           "aims at less loop overhead and one larger parallel dimension",
           "one larger loop to parallelize or bind"}},
    Entry{"loop_unrolling",
          {"marks a short serial loop to be unrolled", kAnnotationOnly,
           "aims at no loop control and more instruction-level parallelism in the unrolled loop",
           ""}},
    Entry{"loop_parallelization",
          {"marks a loop whose iterations are independent as parallel", kAnnotationOnly,
           "aims to spread the loop's iterations over cores", ""}},
    Entry{"loop_vectorization",
          {"marks a short independent innermost loop as vectorized", kAnnotationOnly,
           "aims at several elements per SIMD instruction in the vectorized loop", ""}},
    Entry{"loop_binding",
          {"binds a loop to GPU threads or blocks", kAnnotationOnly,
           "aims to run the loop's iterations on GPU threads or blocks",
           "a GPU mapping of the loop for the CUDA backend"}},
    Entry{"reduction_factorization",
          {"splits one reduction into partial reductions that are combined afterwards",
           "the partial results are combined with the same associative operator, so the result "
           "is the same up to rounding",
           "aims at independent partial reductions that can run in parallel",
           "partial reductions that later steps can parallelize or bind"}},
    Entry{"cache_read_write",
          {"stages a tensor through a copy in another memory scope",
           "the staged copy holds exactly the values of the original tensor",
           "aims to serve repeated accesses from a staged copy in another memory scope", ""}},
    Entry{"layout_transformation",
          {"changes the memory layout of an intermediate tensor",
           "every write and read uses the same new index map, so each element keeps its value",
           "aims at more contiguous accesses to the re-laid-out intermediate", ""}},
    Entry{"set_storage_scope",
          {"changes the memory scope (global, shared or local) of an intermediate tensor",
           "the scope changes where the values live, not what they are",
           "aims to keep the intermediate in the memory scope that suits its accesses", ""}},
    Entry{"set_storage_layout",
          {"changes how an intermediate tensor is stored (its subscripts)",
           "every write and read uses the same new index map",
           "aims at simpler or more contiguous address computation for the intermediate", ""}},
    Entry{
        "precompute_indices",
        {"computes an index expression once into a table and reads it back",
         "the table holds exactly the index values that were computed inline",
         "aims at less integer arithmetic in the inner loop by reading indices from a table", ""}},
    Entry{"factorization",
          {"factors a right-hand side into a product", kAlgebra,
           "aims at fewer multiplications by factoring the right-hand side", ""}},
    Entry{"expand_factorization",
          {"multiplies a factored right-hand side out", kAlgebra,
           "multiplies a product out into separate terms",
           "expanded terms for later simplification"}},
    Entry{"cancellation",
          {"cancels common factors of a fraction", kAlgebra,
           "aims at fewer operations and divisions by cancelling common factors", ""}},
    Entry{"expand_cancellation",
          {"undoes a cancellation by restoring a common factor", kAlgebra,
           "restores a cancelled common factor", "a common factor that other rewrites can use"}},
    Entry{"apart",
          {"splits a fraction into a sum of simpler fractions", kAlgebra,
           "aims at fraction terms that can be computed or reused separately",
           "separate fraction terms for later reuse"}},
    Entry{"together",
          {"puts a sum of fractions over one denominator", kAlgebra,
           "aims at fewer divisions by putting fractions over one denominator", ""}},
    Entry{"powsimp",
          {"merges powers of a common base", kAlgebra,
           "aims at fewer power evaluations by merging powers of a common base", ""}},
    Entry{"expand_powsimp",
          {"splits a power into powers of a common base", kAlgebra, "splits one power into several",
           "power factors that can be reused"}},
    Entry{"expand_log",
          {"splits the logarithm of a product or quotient into a sum of logarithms", kAlgebra,
           "splits one logarithm into several", "logarithm terms that can be shared"}},
    Entry{"logsimp",
          {"combines a sum of logarithms into one logarithm", kAlgebra,
           "aims at fewer log evaluations by combining logarithms", ""}},
    Entry{"collect",
          {"gathers like terms around a common factor", kAlgebra,
           "aims at fewer multiplications by gathering like terms around one factor", ""}},
    Entry{"expand_collect",
          {"distributes a collected factor over its terms again", kAlgebra,
           "distributes a factor over its terms",
           "distributed terms that other rewrites can regroup"}},
    Entry{"partially_equivalent_then_correct",
          {"computes a cheaper, partially equivalent result and then corrects the difference",
           "the correction restores exactly the elements where the cheap form differs",
           "aims to run most of the work in a cheaper, more regular form", ""}},
    Entry{"normal_loop_max_to_prefix_max",
          {"turns a max reduction into a running (prefix) maximum",
           "the last element of the running maximum is the maximum of the whole range",
           "turns the maximum into a running one",
           "a running maximum that an online softmax can build on"}},
    Entry{"exponential_split",
          {"splits an exponential of a difference into a product or quotient of exponentials",
           "exp(a-b) equals exp(a)/exp(b) over the reals",
           "aims at exponential factors that can be shared or fused",
           "exponential factors that later steps can share or fuse"}},
    Entry{"multiplicative_split",
          {"splits a multiplication so that a factor can be applied separately",
           "the product is regrouped, not changed", "aims at factors that can be shared or hoisted",
           "factors that later steps can share or hoist"}},
    Entry{"additive_split",
          {"splits a sum so that a term can be computed separately",
           "the sum is regrouped, not changed", "aims at terms that can be shared or hoisted",
           "terms that later steps can share or hoist"}},
    Entry{"normal_loop_summation_on_exp_to_prefix_summation_on_exp",
          {"turns a sum of exponentials into a running sum rescaled by a running maximum",
           "each rescaling multiplies by exp(old max - new max), which keeps the sum exact",
           "aims at a single pass instead of two over the reduced axis", ""}},
    Entry{"online_softmax",
          {"computes softmax with a running maximum and a running rescaled sum",
           "the rescaled running sum equals the sum of exponentials against the final maximum",
           "aims at one pass over the input fewer", ""}},
    Entry{"flashattention_wo_tiling",
          {"fuses attention scores, online softmax and the value product into one pass",
           "the running output is rescaled together with the running sum, so the final "
           "normalisation matches the three-pass form",
           "aims to never materialise the score matrix", ""}},
    Entry{"normal_matmul_to_prefix_matmul_based_on_online_softmax",
          {"turns a matmul after an online softmax into a running, rescaled product",
           "each partial product is rescaled with the softmax's running maximum, so the final "
           "value is the same",
           "aims to never store the normalised probabilities", ""}},
};

StrategyNotes category_fallback(strategy::Category c) {
  switch (c) {
    case strategy::Category::kGraph:
      return {"restructures the loop nests of the program", kSameIterations,
              "aims at fewer passes over memory or more scheduling freedom", ""};
    case strategy::Category::kOperator:
      return {"restructures the loops of one nest", kSameIterations,
              "aims at better locality or parallelism in the nest", ""};
    case strategy::Category::kMemory:
      return {"changes where or how a tensor is stored",
              "every element keeps its value; only its placement changes",
              "aims at cheaper accesses to the tensor", ""};
    case strategy::Category::kMath:
      return {"rewrites an expression into an equivalent form", kAlgebra,
              "aims at a cheaper or more reusable form of the arithmetic", ""};
  }
  return {"", "", "", ""};
}

}  // namespace

StrategyNotes notes_for(std::string_view strategy_name, strategy::Category category) {
  for (const Entry& e : kTable)
    if (e.name == strategy_name) return e.notes;
  return category_fallback(category);
}

}  // namespace steptp::cot
