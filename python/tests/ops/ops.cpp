// Device ops the Python suite drives: each exercises one path of the front
// end (dtypes, scalar arguments, printf, an out-of-bounds store, a flood of output).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Copies the input's bytes into the destination tensor, whatever the dtype.
torch::Tensor copy_bytes(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  memcpy(t_out.data_ptr(), t_in.data_ptr(), t_in.numel() * t_in.element_size());
  return t_out;
}

// x * a + b + c over float32, with a double, an int64_t and a Scalar.
torch::Tensor affine(const torch::Tensor& t_in, double a, int64_t b, torch::Scalar c) {
  torch::Tensor t_out = get_dst_tensor();
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  float offset = (float)b + (float)c.toDouble();
  for (int64_t i = 0; i < t_in.size(0); i++) out[i] = in[i] * (float)a + offset;
  return t_out;
}

// Writes one element past the end of its output: the checker must catch it.
torch::Tensor write_past_end(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* out = (float*)t_out.data_ptr();
  for (int64_t i = 0; i <= t_in.numel(); i++) out[i] = 1.0f;
  return t_out;
}

// Says hello from every core, then copies its slice of the input.
torch::Tensor say_hello(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  printf("hello from core %u of %u\n", (unsigned)get_cpu_id(), (unsigned)get_cpu_count());
  size_t n = t_in.numel();
  size_t per = n / get_cpu_count();
  size_t first = per * get_cpu_id();
  size_t count = get_cpu_id() == get_cpu_count() - 1 ? n - first : per;
  const float* in = (const float*)t_in.data_ptr();
  float* out = (float*)t_out.data_ptr();
  for (size_t i = first; i < first + count; i++) out[i] = in[i];
  return t_out;
}

// Every core writes every element: on eight cores, a race the checker reports.
torch::Tensor write_everywhere(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* out = (float*)t_out.data_ptr();
  for (int64_t i = 0; i < t_in.numel(); i++) out[i] = (float)get_cpu_id();
  return t_out;
}

// Writes only the first half of its output: the rest stays zero, and q7 warns.
torch::Tensor write_half(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* out = (float*)t_out.data_ptr();
  for (int64_t i = 0; i < t_in.numel() / 2; i++) out[i] = 2.0f;
  return t_out;
}

// Prints |lines| lines of 99 'x' and a newline, then copies its input; with
// lines < 0 it then exits with status 3 (console output of a failing run).
torch::Tensor print_lines(const torch::Tensor& t_in, int64_t lines) {
  torch::Tensor t_out = get_dst_tensor();
  char line[101];
  memset(line, 'x', 99);
  line[99] = '\n';
  line[100] = 0;
  for (int64_t i = 0; i < (lines < 0 ? -lines : lines); i++) fputs(line, stdout);
  if (lines < 0) exit(3);
  memcpy(t_out.data_ptr(), t_in.data_ptr(), t_in.numel() * t_in.element_size());
  return t_out;
}

// Counts forever in a volatile local: no deadlock a checker could prove, so
// only an interrupt (or the instruction budget) ends it.
torch::Tensor spin_forever(const torch::Tensor& t_in) {
  volatile uint32_t counter = 0;
  for (;;) counter = counter + 1;
  return get_dst_tensor();
}
