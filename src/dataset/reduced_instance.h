// dataset/reduced_instance.h — verifying a default-shape step on the workload's reduced instance.
//
// The reduced instance is the same model traced with smaller sizes that keep the default sizes'
// residues (python/steptp_catalog_reduced.py). A step shown at the default shapes is replayed,
// with the same site, on the reduced program, and the replay stands for the step only when it
// is the same transformation: the programs before and after are each equal to their reduced
// counterparts once every numeric literal is masked (same declarations, blocks, loop kinds,
// subscripts and statements, in the same order). A split whose tail nest exists at one shape
// only, or a rewrite that takes another branch, differs and is not verified there.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "leir/ir.h"

namespace steptp::dataset {

struct ReducedInstance {
  leir::Program program;  // the imported reduced program
  nlohmann::json shapes;  // its shape parameters (the graph's "shapes")
};

// The printed program (declarations and body) with every numeric literal replaced by '#'.
std::string shape_free_text(const leir::Program& p);

// Whether `a` and `b` are the same program up to their numeric literals.
bool same_up_to_sizes(const leir::Program& a, const leir::Program& b);

}  // namespace steptp::dataset
