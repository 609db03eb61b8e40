// dataset/dead_code_injection.h — synthesises the precondition of dead_code_elimination: a copy
// of one block whose written tensors are renamed to fresh intermediates nobody reads, inserted
// at a later position. The result computes the same outputs with strictly more work.
#pragma once

#include <optional>
#include <string>

#include "dataset/seeded_random.h"
#include "leir/ir.h"

namespace steptp::dataset {

struct InjectedDeadCode {
  leir::Program program;
  std::string step;   // provenance text: "inject_dead_code(block=1, at=3)"
  size_t source = 0;  // the copied block
  size_t at = 0;      // where the copy was inserted
};

// nullopt when the program has no block to copy.
std::optional<InjectedDeadCode> inject_dead_code(const leir::Program& p, SeededRandom& rng);

// The copy of block `source` inserted at position `at` (source < at <= blocks): the same
// injection on another instance of the program. nullopt when the positions do not exist or the
// block writes nothing.
std::optional<InjectedDeadCode> inject_dead_code_at(const leir::Program& p, size_t source,
                                                    size_t at);

}  // namespace steptp::dataset
