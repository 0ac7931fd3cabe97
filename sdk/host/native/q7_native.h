// The host build of an op (`q7 run --native`): what the generated
// native_wrapper.cpp, runtime.cpp and driver.cpp share.
#ifndef Q7_NATIVE_H
#define Q7_NATIVE_H

#include <stdint.h>
#include <torch/torch.h>

// One op of the library: its compute function's name and a call that takes
// its arguments through customop_next_*() as the device wrapper does.
struct q7_native_op {
  const char *name;
  torch::Tensor (*call)();
};
extern const q7_native_op q7_native_ops[];
extern const unsigned q7_native_op_count;

// One kernel argument (sdk/ABI.md kinds).
struct q7_native_arg {
  uint32_t kind;
  q7_tensor_desc *tensor;
  double f64;
  int64_t i64;
};

// Set by the driver before each core runs.
void q7_native_begin_core(uint32_t core, uint32_t core_count, const q7_native_arg *args, uint32_t arg_count,
                          q7_tensor_desc *dst, bool sdk_checks);
// Frees what the core left in its TCM pool.
void q7_native_end_core();
// The device heap of each core (0: no limit): while a core runs, the op's
// allocations may not pass it.
void q7_native_set_heap_limit(uint64_t bytes);

#endif
