// codegen/c_reduction_nests.h — the C backend's register-tiled nests, each written inside the
// loops around it by CEmitter (c_emitter.cpp): OpenMP lane reductions, lane jams (find_lane_jam),
// explicit 512-bit lane jams (is_explicit_wide_lane_jam) and output-stationary vector tiles
// (find_stationary_tile). Each writes one statement's nest with `w`, printing expressions with
// `expr` (whose substitutions it sets and clears).
#pragma once

#include <string>
#include <vector>

#include "codegen/c_expr.h"
#include "codegen/code_writer.h"
#include "codegen/lowering_facts.h"
#include "leir/ir.h"

namespace steptp::codegen {

// "for (int64_t i_a = 0; i_a < 8; ++i_a) {"
std::string for_header(const leir::Loop& l);

void emit_lane_reduction(Writer& w, CExprPrinter& expr, const leir::Block& b, const leir::Loop& l,
                         const std::string& op);
void emit_lane_jam(Writer& w, CExprPrinter& expr, const leir::Block& b, const LaneJam& jam,
                   const std::string& op);
void emit_wide_lane_jam(Writer& w, CExprPrinter& expr, const leir::Block& b, const LaneJam& jam);
void emit_stationary_tile(Writer& w, CExprPrinter& expr, const leir::Block& b,
                          const StationaryTile& t);

}  // namespace steptp::codegen
