// Multicore op with a seeded out-of-bounds store: every core writes its
// partition of the destination, and core `bad_core` also writes the element
// `past` positions after the end of the tensor (aws-neuron-sdk issue #1019:
// the hardware says nothing). q7 run must name that core and element.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor oob_forward(const torch::Tensor& t_in, int64_t bad_core, int64_t past) {
  size_t n = t_in.numel();
  torch::Tensor t_out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t part = n / count, begin = part * id, end = id == count - 1 ? n : begin + part;
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (size_t i = begin; i < end; i++) out[i] = in[i] * 2.0f;
  if ((int64_t)id == bad_core) out[n + past] = 1.0f;  // the bug
  return t_out;
}
