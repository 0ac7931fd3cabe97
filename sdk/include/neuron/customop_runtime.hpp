// The calls the generated wrapper.cpp makes around an operator (sdk/ABI.md):
//   customop_setup(); args = customop_next_*()...; result = op(args...);
//   customop_return_tensor(result); customop_cleanup();
// Arguments are consumed in order; asking for a kind the host did not pass ends
// the launch with status 3, running out of arguments with status 4.
#ifndef Q7_NEURON_CUSTOMOP_RUNTIME_HPP
#define Q7_NEURON_CUSTOMOP_RUNTIME_HPP

#include <stdint.h>
#include <torch/torch.h>

void customop_setup();
torch::Tensor customop_next_tensor();
double customop_next_double();
int64_t customop_next_int64();
torch::Scalar customop_next_scalar();
void customop_return_tensor(const torch::Tensor &t);
void customop_cleanup();

// The names the vendor's wrapper uses, for hand-written wrappers.
void customop_setup(bool has_return);
int customop_next_int();
long long customop_next_longlong();
float customop_next_float();

// The dispatch table the wrapper defines: get_func_ptr(i) is the address of
// the i-th operator's <fn>_stack_switch(), called by q7_main.
extern "C" {
uint32_t get_func_cnt();
const char *get_func_name(uint32_t index);
uint32_t get_func_ptr(uint32_t index);
}

#endif
