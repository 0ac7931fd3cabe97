// ReLU with the element-wise accessor, in the style of the Neuron custom C++
// operator documentation (developer guide / MLP tutorial).
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);

  auto t_in_acc = t_in.accessor<float, 1>();
  auto t_out_acc = t_out.accessor<float, 1>();
  for (size_t i = 0; i < num_elem; i++) {
    t_out_acc[i] = t_in_acc[i] > 0.0 ? t_in_acc[i] : 0.0;
  }
  return t_out;
}
