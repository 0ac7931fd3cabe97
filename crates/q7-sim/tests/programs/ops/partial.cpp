// An op that leaves part of its output unwritten: every core writes only the
// even elements of its slice of the destination tensor (the odd ones keep the
// zeros they started with, which hardware would not guarantee).
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor evens_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  int64_t n = t_in.numel();
  int64_t cores = get_cpu_count(), id = get_cpu_id();
  int64_t per = (n + cores - 1) / cores;
  int64_t end = (id + 1) * per < n ? (id + 1) * per : n;
  for (int64_t i = id * per; i < end; i += 2) out[i] = in[i];
  return t_out;
}

// Stores through a null-page pointer: a memory fault in the op's own code.
__attribute__((noinline)) static void poke(volatile int32_t* where, int32_t value) { *where = value; }

torch::Tensor fault_forward(const torch::Tensor& t_in) {
  poke((volatile int32_t*)(uintptr_t)(0x20 + t_in.numel()), 7);
  return t_in;
}

// A tensor whose byte size does not fit 32 bits: 0x40000001 floats.
torch::Tensor huge_forward(const torch::Tensor& t_in) {
  torch::Tensor big = torch::zeros({0x40000001}, torch::kFloat);
  big.accessor<float, 1>()[0x40000000] = 1.0f;
  return big;
}

// Prints 3 MiB without a newline: the capture keeps 1 MiB and says how much
// it dropped.
torch::Tensor chatty_forward(const torch::Tensor& t_in) {
  static char chunk[1025];
  for (int i = 0; i < 1024; i++) chunk[i] = 'a' + i % 26;
  for (int k = 0; k < 3 * 1024; k++) printf("%s", chunk);
  return t_in;
}
