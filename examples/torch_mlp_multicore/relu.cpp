// ReLU forward and backward on all eight cores through TCM, as in the Neuron
// custom-operator performance tutorial (neuron-multicore/relu.cpp): each core
// takes the slice get_cpu_id() names, stages it through its 16 KiB TCM pool
// and writes the output tensor get_dst_tensor() returns. The last core takes
// the remainder when the size is not a multiple of the core count.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

static constexpr size_t kBlock = 1024;  // elements per TCM buffer (4 KiB)

// [first, first + count) of the flat tensor for this core.
static void my_slice(size_t num_elem, size_t* first, size_t* count) {
  uint32_t cpu_id = get_cpu_id();
  uint32_t cpu_count = get_cpu_count();
  size_t partition = num_elem / cpu_count;
  *first = partition * cpu_id;
  *count = cpu_id == cpu_count - 1 ? num_elem - partition * (cpu_count - 1) : partition;
}

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  size_t first, count;
  my_slice(t_in.numel(), &first, &count);

  float* buffer = (float*)torch::neuron::tcm_malloc(sizeof(float) * kBlock);
  if (buffer == nullptr) abort();
  auto t_in_tcm = t_in.tcm_accessor();
  auto t_out_tcm = t_out.tcm_accessor();
  for (size_t i = 0; i < count; i += kBlock) {
    size_t n = count - i > kBlock ? kBlock : count - i;
    t_in_tcm.tensor_to_tcm<float>(buffer, first + i, n);
    for (size_t j = 0; j < n; j++) buffer[j] = buffer[j] > 0.0f ? buffer[j] : 0.0f;
    t_out_tcm.tcm_to_tensor<float>(buffer, first + i, n);
  }
  torch::neuron::tcm_free(buffer);
  return t_out;
}

torch::Tensor relu_backward(const torch::Tensor& t_grad, const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  size_t first, count;
  my_slice(t_in.numel(), &first, &count);

  float* grad = (float*)torch::neuron::tcm_malloc(sizeof(float) * kBlock);
  float* in = (float*)torch::neuron::tcm_malloc(sizeof(float) * kBlock);
  if (grad == nullptr || in == nullptr) abort();
  auto t_grad_tcm = t_grad.tcm_accessor();
  auto t_in_tcm = t_in.tcm_accessor();
  auto t_out_tcm = t_out.tcm_accessor();
  for (size_t i = 0; i < count; i += kBlock) {
    size_t n = count - i > kBlock ? kBlock : count - i;
    t_grad_tcm.tensor_to_tcm<float>(grad, first + i, n);
    t_in_tcm.tensor_to_tcm<float>(in, first + i, n);
    for (size_t j = 0; j < n; j++) grad[j] = in[j] > 0.0f ? grad[j] : 0.0f;
    t_out_tcm.tcm_to_tensor<float>(grad, first + i, n);
  }
  torch::neuron::tcm_free(in);
  torch::neuron::tcm_free(grad);
  return t_out;
}
