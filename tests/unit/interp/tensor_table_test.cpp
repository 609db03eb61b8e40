// Shape inference of intermediates: the exact bounding box of all writes.
#include "leir/tensor_table.h"

#include <gtest/gtest.h>

#include "program_fixture.h"

namespace steptp::interp::testing {
namespace {

std::vector<int64_t> shape_of(const std::string& text, const std::string& name) {
  auto t = leir::infer_tensor_table(parse_or_die(text));
  if (!t.ok()) {
    ADD_FAILURE() << t.error().render();
    return {};
  }
  const leir::TensorInfo* info = t->find(name);
  if (info == nullptr) return {-1};
  return info->shape;
}

const std::string kDecl = "input A f64[4000]\noutput C f64[1]\n";

TEST(TensorTable, DecreasingIndex) {
  EXPECT_EQ(shape_of(kDecl + "L^{4000}_{a=0}[X^{f64,g}_{3999-a}=A^{f64,g}_{a};];B^{1}_{tx=0}[C^{"
                             "f64,g}_{0}=X^{f64,g}_{0};];",
                     "X"),
            (std::vector<int64_t>{4000}));
  // 12-a over a in [0,9] covers [3,12]: the box reaches 12.
  EXPECT_EQ(
      shape_of(
          kDecl + "L^{10}_{a=0}[X^{f64,g}_{12-a}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{3};];",
          "X"),
      (std::vector<int64_t>{13}));
}

TEST(TensorTable, AffineConstantAndModuloSubscripts) {
  EXPECT_EQ(shape_of(kDecl + "B^{2}_{tx=0}L^{4}_{a=0}L^{8}_{c=0}[X^{f64,g}_{tx,a*8+c,0}=1;];"
                             "B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{0,0,0};];",
                     "X"),
            (std::vector<int64_t>{2, 32, 1}));
  EXPECT_EQ(
      shape_of(
          kDecl +
              "L^{10}_{a=0}[X^{f64,g}_{a%4,a//3}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{0,0};];",
          "X"),
      (std::vector<int64_t>{4, 4}));
  // (a+2)%8 with a in [0,3] stays within one period: [2,5].
  EXPECT_EQ(
      shape_of(
          kDecl + "L^{4}_{a=0}[X^{f64,g}_{(a+2)%8}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{2};];",
          "X"),
      (std::vector<int64_t>{6}));
}

TEST(TensorTable, UnionOfWritesAndOrder) {
  auto t = leir::infer_tensor_table(parse_or_die(
      kDecl +
      "L^{3}_{a=0}[Y^{f32,s}_{a}=1;];L^{5}_{a=0}[X^{f64,g}_{a,1}=Y^{f32,s}_{0};];"
      "L^{2}_{a=0}[X^{f64,g}_{a+6,0}=2;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{0,0};];"));
  ASSERT_TRUE(t.ok()) << t.error().render();
  ASSERT_EQ(t->tensors.size(), 4u);
  EXPECT_EQ(t->tensors[0].name, "A");
  EXPECT_EQ(t->tensors[1].name, "C");
  EXPECT_EQ(t->tensors[2].name, "Y");
  EXPECT_EQ(t->tensors[2].dtype, leir::DType::kF32);
  EXPECT_EQ(t->tensors[2].scope, leir::Scope::kShared);
  EXPECT_EQ(t->tensors[3].name, "X");
  EXPECT_EQ(t->tensors[3].shape, (std::vector<int64_t>{8, 2}));
}

TEST(TensorTable, Errors) {
  auto negative = leir::infer_tensor_table(parse_or_die(
      kDecl + "L^{4}_{a=0}[X^{f64,g}_{a-1}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{0};];"));
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().category, "ill_formed");
  EXPECT_NE(negative.error().message.find("write to X may have a negative index"),
            std::string::npos)
      << negative.error().message;

  auto never =
      leir::infer_tensor_table(parse_or_die(kDecl + "B^{1}_{tx=0}[C^{f64,g}_{0}=Z^{f64,g}_{0};];"));
  ASSERT_FALSE(never.ok());
  EXPECT_NE(never.error().message.find("never written"), std::string::npos);

  auto gather = leir::infer_tensor_table(parse_or_die(
      "input A f64[4]\ninput J i64[4]\noutput C f64[1]\n"
      "L^{4}_{a=0}[X^{f64,g}_{J^{i64,g}_{a}}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f64,g}_{0};];"));
  EXPECT_FALSE(gather.ok());

  auto conflict = leir::infer_tensor_table(parse_or_die(
      kDecl + "L^{4}_{a=0}[X^{f64,g}_{a}=1;];B^{1}_{tx=0}[C^{f64,g}_{0}=X^{f32,g}_{0};];"));
  EXPECT_FALSE(conflict.ok());
}

}  // namespace
}  // namespace steptp::interp::testing
