// Multicore op with a seeded race: core `a` also writes element `index`,
// which belongs to another core's partition. q7 run must report two cores
// writing the same output element.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor race_forward(const torch::Tensor& t_in, int64_t a, int64_t index) {
  size_t n = t_in.numel();
  torch::Tensor t_out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t part = n / count, begin = part * id, end = id == count - 1 ? n : begin + part;
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (size_t i = begin; i < end; i++) out[i] = in[i] + 1.0f;
  if ((int64_t)id == a) out[index] = -1.0f;  // the bug
  return t_out;
}
