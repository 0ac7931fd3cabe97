// Shape functions of findings.cpp's ops, under torch.ops.q7_findings.
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor same_as_input(torch::Tensor t_in) { return torch::empty_like(t_in); }

torch::Tensor like_second(torch::Tensor grad, torch::Tensor t_in) { return torch::empty_like(t_in); }

// Asks for dimension 1: an IndexError on a 1-D tensor.
torch::Tensor two_dims(torch::Tensor t_in) { return torch::empty({t_in.size(0), t_in.size(1)}); }

NEURON_LIBRARY(q7_findings, m) {
  m.def("stray_store", &same_as_input, "stray_store");
  m.def("copy_past_end", &same_as_input, "copy_past_end");
  m.def("tcm_overrun", &same_as_input, "tcm_overrun");
  m.def("abort_on_negative", &same_as_input, "abort_on_negative");
  m.def("copy_2d", &two_dims, "copy_2d");
  m.def("overread", &like_second, "overread");
  m.def("freed_tcm_read", &same_as_input, "freed_tcm_read");
  m.def("uninit_tcm_read", &same_as_input, "uninit_tcm_read");
  m.def("uninit_stack_read", &same_as_input, "uninit_stack_read");
}
