// Runs one of the relu operators in sdk/tests/ops/ under QEMU through the real
// runtime path: a constructor writes the launch block (as the simulator
// would), q7_main (libq7sdk.a) dispatches through the table below to
// switch_stack_or_call_wrapper -> wrapper -> customop_* -> relu_forward, and
// the wrapper checks the returned (or destination) tensor.
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/customop_runtime.hpp>
#include <neuron/stack_switch.hpp>
#include "launch_fixture.h"

torch::Tensor relu_forward(const torch::Tensor &t_in);

namespace {

constexpr int kCount = 3000;  // several TCM buffers of 1024 floats
float input[kCount];
float destination[kCount];
q7_tensor_desc input_desc, dst_desc;
q7_arg args[1];

struct LaunchWriter {
  LaunchWriter() {
    for (int i = 0; i < kCount; i++) input[i] = (float)((i * 37) % 101 - 50) * 0.25f;
    q7_fixture::describe(&input_desc, Q7_DTYPE_FLOAT, input, kCount);
    q7_fixture::describe(&dst_desc, Q7_DTYPE_FLOAT, destination, kCount);
    args[0].kind = Q7_ARG_TENSOR;
    args[0].value.i64 = 0;
    args[0].value.tensor = (uint32_t)(uintptr_t)&input_desc;
    q7_fixture::launch(0, 1, args, 1, &dst_desc);
  }
} launch_writer;

void check_output() {
  q7_launch_block *lb = q7_launch();
  // Multicore ops write through get_dst_tensor(); the others return a tensor.
  const q7_tensor_desc *out = lb->result_tensor ? (const q7_tensor_desc *)(uintptr_t)lb->result_tensor : &dst_desc;
  const float *values = (const float *)(uintptr_t)out->data;
  int bad = 0;
  for (int i = 0; i < kCount; i++) {
    float want = input[i] > 0 ? input[i] : 0.0f;
    if (values[i] != want) bad++;
  }
  printf("relu over %d elements: %s (%d wrong; dtype %u rank %u numel %d)\n", kCount, bad ? "FAILED" : "ok", bad,
         (unsigned)out->dtype, (unsigned)out->rank, (int)out->numel);
  if (bad) lb->status = 7;
}

}  // namespace

void relu_forward_wrapper() {
  customop_setup();
  torch::Tensor arg0 = customop_next_tensor();
  torch::Tensor result = relu_forward(arg0);
  customop_return_tensor(result);
  customop_cleanup();
  check_output();
}

void relu_forward_stack_switch() { switch_stack_or_call_wrapper((uint32_t)relu_forward_wrapper, STACK_SIZE); }

extern "C" {
uint32_t get_func_cnt() { return 1; }
const char *get_func_name(uint32_t index) { return index == 0 ? "relu_forward" : nullptr; }
uint32_t get_func_ptr(uint32_t index) { return index == 0 ? (uint32_t)relu_forward_stack_switch : 0; }
}
