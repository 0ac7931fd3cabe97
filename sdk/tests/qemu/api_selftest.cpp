// Exercises the <torch/torch.h> API of the SDK under QEMU with self-checks:
// factories, dtypes and promotion, element-wise operations and operators,
// accessors (random, stream, TCM), Half/BFloat16, views, reference counting.
#include <math.h>
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>
#include "launch_fixture.h"

namespace {

int checks = 0, failed = 0;

void check(bool ok, const char *what, int line) {
  checks++;
  if (!ok) {
    failed++;
    printf("FAIL line %d: %s\n", line, what);
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

bool near(double a, double b, double tol = 1e-6) { return fabs(a - b) <= tol * (1 + fabs(b)); }

void factories_and_shape() {
  torch::Tensor z = torch::zeros({2, 3}, torch::kFloat);
  CHECK(z.dim() == 2 && z.numel() == 6 && z.size(0) == 2 && z.size(-1) == 3 && z.stride(0) == 3);
  CHECK(z.sizes() == torch::IntArrayRef({2, 3}));
  CHECK(z.scalar_type() == torch::kFloat && z.element_size() == 4 && z.is_contiguous());
  torch::Tensor o = torch::ones({4}, torch::TensorOptions().dtype(torch::kInt));
  CHECK(o.scalar_type() == torch::kInt && o.data_ptr<int32_t>()[3] == 1);
  torch::Tensor f = torch::full({3}, 2.5, torch::kHalf);
  CHECK((float)f.data_ptr<c10::Half>()[2] == 2.5f);
  torch::Tensor e = torch::eye(3, torch::kFloat);
  auto ea = e.accessor<float, 2>();
  CHECK(ea[0][0] == 1 && ea[1][1] == 1 && ea[0][1] == 0 && ea[2][1] == 0);
  torch::Tensor r = torch::arange(5);
  CHECK(r.scalar_type() == torch::kLong && r.numel() == 5 && r.data_ptr<int64_t>()[4] == 4);
  size_t n = 7;
  torch::Tensor v = torch::empty({n}, torch::kByte);
  CHECK(v.numel() == 7 && v.nbytes() == 7);
}

void elementwise() {
  torch::Tensor a = torch::arange(0, 6, 1, torch::kFloat).reshape({2, 3});
  torch::Tensor b = torch::full({2, 3}, 2.0, torch::kFloat);
  auto sum = torch::add(a, b, 0.5);
  CHECK(sum.data_ptr<float>()[5] == 6.0f);
  auto prod = a * b - 1;
  CHECK(prod.data_ptr<float>()[4] == 7.0f);
  auto q = a / b;
  CHECK(q.data_ptr<float>()[3] == 1.5f);
  auto neg = -a;
  CHECK(neg.data_ptr<float>()[2] == -2.0f);
  auto rl = torch::relu(neg + 1);
  CHECK(rl.data_ptr<float>()[0] == 1.0f && rl.data_ptr<float>()[3] == 0.0f);
  auto ex = torch::exp(a);
  CHECK(near(ex.data_ptr<float>()[1], 2.718281828));
  auto sg = torch::sigmoid(a);
  CHECK(near(sg.data_ptr<float>()[0], 0.5));
  auto th = torch::tanh(a);
  CHECK(near(th.data_ptr<float>()[1], 0.761594156));
  auto lg = torch::log(b);
  CHECK(near(lg.data_ptr<float>()[0], 0.693147181));
  auto sq = torch::sqrt(b);
  CHECK(near(sq.data_ptr<float>()[0], 1.414213562));
  auto cl = torch::clamp(a, 1, 3);
  CHECK(cl.data_ptr<float>()[0] == 1 && cl.data_ptr<float>()[5] == 3);
  auto mx = torch::maximum(a, b), mn = torch::minimum(a, b);
  CHECK(mx.data_ptr<float>()[0] == 2 && mn.data_ptr<float>()[5] == 2);
  torch::Tensor out = torch::empty({2, 3}, torch::kFloat);
  torch::exp_out(out, b);
  CHECK(near(out.data_ptr<float>()[0], 7.389056099));
  a += 1;
  a *= b;
  CHECK(a.data_ptr<float>()[2] == 6.0f);
  auto cmp = torch::gt(a, b);
  CHECK(cmp.scalar_type() == torch::kBool && cmp.data_ptr<bool>()[0] == false && cmp.data_ptr<bool>()[1] == true);
  auto pw = torch::pow(b, 3);
  CHECK(pw.data_ptr<float>()[0] == 8.0f);
}

void dtypes() {
  torch::Tensor i = torch::arange(-3, 3, 1, torch::kInt);
  auto f = i + 0.5;  // int tensor with a float scalar -> kFloat
  CHECK(f.scalar_type() == torch::kFloat && f.data_ptr<float>()[0] == -2.5f);
  auto ai = torch::abs(i);
  CHECK(ai.scalar_type() == torch::kInt && ai.data_ptr<int32_t>()[0] == 3);
  auto di = torch::div(i, 2);
  CHECK(di.scalar_type() == torch::kFloat && di.data_ptr<float>()[1] == -1.0f);
  auto h = torch::full({4}, 1.0 / 3.0, torch::kHalf);
  auto h2 = h * 3;
  CHECK(h2.scalar_type() == torch::kHalf && (float)h2.data_ptr<c10::Half>()[0] == 1.0f);
  auto bf = torch::full({4}, 3.0, torch::kBFloat16);
  auto bf2 = torch::exp(bf);
  CHECK(bf2.scalar_type() == torch::kBFloat16 && near((float)bf2.data_ptr<c10::BFloat16>()[0], 20.0, 1e-2));
  auto d = torch::full({2}, 2.0, torch::kDouble);
  auto dl = torch::log(d) * 2;
  CHECK(dl.scalar_type() == torch::kDouble && near(dl.data_ptr<double>()[0], 1.386294361119891, 1e-15));
  auto l = torch::full({2}, (int64_t)1 << 40, torch::kLong);
  auto l2 = l * 3 + 1;
  CHECK(l2.data_ptr<int64_t>()[1] == ((int64_t)3 << 40) + 1);
  auto conv = i.to(torch::kDouble);
  CHECK(conv.data_ptr<double>()[0] == -3.0);
  c10::Half half = 65519.0f;  // rounds to the largest finite half
  c10::BFloat16 b16 = 1.00390625f;  // a tie: rounds to even (1.0)
  CHECK((float)half == 65504.0f && (float)b16 == 1.0f);
  torch::Scalar s = 3;
  CHECK(s.isIntegral(false) && s.toDouble() == 3.0 && torch::Scalar(2.5).toFloat() == 2.5f);
}

void accessors_and_memory() {
  torch::Tensor t = torch::arange(0, 12, 1, torch::kFloat).view({3, 4});
  const torch::Tensor &ct = t;
  auto acc = ct.accessor<float, 2>();
  CHECK(acc[2][3] == 11.0f && acc.size(1) == 4 && acc.stride(0) == 4);
  auto rd = ct.read_stream_accessor<float>();
  torch::Tensor w = torch::empty({3, 4}, torch::kFloat);
  auto wr = w.write_stream_accessor<float>();
  for (int k = 0; k < 12; k++) wr.write(rd.read() * 2);
  wr.close();
  CHECK(w.data_ptr<float>()[11] == 22.0f);
  float *tcm = (float *)torch::neuron::tcm_malloc(sizeof(float) * 8);
  CHECK(tcm != nullptr);
  auto tin = ct.tcm_accessor();
  auto tout = w.tcm_accessor();
  tin.tensor_to_tcm<float>(tcm, 4, 8);
  CHECK(tcm[0] == 4.0f && tcm[7] == 11.0f);
  tcm[0] = -1;
  tout.tcm_to_tensor<float>(tcm, 0, 1);
  CHECK(w.data_ptr<float>()[0] == -1.0f);
  torch::neuron::tcm_free(tcm);
  void *big = torch::neuron::tcm_malloc(20000);  // more than the 16 KiB pool
  CHECK(big == nullptr);
  torch::Tensor one = torch::full({1}, 42, torch::kInt);
  CHECK(one.item<int>() == 42);
  // Reference counting: a loop that would exhaust the 1 MiB heap without it.
  for (int k = 0; k < 200; k++) {
    torch::Tensor big_tmp = torch::zeros({16384}, torch::kFloat);  // 64 KiB each
    big_tmp = torch::exp(big_tmp);
    CHECK(big_tmp.data_ptr<float>()[k] == 1.0f || k >= 1);
  }
  torch::Tensor filled = torch::empty({5}, torch::kShort);
  filled.fill_(-7);
  CHECK(filled.data_ptr<int16_t>()[4] == -7);
  CHECK(get_cpu_id() == 0 && get_cpu_count() == 1);
}

q7_arg no_args[1];

}  // namespace

extern "C" int q7_main(void) {
  q7_fixture::launch(0, 1, no_args, 0, nullptr);
  factories_and_shape();
  elementwise();
  dtypes();
  accessors_and_memory();
  printf("api: %d checks, %d failed\n", checks, failed);
  return failed;
}
