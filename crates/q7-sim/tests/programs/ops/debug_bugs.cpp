// Planted bugs for `q7 debug` sessions (crates/q7/tests/cli/debug_sessions.rs):
// each op computes y = 2 x over its input, and each gets it wrong in one way
// an op author meets. The sessions stop at the wrong store and print the
// values that show the bug.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// A rows x cols tensor walked with the row count as the row stride.
torch::Tensor stride_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  int64_t rows = x.size(0), cols = x.size(1);
  float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < cols; j++) {
      o[i * cols + j] = 2.0f * in[i * rows + j];  // stride: rows, not cols
    }
  }
  return out;
}

// Eight cores over one tensor, each one element too far.
torch::Tensor overlap_forward(const torch::Tensor& x) {
  size_t n = x.numel();
  torch::Tensor out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t part = n / count, begin = part * id, end = begin + part + (id + 1 < count ? 1 : 0);
  auto in = x.accessor<float, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = begin; i < end; i++) {
    o[i] = 2.0f * in[i];  // off by one: the next core's first element too
  }
  return out;
}

// Leaves a value where the next call's locals will be (stack garbage).
__attribute__((noinline)) static float scratch(float seed) {
  volatile float pad[8];
  for (int k = 0; k < 8; k++) pad[k] = seed + k;
  return pad[3];
}

// A running sum whose accumulator was never initialised.
__attribute__((noinline)) static void running_sum(const float* in, float* o, size_t n) {
  float sum;  // never set
  for (size_t i = 0; i < n; i++) {
    sum += in[i];
    o[i] = sum;  // uninitialised: sum started as garbage
  }
}

torch::Tensor uninit_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  scratch(1000.0f);
  running_sum(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
  return out;
}

// A float tensor read through an int32 accessor (the SDK's dtype check
// stops this; without it, as on hardware, the floats' bits are the ints).
torch::Tensor dtype_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  auto in = x.accessor<int32_t, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = 0; i < (size_t)x.numel(); i++) {
    int32_t v = in[i];
    o[i] = 2.0f * v;  // wrong dtype: v holds a float's bits
  }
  return out;
}
