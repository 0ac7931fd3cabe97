// Multicore op whose cores print as they go: lines at uneven points of each
// core's work (core k works k + 1 times as long), a line left open across
// turns, and a line on stderr at the end. The eight cores' console text
// interleaves by scheduler turns, which the parallel schedule must keep.
#include <stdint.h>
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor chatter_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t n = t_in.numel();
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  float acc = 0.0f;
  for (uint32_t step = 0; step < 6; step++) {
    for (uint32_t round = 0; round <= id; round++) {
      for (size_t i = id; i < n; i += count) acc += in[i] * (float)(step + 1);
    }
    printf("core %u step %u acc %d\n", (unsigned)id, (unsigned)step, (int)acc);
    if (step == 3) printf("an open line from core %u, ", (unsigned)id);
  }
  fprintf(stderr, "core %u done\n", (unsigned)id);
  for (size_t i = id; i < n; i += count) out[i] = acc;
  return t_out;
}
