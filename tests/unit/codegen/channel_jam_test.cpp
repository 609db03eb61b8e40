// The C backend's unroll-and-jam of an output-channel loop into a one-row stationary tile
// (codegen/channel_jam.h): which nests it rewrites, into what, and that the rewrite computes
// the same values (the interpreter runs both programs where the rewritten one is valid LEIR).
#include "codegen/channel_jam.h"

#include <gtest/gtest.h>

#include <random>

#include "codegen/c_emitter.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/tensor_table.h"

namespace steptp::codegen {
namespace {

leir::Program parse_or_die(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text, "channel_jam.leir");
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return std::move(p).value();
}

std::optional<ChannelJam> jam_of(const leir::Program& p) {
  Result<leir::TensorTable> table = leir::infer_tensor_table(p);
  STEPTP_CHECK(table.ok(), table.ok() ? "" : table.error().render());
  return jam_tile_channels(p, *table);
}

std::vector<int64_t> shape_of(const leir::TensorTable& t, const std::string& name) {
  const leir::TensorInfo* info = t.find(name);
  return info == nullptr ? std::vector<int64_t>{} : info->shape;
}

std::vector<leir::TensorData> seeded_inputs(const leir::Program& p) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::vector<leir::TensorData> out;
  for (const leir::TensorDecl& d : p.decls) {
    if (d.role == leir::TensorRole::kOutput) continue;
    leir::TensorData t{d.name, d.dtype, d.shape, {}};
    for (int64_t k = 0; k < leir::element_count(d.shape); ++k) t.values.push_back(real(rng));
    out.push_back(std::move(t));
  }
  return out;
}

// A convolution (8 output channels, rows of 10) fused with its bias and ReLU under its
// (n, channel, row) loops, the row kept in a local array G: the schedule the search finds.
const char* const kFusedConvolution =
    "input A f64[2,3,6,12]\nparam C f64[8,3,3,3]\nparam D f64[8]\noutput F f64[2,8,4,10]\n"
    "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
    "[G^{f64,s}_{tx,a,c,d}=G^{f64,s}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
    "L^{10}_{d=0}[G^{f64,s}_{tx,a,c,d}=G^{f64,s}_{tx,a,c,d}+D^{f64,g}_{a};"
    "F^{f64,g}_{tx,a,c,d}=max(G^{f64,s}_{tx,a,c,d},0);];];\n";

TEST(ChannelJam, JamsFourOutputChannelsIntoTheConvolutionRowAndSplitsItsLocalRow) {
  const leir::Program p = parse_or_die(kFusedConvolution);
  std::optional<ChannelJam> jam = jam_of(p);
  ASSERT_TRUE(jam.has_value());
  EXPECT_EQ(jam->blocks, std::vector<size_t>{0});
  // a = i*4+j: i in a's place, j unrolled in front of the taps (the tile jams it) and serial
  // around the epilogue; G, seen by this block only, is split to (i, j).
  EXPECT_EQ(leir::print(jam->program.blocks[0]),
            "B^{2}_{tx=0}L^{2}_{i=0}L^{4}_{c=0}[U^{4}_{j=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}"
            "L^{10}_{d=0}[G^{f64,s}_{tx,i,j,c,d}=G^{f64,s}_{tx,i,j,c,d}+C^{f64,g}_{i*4+j,f,g,h}*"
            "A^{f64,g}_{tx,f,c+g,d+h};];L^{4}_{j=0}L^{10}_{d=0}[G^{f64,s}_{tx,i,j,c,d}="
            "G^{f64,s}_{tx,i,j,c,d}+D^{f64,g}_{i*4+j};F^{f64,g}_{tx,i*4+j,c,d}="
            "max(G^{f64,s}_{tx,i,j,c,d},0);];];");
  EXPECT_EQ(shape_of(jam->table, "G"), (std::vector<int64_t>{2, 2, 4, 4, 10}));
  EXPECT_EQ(shape_of(jam->table, "F"), (std::vector<int64_t>{2, 8, 4, 10}));
  std::optional<StationaryTile> tile =
      find_stationary_tile(*jam->program.blocks[0].body[0].block, jam->table, kWideTileVectors);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->rows, 4);
  EXPECT_EQ(tile->jammed, std::vector<size_t>{0});

  // The same values, bit for bit: each element gets its updates in the original order.
  const std::vector<leir::TensorData> inputs = seeded_inputs(p);
  Result<std::vector<leir::TensorData>> before = interp::run_program(p, inputs);
  Result<std::vector<leir::TensorData>> after = interp::run_program(jam->program, inputs);
  ASSERT_TRUE(before.ok()) << before.error().render();
  ASSERT_TRUE(after.ok()) << after.error().render();
  ASSERT_EQ(before->size(), 1u);
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].values, (*before)[0].values);
}

// With the whole nest in one header (the convolution unfused, its output through memory), the
// unrolled loop enters the header in front of the taps. (14 rows of 2 vectors are more than
// the registers hold; 4 rows would have been jammed as they are.)
TEST(ChannelJam, JamsAConvolutionWhoseLoopsAreAllInOneHeader) {
  const leir::Program p = parse_or_die(
      "input A f64[2,3,16,12]\nparam C f64[8,3,3,3]\noutput F f64[2,8,14,10]\n"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{14}_{c=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[F^{f64,g}_{tx,a,c,d}=F^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "\n");
  std::optional<ChannelJam> jam = jam_of(p);
  ASSERT_TRUE(jam.has_value());
  EXPECT_EQ(leir::print(jam->program.blocks[0]),
            "B^{2}_{tx=0}L^{2}_{i=0}L^{14}_{c=0}U^{4}_{j=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}"
            "L^{10}_{d=0}[F^{f64,g}_{tx,i*4+j,c,d}=F^{f64,g}_{tx,i*4+j,c,d}+"
            "C^{f64,g}_{i*4+j,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];");
  EXPECT_EQ(shape_of(jam->table, "F"), (std::vector<int64_t>{2, 8, 14, 10}));
}

// A row tensor another block reads is split for the tile's sake, and the other block indexes
// the split dimension (0, e): the same flat offset, still affine.
TEST(ChannelJam, AnotherBlockReadsASplitTensorAtTheSameFlatOffset) {
  const leir::Program p = parse_or_die(
      "input A f64[2,3,6,12]\nparam C f64[8,3,3,3]\noutput E f64[2,8,4,10]\n"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[G^{f64,l}_{tx,a,c,d}=G^{f64,l}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];];"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}L^{10}_{d=0}[E^{f64,g}_{tx,a,c,d}="
      "exp(G^{f64,l}_{tx,a,c,d});];\n");
  std::optional<ChannelJam> jam = jam_of(p);
  ASSERT_TRUE(jam.has_value());
  EXPECT_EQ(jam->blocks, std::vector<size_t>{0});
  EXPECT_EQ(shape_of(jam->table, "G"), (std::vector<int64_t>{2, 2, 4, 4, 10}));
  EXPECT_EQ(leir::print(jam->program.blocks[1]),
            "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}L^{10}_{d=0}[E^{f64,g}_{tx,a,c,d}="
            "exp(G^{f64,l}_{tx,0,a,c,d});];");
}

// Left as written: a select in the block (it gets no 512-bit tiles, and 256-bit ones cannot
// hold 4 rows of 30); a minimum over the channels (its iterations write one element); a
// channel count that 2 does not divide; and a row read that moves with the channel (no load
// to share).
TEST(ChannelJam, LeavesNestsWhereTheJamIsIllegalOrSharesNothing) {
  const char* const untouched[] = {
      "input A f64[2,3,6,12]\nparam C f64[8,3,3,3]\noutput F f64[2,8,4,10]\n"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[G^{f64,s}_{tx,a,c,d}=G^{f64,s}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "L^{10}_{d=0}[F^{f64,g}_{tx,a,c,d}=if_then_else(G^{f64,s}_{tx,a,c,d}>0,"
      "G^{f64,s}_{tx,a,c,d},0);];];\n",
      "input A f64[2,3,6,12]\nparam C f64[8,3,3,3]\noutput F f64[2,1,4,10]\n"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[G^{f64,s}_{tx,a,c,d}=G^{f64,s}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "L^{10}_{d=0}[F^{f64,g}_{tx,0,c,d}=min(F^{f64,g}_{tx,0,c,d},G^{f64,s}_{tx,a,c,d});];];\n",
      "input A f64[2,3,6,12]\nparam C f64[7,3,3,3]\noutput F f64[2,7,4,10]\n"
      "B^{2}_{tx=0}L^{7}_{a=0}L^{4}_{c=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[F^{f64,g}_{tx,a,c,d}=F^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "\n",
      "input A f64[2,8,6,12]\nparam C f64[8,3,3]\noutput F f64[2,8,4,10]\n"
      "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
      "[F^{f64,g}_{tx,a,c,d}=F^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,g,h}*A^{f64,g}_{tx,a,c+g,d+h};];\n",
  };
  for (const char* text : untouched) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(jam_of(parse_or_die(text)).has_value());
  }
}

// The emitter lowers the jammed program (its wide tile loads the shared input row once per
// tap for 4 channels) unless told not to; the ABI's table is the original program's.
TEST(ChannelJam, TheCEmitterLowersTheJammedProgramUnlessToldNotTo) {
  const leir::Program p = parse_or_die(kFusedConvolution);
  Result<CSource> jammed = emit_c(p);
  ASSERT_TRUE(jammed.ok()) << jammed.error().render();
  EXPECT_NE(jammed->code.find("__asm__(\"\" : \"+v\"(stp_r0_0), \"+v\"(stp_r0_1));"),
            std::string::npos)
      << jammed->code;
  EXPECT_EQ(shape_of(jammed->table, "G"), (std::vector<int64_t>{2, 8, 4, 10}));
  CEmitOptions plain;
  plain.jam_tile_channels = false;
  Result<CSource> unjammed = emit_c(p, plain);
  ASSERT_TRUE(unjammed.ok()) << unjammed.error().render();
  EXPECT_EQ(unjammed->code.find("stp_r0_0"), std::string::npos) << unjammed->code;
}

}  // namespace
}  // namespace steptp::codegen
