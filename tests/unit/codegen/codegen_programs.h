// tests/unit/codegen/codegen_programs.h — the hand-written LEIR programs every backend test
// lowers: one per pattern the emitters must get right (reductions and their identities,
// padding, gathers, recurrences, nested blocks, dtypes, schedule annotations, scopes).
#pragma once

#include <string>
#include <vector>

namespace steptp::codegen::testing {

struct NamedProgram {
  std::string name;
  std::string text;  // a .leir program file
};

inline const std::vector<NamedProgram>& codegen_programs() {
  static const std::vector<NamedProgram> programs = {
      {"matmul",
       "input A f64[8,16]\ninput C f64[16,12]\noutput D f64[8,12]\n"
       "B^{8}_{tx=0}L^{12}_{a=0}L^{16}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
       "C^{f64,g}_{c,a};];\n"},
      {"linear_bias_leaky",
       "input A f64[6,10]\nparam G f64[7,10]\nparam H f64[7]\noutput E f64[6,7]\n"
       "B^{6}_{tx=0}L^{7}_{a=0}L^{10}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
       "G^{f64,g}_{a,c};];B^{6}_{tx=0}L^{7}_{a=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+H^{f64,g}_{a};]"
       ";"
       "B^{6}_{tx=0}L^{7}_{a=0}[E^{f64,g}_{tx,a}=if_then_else(C^{f64,g}_{tx,a}<0,0.1*"
       "C^{f64,g}_{tx,a},C^{f64,g}_{tx,a});];\n"},
      {"softmax",
       "input A f64[4,33]\noutput C f64[4,33]\n"
       "B^{4}_{tx=0}L^{33}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
       "B^{4}_{tx=0}L^{33}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})"
       ";];"
       "B^{4}_{tx=0}L^{33}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})/"
       "E^{f64,g}_{tx};];\n"},
      {"log_softmax_commuted",
       "input A f64[5,17]\noutput C f64[5,17]\n"
       "B^{5}_{tx=0}L^{17}_{a=0}[D^{f64,g}_{tx}=max(A^{f64,g}_{tx,a},D^{f64,g}_{tx});];"
       "B^{5}_{tx=0}L^{17}_{a=0}[E^{f64,g}_{tx}=exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})+E^{f64,g}_{tx}"
       ";];"
       "B^{5}_{tx=0}L^{17}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}-D^{f64,g}_{tx}-log(E^{f64,g}_{"
       "tx});];\n"},
      {"layernorm",
       "input A f64[3,4,5,6]\nparam D f64[4,5,6]\nparam E f64[4,5,6]\noutput C f64[3,4,5,6]\n"
       "B^{3}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{6}_{d=0}[F^{f64,g}_{tx}=F^{f64,g}_{tx}+"
       "A^{f64,g}_{tx,a,c,d};];B^{3}_{tx=0}[G^{f64,g}_{tx}=F^{f64,g}_{tx}/120;];"
       "B^{3}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{6}_{d=0}[H^{f64,g}_{tx}=H^{f64,g}_{tx}+"
       "(A^{f64,g}_{tx,a,c,d}-G^{f64,g}_{tx})**2;];B^{3}_{tx=0}[I^{f64,g}_{tx}=H^{f64,g}_{tx}/"
       "120;];"
       "B^{3}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{6}_{d=0}[J^{f64,g}_{tx,a,c,d}=(A^{f64,g}_{tx,a,c,d}-"
       "G^{f64,g}_{tx})/sqrt(I^{f64,g}_{tx}+1e-05);];B^{3}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}"
       "L^{6}_{d=0}[C^{f64,g}_{tx,a,c,d}=D^{f64,g}_{a,c,d}*J^{f64,g}_{tx,a,c,d}+E^{f64,g}_{a,c,d};]"
       ";\n"},
      {"conv2d_pad_stride",
       "input A f64[2,3,9,9]\nparam D f64[4,3,3,3]\noutput C f64[2,4,5,5]\n"
       "B^{2}_{tx=0}L^{3}_{a=0}L^{11}_{c=0}L^{11}_{d=0}[E^{f64,g}_{tx,a,c,d}=if_then_else(1<=c<10&"
       "1<=d<10,A^{f64,g}_{tx,a,c-1,d-1},0);];B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{5}_{d=0}"
       "L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}[C^{f64,g}_{tx,a,c,d}=C^{f64,g}_{tx,a,c,d}+"
       "E^{f64,g}_{tx,f,c*2+g,d*2+h}*D^{f64,g}_{a,f,g,h};];\n"},
      {"maxpool_neg_inf_padding",
       "input A f64[2,3,8,8]\noutput C f64[2,3,5,5]\n"
       "B^{2}_{tx=0}L^{3}_{a=0}L^{10}_{c=0}L^{10}_{d=0}[D^{f64,g}_{tx,a,c,d}=if_then_else(1<=c<9&"
       "1<=d<9,A^{f64,g}_{tx,a,c-1,d-1},-inf);];B^{2}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{5}_{d=0}"
       "L^{2}_{f=0}L^{2}_{g=0}[C^{f64,g}_{tx,a,c,d}=max(C^{f64,g}_{tx,a,c,d},"
       "D^{f64,g}_{tx,a,c*2+f,d*2+g});];\n"},
      {"argmax",
       "input A f64[4,6,5]\noutput C i64[4,5]\n"
       "B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}[D^{f64,g}_{tx,c}=max(D^{f64,g}_{tx,c},A^{f64,g}_{tx,a,c}"
       ");"
       "C^{i64,g}_{tx,c}=0;];B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}[C^{i64,g}_{tx,c}=if_then_else("
       "A^{f64,g}_{tx,a,c}>=D^{f64,g}_{tx,c},a,C^{i64,g}_{tx,c});];\n"},
      {"cumsum",
       "input A f64[3,20]\noutput C f64[3,20]\n"
       "B^{3}_{tx=0}L^{20}_{a=0}L^{20}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+if_then_else(c<=a,"
       "A^{f64,g}_{tx,c},0);];\n"},
      {"prefix_max",
       "input D f64[4,16]\noutput F f64[4]\n"
       "B^{4}_{tx=0}L^{16}_{a=0}[H^{f64,g}_{tx,a}=max(if_then_else(a-1<0,-inf,H^{f64,g}_{tx,a-1}),"
       "D^{f64,g}_{tx,a});];B^{4}_{tx=0}[F^{f64,g}_{tx}=H^{f64,g}_{tx,15};];\n"},
      {"nested_attention",
       "input Q f64[4,8]\ninput K f64[6,8]\ninput W f64[6,8]\noutput R f64[4,8]\n"
       "B^{4}_{tx=0}[L^{6}_{a=0}L^{8}_{c=0}[S^{f64,g}_{tx,a}=S^{f64,g}_{tx,a}+Q^{f64,g}_{tx,c}*"
       "K^{f64,g}_{a,c};];L^{6}_{a=0}[M^{f64,g}_{tx}=max(M^{f64,g}_{tx},S^{f64,g}_{tx,a});];"
       "L^{6}_{a=0}[Z^{f64,g}_{tx}=Z^{f64,g}_{tx}+exp(S^{f64,g}_{tx,a}-M^{f64,g}_{tx});"
       "L^{8}_{c=0}[O^{f64,g}_{tx,c}=O^{f64,g}_{tx,c}+exp(S^{f64,g}_{tx,a}-M^{f64,g}_{tx})*"
       "W^{f64,g}_{a,c};];];L^{8}_{c=0}[R^{f64,g}_{tx,c}=O^{f64,g}_{tx,c}/Z^{f64,g}_{tx};];];\n"},
      {"softmax_f32",
       "input A f32[4,33]\noutput C f32[4,33]\n"
       "B^{4}_{tx=0}L^{33}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
       "B^{4}_{tx=0}L^{33}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-D^{f32,g}_{tx})"
       ";];"
       "B^{4}_{tx=0}L^{33}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a}-D^{f32,g}_{tx})/"
       "E^{f32,g}_{tx};];\n"},
      {"gelu_sum_f16_bf16",
       "input A f16[4,16]\noutput E f32[4]\n"
       "B^{4}_{tx=0}L^{16}_{a=0}[C^{f16,g}_{tx,a}=A^{f16,g}_{tx,a}*0.5*(1+erf(A^{f16,g}_{tx,a}/"
       "sqrt(2)));];B^{4}_{tx=0}L^{16}_{a=0}[D^{bf16,g}_{tx}=D^{bf16,g}_{tx}+C^{f16,g}_{tx,a}*3.7;]"
       ";"
       "B^{4}_{tx=0}[E^{f32,g}_{tx}=D^{bf16,g}_{tx}/7;];\n"},
      {"parallel_vector_unroll",
       "input A f64[8,4,6]\noutput C f64[8,6,4]\n"
       "P^{8}_{a=0}U^{6}_{c=0}V^{4}_{d=0}[G^{f64,g}_{a,c,d}=A^{f64,g}_{a,d,c}*2+1;];"
       "P^{8}_{a=0}L^{4}_{c=0}[F^{f64,g}=F^{f64,g}+A^{f64,g}_{a,c,0};];"
       "P^{8}_{a=0}P^{6}_{c=0}V^{4}_{d=0}[C^{f64,g}_{a,c,d}=G^{f64,g}_{a,c,d}-F^{f64,g};];\n"},
      {"scalar_reduction_under_b",
       "input A f64[16,8]\noutput G f64[]\n"
       "B^{16}_{tx=0}L^{8}_{a=0}[F^{f64,g}_{tx,a}=max(1-A^{f64,g}_{tx,a},0);];"
       "B^{16}_{tx=0}L^{8}_{a=0}[H^{f64,g}=H^{f64,g}+F^{f64,g}_{tx,a};];"
       "B^{1}_{tx=0}[G^{f64,g}=H^{f64,g}/128;];\n"},
      {"gather",
       "input E f64[6,10]\ninput C i64[6]\noutput D f64[6]\n"
       "B^{6}_{tx=0}[I^{f64,g}_{tx}=-E^{f64,g}_{tx,C^{i64,g}_{tx}};];"
       "B^{6}_{tx=0}[D^{f64,g}_{tx}=I^{f64,g}_{tx}*2+E^{f64,g}_{C^{i64,g}_{tx}//2,9};];\n"},
      {"layout_scopes_floordiv",
       "input A f64[4,8]\noutput C f64[32]\n"
       "B^{32}_{tx=0}[D^{f64,l}_{tx}=A^{f64,g}_{tx//8,tx%8}*3;F^{f64,s}_{tx}=D^{f64,l}_{tx}-"
       "7.5//2;C^{f64,g}_{tx}=F^{f64,s}_{tx}+(tx%5)*1.5%1.25-A^{f64,g}_{3-tx//8,0}//0.75;];\n"},
      {"min_product_accumulations",
       "input A f64[5,7]\noutput C f64[5]\n"
       "B^{5}_{tx=0}L^{7}_{a=0}[M^{f64,g}_{tx}=min(A^{f64,g}_{tx,a},M^{f64,g}_{tx});"
       "Q^{f64,g}_{tx}=A^{f64,g}_{tx,a}*Q^{f64,g}_{tx};];"
       "B^{5}_{tx=0}[C^{f64,g}_{tx}=M^{f64,g}_{tx}+Q^{f64,g}_{tx};];\n"},
      // Accumulations over partially written tensors: the elements nobody wrote read the
      // identity even though the accumulation is not the tensor's first writer.
      {"max_after_partial_store",
       "input A f64[6]\noutput C f64[6]\n"
       "B^{2}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];"
       "B^{6}_{tx=0}[C^{f64,g}_{tx}=max(C^{f64,g}_{tx},-A^{f64,g}_{tx});];\n"},
      {"min_product_after_partial_store_f32",
       "input A f32[3,4]\noutput C f32[3,4]\noutput D f32[3,4]\n"
       "B^{3}_{tx=0}L^{2}_{a=0}[C^{f32,g}_{tx,a*2}=A^{f32,g}_{tx,a};D^{f32,g}_{tx,a+1}=A^{f32,g}_{"
       "tx,a};];"
       "B^{3}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=min(A^{f32,g}_{tx,a}+1,C^{f32,g}_{tx,a});"
       "D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}*3;];\n"},
      {"mixed_identities_tracked",
       "input A f64[4,3]\noutput C f64[4]\n"
       "B^{2}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,k};];"
       "B^{4}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=min(C^{f64,g}_{tx},A^{f64,g}_{tx,k}*2);];\n"},
      {"int_max_after_partial_store",
       "input A i32[5]\noutput C i32[5]\n"
       "B^{2}_{tx=0}[C^{i32,g}_{tx}=A^{i32,g}_{tx}+1;];"
       "B^{5}_{tx=0}[C^{i32,g}_{tx}=max(C^{i32,g}_{tx},A^{i32,g}_{tx}-5);];\n"},
      // A tiled, guarded padding copy (loop_tiling of a 1-D pool's padding block). GCC 12's
      // AVX-512 masked if-conversion computed this guard wrongly under -march=native (32 of
      // 80 elements zeroed); found by the dataset's independent re-check.
      {"tiled_guarded_padding",
       "input A f64[2,4,8]\noutput C f64[2,4,10]\n"
       "B^{2}_{tx=0}L^{2}_{f=0}L^{2}_{g=0}L^{2}_{a=0}L^{5}_{c=0}[C^{f64,g}_{tx,f*2+a,g*5+c}="
       "if_then_else(1<=g*5+c<9,A^{f64,g}_{tx,f*2+a,g*5+c-1},0);];\n"},
      // Reduction lanes (loop_vectorization of a reduction's innermost loop): OpenMP simd
      // reductions with +, *, and the NaN-propagating max/min; f64 and f32; a second block
      // that keeps accumulating into the same element.
      {"reduction_lanes_sum_product",
       "input A f64[3,4,8]\noutput C f64[3]\noutput D f64[3]\n"
       "B^{3}_{tx=0}L^{4}_{a=0}V^{8}_{c=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,a,c}*2;];"
       "B^{3}_{tx=0}V^{8}_{c=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx,0,c}+C^{f64,g}_{tx};];"
       "B^{3}_{tx=0}L^{4}_{a=0}V^{8}_{c=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}*(1+A^{f64,g}_{tx,a,c}/"
       "16);];\n"},
      // Lanes under a loop too long to jam (20 > 16 accumulators): one private accumulator.
      {"reduction_lanes_unjammed",
       "input A f64[20,3,16]\noutput C f64[20]\n"
       "B^{20}_{tx=0}L^{3}_{a=0}V^{16}_{c=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,a,c};];"
       "\n"},
      // The loops of a 4x4 register tile of a matrix product (A times C transposed), the k
      // tiles (g) collapsed with the lanes; 16 accumulators would spill, so 8 are jammed.
      {"register_tiled_matmul",
       "input A f64[8,32]\ninput C f64[8,32]\noutput F f64[8,8]\n"
       "L^{2}_{d=0}L^{2}_{f=0}B^{4}_{tx=0}L^{4}_{a=0}L^{2}_{g=0}V^{16}_{c=0}[F^{f64,g}_{d*4+tx,f*4+"
       "a}="
       "F^{f64,g}_{d*4+tx,f*4+a}+A^{f64,g}_{d*4+tx,g*16+c}*C^{f64,g}_{f*4+a,g*16+c};];\n"},
      // A 4x4 GEMM tile over whole 8-double vectors with a broadcast factor (S) and a
      // subtraction: on machines with AVX-512 its 512-bit version is the explicit jam, 16
      // vector accumulators and 8 loads held in registers (is_explicit_wide_lane_jam).
      {"explicit_wide_lane_jam",
       "input A f64[8,64]\ninput C f64[8,64]\ninput S f64[8]\noutput F f64[8,8]\n"
       "L^{2}_{d=0}L^{2}_{f=0}B^{4}_{tx=0}L^{4}_{a=0}L^{4}_{g=0}V^{16}_{c=0}[F^{f64,g}_{d*4+tx,f*4+"
       "a}="
       "F^{f64,g}_{d*4+tx,f*4+a}+A^{f64,g}_{d*4+tx,g*16+c}*C^{f64,g}_{f*4+a,g*16+c}*S^{f64,g}_{f*4+"
       "a}"
       "-A^{f64,g}_{d*4+tx,g*16+c}/2;];\n"},
      // A jam under a parallel loop: the B loop (too long to jam) is outlined into a parallel
      // region, and the f x a tile inside it is still jammed there.
      {"register_tiled_matmul_under_parallel_loop",
       "input A f64[32,128]\ninput C f64[16,128]\noutput F f64[32,16]\n"
       "L^{2}_{e=0}B^{32}_{tx=0}L^{2}_{f=0}L^{4}_{a=0}L^{8}_{g=0}V^{16}_{c=0}"
       "[F^{f64,g}_{tx,e*8+(f*4+a)}=F^{f64,g}_{tx,e*8+(f*4+a)}"
       "+A^{f64,g}_{tx,g*16+c}*C^{f64,g}_{e*8+(f*4+a),g*16+c};];\n"},
      // The same 4x4 tile over 5 lanes: GCC assembles each vector of the collapsed k loop
      // element by element, so sharing those loads outweighs spilling: all 16 are jammed.
      {"register_tiled_matmul_assembled_lanes",
       "input A f64[8,40]\ninput C f64[8,40]\noutput F f64[8,8]\n"
       "L^{2}_{d=0}L^{2}_{f=0}L^{4}_{tx=0}L^{4}_{a=0}L^{8}_{g=0}V^{5}_{c=0}[F^{f64,g}_{d*4+tx,f*4+"
       "a}="
       "F^{f64,g}_{d*4+tx,f*4+a}+A^{f64,g}_{d*4+tx,g*5+c}*C^{f64,g}_{f*4+a,g*5+c};];\n"},
      {"reduction_lanes_max_min_f32",
       "input A f32[5,2,16]\noutput C f32[5]\noutput D f32[5]\n"
       "B^{5}_{tx=0}L^{2}_{a=0}V^{16}_{c=0}[C^{f32,g}_{tx}=max(C^{f32,g}_{tx},A^{f32,g}_{tx,a,c});]"
       ";"
       "B^{5}_{tx=0}L^{2}_{a=0}V^{16}_{c=0}[D^{f32,g}_{tx}=min(A^{f32,g}_{tx,a,c}-1,D^{f32,g}_{tx})"
       ";];"
       "\n"},
      // Bound loops under sequential ones (loop_tiling of a bound loop moves the binding to
      // the inner tile): a 64-iteration tile runs sequentially, a large one in parallel.
      {"bound_loops_inside_serial_loops",
       "input A f64[8,16]\ninput H f64[16,32]\ninput X f64[64,512]\noutput F f64[8,32]\n"
       "output E f64[2,64,512]\n"
       "L^{2}_{d=0}L^{2}_{f=0}L^{16}_{c=0}B^{4}_{tx=0}V^{16}_{a=0}[F^{f64,g}_{d*4+tx,f*16+a}="
       "F^{f64,g}_{d*4+tx,f*16+a}+A^{f64,g}_{d*4+tx,c}*H^{f64,g}_{c,f*16+a};];"
       "L^{2}_{t=0}B^{64}_{tx=0}L^{512}_{a=0}[E^{f64,g}_{t,tx,a}=X^{f64,g}_{tx,a}*X^{f64,g}_{tx,a}"
       "+t;];\n"},
      // A convolution fused with its bias and ReLU under the (n, c_out, row) loops: G, of scope
      // l, lives in a 4-element array per row, filled with the identity on declaration; and a
      // bound pair collapsed into one parallel loop whose body declares its own slice of H.
      {"fused_row_local_slice",
       "input A f64[2,3,6,6]\nparam C f64[4,3,3,3]\nparam D f64[4]\noutput F f64[2,4,4,4]\n"
       "output K f64[2,4,5]\n"
       "B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{h=0}L^{3}_{g=0}L^{4}_{d=0}"
       "[G^{f64,l}_{tx,a,c,d}=G^{f64,l}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
       "L^{4}_{d=0}[G^{f64,l}_{tx,a,c,d}=G^{f64,l}_{tx,a,c,d}+D^{f64,g}_{a};"
       "F^{f64,g}_{tx,a,c,d}=max(G^{f64,l}_{tx,a,c,d},0);];];"
       "B^{2}_{tx=0}B^{4}_{ty=0}[L^{5}_{c=0}L^{6}_{d=0}[H^{f64,s}_{ty,tx,c}=max(H^{f64,s}_{ty,tx,c}"
       ","
       "A^{f64,g}_{tx,ty%3,c,d});];L^{5}_{c=0}[K^{f64,g}_{tx,ty,c}=H^{f64,s}_{ty,tx,c}*2;];];\n"},
      // A stride-2 transposed convolution's gather guard (negative floor `%` and `//` at the
      // edges), compared in int64; a comparison with a fractional side stays in double.
      {"strided_transposed_conv_guard",
       "input A f64[2,3,5]\nparam W f64[3,4,3]\noutput C f64[2,4,9]\noutput D f64[2,9]\n"
       "B^{2}_{tx=0}L^{4}_{a=0}L^{9}_{c=0}L^{3}_{g=0}L^{3}_{h=0}[C^{f64,g}_{tx,a,c}="
       "C^{f64,g}_{tx,a,c}+if_then_else((c+1-h)%2==0&0<=(c+1-h)//2<5,"
       "A^{f64,g}_{tx,g,(c+1-h)//2}*W^{f64,g}_{g,a,h},0);];"
       "B^{2}_{tx=0}L^{9}_{c=0}[D^{f64,g}_{tx,c}=if_then_else((c-4)%3<c*0.5,"
       "A^{f64,g}_{tx,0,c//2},-1);];"
       "\n"},
      // Guarded accumulations whose innermost loop (16+ iterations) runs over the range its guard
      // allows (guarded_loop_range): a dilated transposed convolution's output loop, a tap
      // loop bounded through a coefficient of -3 with negative numerators (floor and ceil), an
      // exclusive prefix sum whose first row's range is empty, and a max with -inf whose guard
      // keeps a link without the loop variable (a>=1) as a test inside the loop.
      {"guarded_accumulation_ranges",
       "input A f64[2,3,20]\nparam W f64[3,4,3]\ninput Y f64[20]\ninput X f64[2,20]\n"
       "output C f64[2,4,24]\noutput S f64[40]\noutput P f64[2,20]\noutput M f64[2,5]\n"
       "B^{2}_{tx=0}L^{4}_{a=0}L^{3}_{d=0}L^{3}_{f=0}L^{24}_{c=0}[C^{f64,g}_{tx,a,c}="
       "C^{f64,g}_{tx,a,c}+if_then_else(0<=c-f*2<20,A^{f64,g}_{tx,d,c-f*2}*W^{f64,g}_{d,a,f},0);];"
       "L^{40}_{c=0}L^{16}_{f=0}[S^{f64,g}_{c}=if_then_else(0<=c-f*3<20,Y^{f64,g}_{c-f*3},0)+"
       "S^{f64,g}_{c};];"
       "B^{2}_{tx=0}L^{20}_{a=0}L^{20}_{c=0}[P^{f64,g}_{tx,a}=P^{f64,g}_{tx,a}+"
       "if_then_else(c<a,X^{f64,g}_{tx,c},0);];"
       "B^{2}_{tx=0}L^{5}_{a=0}L^{20}_{c=0}[M^{f64,g}_{tx,a}=max(M^{f64,g}_{tx,a},"
       "if_then_else(a>=1&3*c+1<2*a+40&c>=a,X^{f64,g}_{tx,c}*(a+1),(-inf)));];"
       "\n"},
      // Rows kept in vector registers across the loops that reduce into them
      // (find_stationary_tile): a convolution row of 10 over its 27 taps (vectors at 0, 4 and
      // an overlapping one at 6); a 6x6 GEMM micro-kernel whose two row loops are unrolled
      // around k, subtracting a scaled, divided product; and rows of 5 (vectors at 0 and 1).
      {"stationary_vector_tiles",
       "input A f64[2,3,6,12]\nparam C f64[4,3,3,3]\ninput X f64[6,16]\ninput Y f64[16,6]\n"
       "output G f64[2,4,4,10]\noutput E f64[6,6]\noutput R f64[5,5]\n"
       "B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{h=0}L^{3}_{g=0}L^{10}_{d=0}"
       "[G^{f64,g}_{tx,a,c,d}=G^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];]"
       ";"
       "L^{2}_{i=0}L^{16}_{k=0}U^{3}_{j=0}L^{6}_{n=0}[E^{f64,g}_{i*3+j,n}=E^{f64,g}_{i*3+j,n}-"
       "0.5*X^{f64,g}_{i*3+j,k}*Y^{f64,g}_{k,n}/3;];"
       "L^{5}_{a=0}L^{8}_{c=0}L^{5}_{d=0}[R^{f64,g}_{a,d}=R^{f64,g}_{a,d}+X^{f64,g}_{a,c*2}*"
       "Y^{f64,g}_{c*2,d};];\n"},
      // A convolution row of 10 jammed over 4 output channels (G's channel dimension split by
      // 4, the loops split and fused under (n, channel block, row)): the input row each tap
      // reads is the same vectors for every channel, W's row is not (it moves with a).
      {"jammed_wide_tiles",
       "input A f64[2,3,6,12]\nparam C f64[8,3,3,3]\nparam W f64[4,10]\n"
       "output F f64[2,8,4,10]\n"
       "B^{2}_{tx=0}L^{2}_{i=0}L^{4}_{c=0}[L^{4}_{a=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}"
       "L^{10}_{d=0}[G^{f64,l}_{tx,i,a,c,d}=G^{f64,l}_{tx,i,a,c,d}+C^{f64,g}_{i*4+a,f,g,h}*"
       "A^{f64,g}_{tx,f,c+g,d+h}-W^{f64,g}_{a,d};];L^{4}_{a=0}L^{10}_{d=0}"
       "[F^{f64,g}_{tx,i*4+a,c,d}=G^{f64,l}_{tx,i,a,c,d}*2;];];\n"},
      // Convolutions the C backend jams over output channels itself (jam_tile_channels): one
      // fused with its bias under (n, channel, row), its row G split for the jam and read by
      // the next block at the same flat offset; one whose loops are all in one header.
      {"channel_jammed_convolutions",
       "input A f64[2,3,16,12]\nparam C f64[8,3,3,3]\nparam D f64[8]\noutput E f64[2,8,4,10]\n"
       "output F f64[2,4,14,10]\n"
       "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{h=0}L^{3}_{g=0}L^{10}_{d=0}"
       "[G^{f64,l}_{tx,a,c,d}=G^{f64,l}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
       "L^{10}_{d=0}[G^{f64,l}_{tx,a,c,d}=G^{f64,l}_{tx,a,c,d}+D^{f64,g}_{a};];];"
       "B^{2}_{tx=0}L^{8}_{a=0}L^{4}_{c=0}L^{10}_{d=0}[E^{f64,g}_{tx,a,c,d}="
       "exp(G^{f64,l}_{tx,a,c,d}/8);];"
       "B^{2}_{tx=0}L^{4}_{a=0}L^{14}_{c=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{10}_{d=0}"
       "[F^{f64,g}_{tx,a,c,d}=F^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a*2,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};]"
       ";\n"},
      // Short rows of contiguous nests merged into one loop (merged_innermost_loops): an
      // elementwise exp nest (rows of 7 and 5 -> 35; a's X subscript keeps a), a sum of a whole
      // sample into one element (all three loops -> 210), two statements over a vectorized
      // row, one reading rows shifted by one inside a padded tensor (P's c+1), and a nest whose
      // condition reads the row variable, which stays as written.
      {"merged_short_rows",
       "input A f64[4,6,5,7]\ninput X f64[6]\ninput P f64[4,6,7,7]\noutput C f64[4,6,5,7]\n"
       "output D f64[4]\noutput E f64[4,6,5,7]\noutput F f64[4,6,5,7]\noutput G f64[4,6,5,7]\n"
       "B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f64,g}_{tx,a,c,d}="
       "exp(A^{f64,g}_{tx,a,c,d})*X^{f64,g}_{a}+1;];"
       "B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+"
       "A^{f64,g}_{tx,a,c,d};];"
       "B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}V^{7}_{d=0}[E^{f64,g}_{tx,a,c,d}=P^{f64,g}_{tx,a,c+1,d}*"
       "2;"
       "F^{f64,g}_{tx,a,c,d}=A^{f64,g}_{tx,a,c,d}-1;];"
       "B^{4}_{tx=0}L^{6}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[G^{f64,g}_{tx,a,c,d}="
       "if_then_else(d<3,A^{f64,g}_{tx,a,c,d},0);];\n"},
  };
  return programs;
}

}  // namespace steptp::codegen::testing
