// Ops that misbehave in other ways, for q7 run's limits and checks:
// spin_forward never returns (its loop count is data the compiler cannot
// see); peek_forward reads the destination before writing it; scale_forward
// takes a tensor, a scalar, a double and an int and prints from every core.
#include <stdint.h>
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor spin_forward(const torch::Tensor& t_in) {
  volatile uint32_t stop = 0;
  uint32_t x = 1;
  while (!stop) x = x * 1664525u + 1013904223u;
  auto out = torch::zeros({1}, torch::kFloat);
  out.accessor<float, 1>()[0] = (float)x;
  return out;
}

torch::Tensor peek_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  auto out = t_out.accessor<float, 1>();
  float first = out[0];  // never written: flagged
  out[0] = first + t_in.accessor<float, 1>()[0];
  for (int64_t i = 1; i < t_in.numel(); i++) out[i] = 0.0f;
  return t_out;
}

torch::Tensor scale_forward(const torch::Tensor& t_in, torch::Scalar s, double d, int64_t k) {
  size_t n = t_in.numel();
  torch::Tensor t_out = torch::empty({(int64_t)n}, torch::kFloat);
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  float scale = (float)(s.toDouble() * d);
  for (size_t i = 0; i < n; i++) out[i] = in[i] * scale + (float)k;
  printf("scaled %d elements by %d/1000 plus %d\n", (int)n, (int)(scale * 1000.0f), (int)k);
  return t_out;
}
