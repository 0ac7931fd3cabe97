// Planted bugs for the Python suite's error reports (built with -g, so each
// finding names its line here): every op copies its float32 input to the
// destination, and each plants one bug at the line marked "the bug".
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// A helper one call below the op: the store's frame is here, the op's above.
__attribute__((noinline)) static void fill_one_past(float* out, const float* in, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = in[i];
  out[n] = 0.0f;  // the bug: one element past the end
}

torch::Tensor stray_store(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  fill_one_past((float*)t_out.data_ptr(), (const float*)t_in.data_ptr(), t_in.numel());
  return t_out;
}

// The store past the end is the SDK's memcpy's; the op's line asked for it.
torch::Tensor copy_past_end(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  memcpy(t_out.data_ptr(), t_in.data_ptr(), (t_in.numel() + 4) * sizeof(float));  // the bug
  return t_out;
}

// Stages 8 elements more than the tensor has through TCM: the SDK's range
// check stops the op (with sdk checks off, as on hardware, it reads on).
torch::Tensor tcm_overrun(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  size_t n = t_in.numel();
  float* buffer = (float*)torch::neuron::tcm_malloc(sizeof(float) * (n + 8));
  if (buffer == nullptr) abort();
  t_in.tcm_accessor().tensor_to_tcm<float>(buffer, 0, n + 8);  // the bug
  t_out.tcm_accessor().tcm_to_tensor<float>(buffer, 0, n);
  torch::neuron::tcm_free(buffer);
  return t_out;
}

// Gives up on negative input, through the runtime's abort().
torch::Tensor abort_on_negative(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  const float* in = (const float*)t_in.data_ptr();
  float* out = (float*)t_out.data_ptr();
  for (int64_t i = 0; i < t_in.numel(); i++) {
    if (in[i] < 0.0f) abort();  // the bug
    out[i] = in[i];
  }
  return t_out;
}

// The gradient is shorter than the input: reads past the gradient's end
// (aws relu_backward called with mismatched shapes).
torch::Tensor overread(const torch::Tensor& grad, const torch::Tensor& x) {
  torch::Tensor t_out = get_dst_tensor();
  auto g = grad.accessor<float, 1>();
  auto in = x.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i < x.numel(); i++) out[i] = in[i] > 0.0f ? g[i] : 0.0f;  // the bug: past grad's end
  return t_out;
}

// Reads a TCM buffer after tcm_free.
torch::Tensor freed_tcm_read(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(16 * sizeof(float));
  if (buffer == nullptr) abort();
  for (int i = 0; i < 16; i++) buffer[i] = (float)i;
  torch::neuron::tcm_free(buffer);
  volatile float* stale = buffer;
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i < t_out.numel(); i++) out[i] = stale[i % 16];  // the bug: freed TCM
  return t_out;
}

// Reads a TCM buffer nothing wrote.
torch::Tensor uninit_tcm_read(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(16 * sizeof(float));
  if (buffer == nullptr) abort();
  volatile float* fresh = buffer;
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i < t_out.numel(); i++) out[i] = fresh[i % 16];  // the bug: TCM nothing wrote
  torch::neuron::tcm_free(buffer);
  return t_out;
}

// Reads the odd elements of a local array, which nothing wrote (the array
// lies deeper in the stack than any frame that ran before).
torch::Tensor uninit_stack_read(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  volatile float scratch[256];
  for (int i = 0; i < 256; i += 2) scratch[i] = (float)i;
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i < t_out.numel(); i++) out[i] = scratch[i % 256];  // the bug: a local nothing wrote
  return t_out;
}

// A plain copy; its shape function is the one that fails (on 1-D input).
torch::Tensor copy_2d(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  memcpy(t_out.data_ptr(), t_in.data_ptr(), t_in.numel() * sizeof(float));
  return t_out;
}
