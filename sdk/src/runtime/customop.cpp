// The argument stream and result hand-off of a launch (sdk/ABI.md "Arguments",
// "The launch block"), plus the core-identity and TCM calls of
// <neuron/neuron-utils.hpp>.
#include <string.h>
#include <new>
#include <neuron/customop_runtime.hpp>
#include <neuron/neuron-utils.hpp>
#include <q7/runtime.h>

namespace {

uint32_t next_arg_index;
q7_tensor_desc result_desc;  // the runtime-owned copy the host reads

q7_launch_block *launch_or_fail() {
  q7_launch_block *launch = q7_launch();
  if (!launch) q7_fail(Q7_STATUS_BAD_LAUNCH, "no valid launch block");
  return launch;
}

const char *kind_name(uint32_t kind) {
  switch (kind) {
    case Q7_ARG_TENSOR: return "tensor";
    case Q7_ARG_DOUBLE: return "double";
    case Q7_ARG_INT64: return "int64";
    case Q7_ARG_SCALAR: return "scalar";
    default: return "unknown";
  }
}

const q7_arg &next_arg(uint32_t kind) {
  q7_launch_block *launch = launch_or_fail();
  uint32_t index = next_arg_index;
  if (index >= launch->arg_count)
    q7_fail(Q7_STATUS_ARG_COUNT, "argument %u (%s) requested, but the host passed %u", (unsigned)index,
            kind_name(kind), (unsigned)launch->arg_count);
  const q7_arg &arg = ((const q7_arg *)(uintptr_t)launch->args)[index];
  if (arg.kind != kind)
    q7_fail(Q7_STATUS_ARG_KIND, "argument %u: the wrapper expects a %s, the host passed a %s (kind %u)",
            (unsigned)index, kind_name(kind), kind_name(arg.kind), (unsigned)arg.kind);
  next_arg_index = index + 1;
  return arg;
}

}  // namespace

void customop_setup() {
  launch_or_fail();
  next_arg_index = 0;
}

void customop_setup(bool) { customop_setup(); }

torch::Tensor customop_next_tensor() {
  const q7_arg &arg = next_arg(Q7_ARG_TENSOR);
  return torch::Tensor((q7_tensor_desc *)(uintptr_t)arg.value.tensor);
}

double customop_next_double() { return next_arg(Q7_ARG_DOUBLE).value.f64; }

int64_t customop_next_int64() { return next_arg(Q7_ARG_INT64).value.i64; }

torch::Scalar customop_next_scalar() { return torch::Scalar(next_arg(Q7_ARG_SCALAR).value.f64); }

int customop_next_int() { return (int)customop_next_int64(); }

long long customop_next_longlong() { return customop_next_int64(); }

float customop_next_float() { return (float)customop_next_double(); }

void customop_return_tensor(const torch::Tensor &t) {
  q7_launch_block *launch = launch_or_fail();
  if (!t.defined()) {
    launch->result_tensor = 0;
    return;
  }
  // Keep the storage alive past the op's locals: this extra handle is never
  // released (the launch ends after cleanup).
  new (q7_heap_alloc_or_fail(sizeof(torch::Tensor), 8)) torch::Tensor(t);
  memcpy(&result_desc, t.q7_desc(), sizeof result_desc);
  result_desc.flags = 0;
  result_desc.reserved = 0;
  launch->result_tensor = (uint32_t)(uintptr_t)&result_desc;
}

void customop_cleanup() { __asm__ volatile("memw" ::: "memory"); }

torch::Tensor get_dst_tensor() {
  q7_launch_block *launch = launch_or_fail();
  if (!launch->dst_tensor) q7_fail(Q7_STATUS_ABORT, "get_dst_tensor(): the host passed no destination tensor");
  return torch::Tensor((q7_tensor_desc *)(uintptr_t)launch->dst_tensor);
}

uint32_t get_cpu_id() { return q7_core_id(); }

uint32_t get_cpu_count() { return q7_core_count(); }

namespace torch {
namespace neuron {
void *tcm_malloc(size_t nbytes) { return q7_tcm_alloc(nbytes); }
void tcm_free(void *ptr) { q7_tcm_free(ptr); }
}  // namespace neuron
}  // namespace torch
