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
  std::string step;  // provenance text: "inject_dead_code(block=1, at=3)"
};

// nullopt when the program has no block to copy.
std::optional<InjectedDeadCode> inject_dead_code(const leir::Program& p, SeededRandom& rng);

}  // namespace steptp::dataset
