// An op whose locals the DWARF reader (q7_sim::debuginfo) must find and
// read, built with -g at -O0 and -O2: an int loop counter, a float
// accumulator, a pointer, a small local array, a struct, a helper that
// takes the struct by reference, and a global in a namespace. Each
// iteration i adds in[i] * window[i % 4] to acc; the tests stop on the
// marked lines and check the values.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

struct Stats {
  int count;
  float total;
  float max;
};

enum Mode { MODE_SUM = 1, MODE_MAX = 2 };

namespace probe {
int calls = 0;  // how many times note ran
}

__attribute__((noinline)) static void note(Stats& s, float v, Mode mode) {
  s.count += 1;  // note: first line
  s.total += v;
  if (mode == MODE_MAX && v > s.max) s.max = v;
  probe::calls++;
}

torch::Tensor debug_locals_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  int n = (int)t_in.numel();
  int window[4] = {3, 5, 7, 11};
  Stats stats = {0, 0.0f, -1.0f};
  float acc = 0.0f;
  const int* w = window;
  for (int i = 0; i < n; i++) {
    acc += in[i] * (float)w[i % 4];
    note(stats, in[i], MODE_MAX);
    // loop: no code on this line
    out[i] = acc;  // loop: store
  }
  out[0] = stats.total + stats.max;
  return t_out;
}
