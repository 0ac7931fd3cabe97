// Shape functions of the suite's ops, registered under torch.ops.q7_test_ops.
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor same_as_input(torch::Tensor t_in) { return torch::empty_like(t_in); }

torch::Tensor affine_shape(torch::Tensor t_in, double a, int64_t b, c10::Scalar c) {
  return torch::empty(t_in.sizes(), torch::kFloat);
}

torch::Tensor print_lines_shape(torch::Tensor t_in, int64_t lines) { return torch::empty_like(t_in); }

NEURON_LIBRARY(q7_test_ops, m) {
  m.def("copy_bytes", &same_as_input, "copy_bytes");
  m.def("affine", &affine_shape, "affine");
  m.def("write_past_end", &same_as_input, "write_past_end");
  m.def("say_hello", &same_as_input, "say_hello");
  m.def("write_everywhere", &same_as_input, "write_everywhere");
  m.def("write_half", &same_as_input, "write_half");
  m.def("print_lines", &print_lines_shape, "print_lines");
  m.def("spin_forever", &same_as_input, "spin_forever");
}
