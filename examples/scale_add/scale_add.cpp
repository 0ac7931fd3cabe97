// y = x + alpha * x, element-wise: what torch.add(x, x, alpha=alpha) computes.
// A `float` in the schema arrives as a C++ double; the loop runs in single
// precision, so alpha is rounded to float once. The product and the sum are
// separate statements so the compiler keeps two roundings (no fused
// multiply-add), exactly as the host reference computes them.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor scale_add(const torch::Tensor& x, double alpha) {
  size_t num_elem = x.numel();
  torch::Tensor y = torch::empty(x.sizes(), torch::kFloat);

  const float a = (float)alpha;
  auto x_acc = x.read_stream_accessor<float>();
  auto y_acc = y.write_stream_accessor<float>();
  for (size_t i = 0; i < num_elem; i++) {
    float v = x_acc.read();
    float scaled = a * v;
    y_acc.write(v + scaled);
  }
  x_acc.close();
  y_acc.close();
  return y;
}
