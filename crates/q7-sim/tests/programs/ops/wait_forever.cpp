// Eight cores each wait for a flag in the shared DRAM window that no core
// ever sets: a deadlock q7 must stop and name, core by core.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

static volatile uint32_t* const flag = (volatile uint32_t*)0x00080000;

torch::Tensor wait_forever(const torch::Tensor& x) {
  while (*flag != get_cpu_id() + 100) {
  }
  return get_dst_tensor();
}
