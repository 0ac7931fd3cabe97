// Reductions over a 1-D float tensor, each returning a 1-element tensor:
// reduce_sum adds the elements in index order in single precision (so the
// result is reproducible bit for bit), reduce_max returns the largest element
// and propagates NaN as torch.max does.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor reduce_sum(const torch::Tensor& x) {
  int64_t n = x.size(0);
  auto x_acc = x.accessor<float, 1>();
  float sum = 0.0f;
  for (int64_t i = 0; i < n; i++) {
    sum += x_acc[i];
  }
  torch::Tensor out = torch::empty({1}, torch::kFloat);
  out.accessor<float, 1>()[0] = sum;
  return out;
}

torch::Tensor reduce_max(const torch::Tensor& x) {
  int64_t n = x.size(0);
  if (n == 0) {
    abort();  // torch.max of an empty tensor is an error too
  }
  auto x_acc = x.accessor<float, 1>();
  float best = x_acc[0];
  for (int64_t i = 1; i < n; i++) {
    float v = x_acc[i];
    if (v > best || v != v) {
      best = v;
    }
    if (best != best) {
      break;
    }
  }
  torch::Tensor out = torch::empty({1}, torch::kFloat);
  out.accessor<float, 1>()[0] = best;
  return out;
}
