// Planted bugs for `q7 debug` sessions (crates/q7/tests/cli/debug_sessions.rs):
// each op computes y = 2 x over its input, and each gets it wrong in one way
// an op author meets. The sessions stop at the wrong store and print the
// values that show the bug.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// A rows x cols tensor walked with the row count as the row stride.
torch::Tensor stride_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  int64_t rows = x.size(0), cols = x.size(1);
  float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < cols; j++) {
      o[i * cols + j] = 2.0f * in[i * rows + j];  // stride: rows, not cols
    }
  }
  return out;
}

// Eight cores over one tensor, each one element too far.
torch::Tensor overlap_forward(const torch::Tensor& x) {
  size_t n = x.numel();
  torch::Tensor out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t part = n / count, begin = part * id, end = begin + part + (id + 1 < count ? 1 : 0);
  auto in = x.accessor<float, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = begin; i < end; i++) {
    o[i] = 2.0f * in[i];  // off by one: the next core's first element too
  }
  return out;
}
