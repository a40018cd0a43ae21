// A oneDNN f32 binary-add primitive on 8 elements, on the CPU engine.
#include <vector>

#include "gtest/gtest.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace {

TEST(OneDnnSmoke, BinaryAdd) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl::memory::dims dims = {8};
  dnnl::memory::desc md(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  std::vector<float> a(8), b(8), c(8, 0.f);
  for (int i = 0; i < 8; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 10.f * static_cast<float>(i);
  }
  dnnl::memory ma(md, eng, a.data()), mb(md, eng, b.data()), mc(md, eng, c.data());
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(dnnl::algorithm::binary_add, md, md, md), eng);
  dnnl::binary(pd).execute(strm, {{DNNL_ARG_SRC_0, ma}, {DNNL_ARG_SRC_1, mb}, {DNNL_ARG_DST, mc}});
  strm.wait();
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(c[i], 11.f * static_cast<float>(i)) << i;
}

}  // namespace
