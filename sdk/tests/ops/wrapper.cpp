// A hand-written stand-in for the wrapper.cpp that `q7 build` generates for a
// schema `relu_forward(Tensor t_in) -> Tensor` (sdk/ABI.md; docs/PLATFORM.md, "Wrapper and stack").
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/customop_runtime.hpp>
#include <neuron/stack_switch.hpp>

torch::Tensor relu_forward(const torch::Tensor& t_in);

void relu_forward_wrapper() {
  customop_setup();
  torch::Tensor arg0 = customop_next_tensor();
  torch::Tensor result = relu_forward(arg0);
  customop_return_tensor(result);
  customop_cleanup();
}

void relu_forward_stack_switch() {
  switch_stack_or_call_wrapper((uint32_t)relu_forward_wrapper, STACK_SIZE);
}

extern "C" {
uint32_t get_func_cnt() { return 1; }
const char* get_func_name(uint32_t index) { return index == 0 ? "relu_forward" : nullptr; }
uint32_t get_func_ptr(uint32_t index) { return index == 0 ? (uint32_t)relu_forward_stack_switch : 0; }
}
