// ReLU with the stream accessors of the Neuron custom C++ operator API: the
// input is read and the output written strictly in order, one element at a
// time (read_stream_accessor / write_stream_accessor).
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);

  auto t_in_acc = t_in.read_stream_accessor<float>();
  auto t_out_acc = t_out.write_stream_accessor<float>();
  for (size_t i = 0; i < num_elem; i++) {
    float val = t_in_acc.read();
    t_out_acc.write(val > 0.0f ? val : 0.0f);
  }
  t_in_acc.close();
  t_out_acc.close();
  return t_out;
}
