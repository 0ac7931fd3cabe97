// Reads the hardware lets through and q7 must report, each with the op's
// line: an elementwise backward whose gradient is smaller than its input
// (aws relu_backward called with mismatched shapes), a read of TCM after
// tcm_free, and a read of TCM nothing wrote.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor overread_backward(const torch::Tensor& grad, const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  auto g = grad.accessor<float, 1>();
  auto in = x.accessor<float, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = 0; i < (size_t)x.numel(); i++) {
    o[i] = in[i] > 0.0f ? g[i] : 0.0f;  // reads past grad's end
  }
  return out;
}

torch::Tensor freed_tcm_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(64 * sizeof(float));
  for (int i = 0; i < 64; i++) buffer[i] = (float)i;
  torch::neuron::tcm_free(buffer);
  auto o = out.accessor<float, 1>();
  volatile float* stale = buffer;
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = stale[i % 64];  // reads freed TCM
  return out;
}

torch::Tensor uninit_tcm_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(64 * sizeof(float));
  auto o = out.accessor<float, 1>();
  volatile float* fresh = buffer;
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = fresh[i % 64];  // reads TCM nothing wrote
  torch::neuron::tcm_free(buffer);
  return out;
}
