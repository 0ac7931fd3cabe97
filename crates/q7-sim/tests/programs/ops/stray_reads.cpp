// Planted bugs the hardware lets through and q7 must report, one per kind,
// each with the op's line: an elementwise backward whose gradient is
// smaller than its input (aws relu_backward called with mismatched shapes),
// a read of TCM after tcm_free, a read of TCM nothing wrote, a read of a
// local nothing wrote, and a store past a tensor's end by the SDK's memcpy.
#include <stdint.h>
#include <string.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor overread_backward(const torch::Tensor& grad, const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  auto g = grad.accessor<float, 1>();
  auto in = x.accessor<float, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = 0; i < (size_t)x.numel(); i++) {
    o[i] = in[i] > 0.0f ? g[i] : 0.0f;  // reads past grad's end
  }
  return out;
}

torch::Tensor freed_tcm_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(64 * sizeof(float));
  for (int i = 0; i < 64; i++) buffer[i] = (float)i;
  torch::neuron::tcm_free(buffer);
  auto o = out.accessor<float, 1>();
  volatile float* stale = buffer;
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = stale[i % 64];  // reads freed TCM
  return out;
}

torch::Tensor uninit_tcm_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  float* buffer = (float*)torch::neuron::tcm_malloc(64 * sizeof(float));
  auto o = out.accessor<float, 1>();
  volatile float* fresh = buffer;
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = fresh[i % 64];  // reads TCM nothing wrote
  torch::neuron::tcm_free(buffer);
  return out;
}

// Only the even elements of the scratch array are set; the odd ones are
// stack bytes nothing wrote in this run (the array is deeper than the frames
// that ran before the op).
torch::Tensor uninit_stack_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  volatile float scratch[256];
  for (int i = 0; i < 256; i += 2) scratch[i] = (float)i;
  auto o = out.accessor<float, 1>();
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = scratch[i % 256];  // reads a local nothing wrote
  return out;
}

// The stores past the destination's end are the SDK's memcpy's; the op's
// line asked for them (the source, a local, is long enough).
torch::Tensor copy_past_end_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  float staged[64];
  for (int i = 0; i < 64; i++) staged[i] = (float)i;
  memcpy(out.data_ptr(), staged, (out.numel() + 4) * sizeof(float));  // stores past out's end
  return out;
}

// Calls 24 deep, through a pointer the compiler cannot see through: the
// window overflow handlers spill frames (with registers a frame never set)
// and the underflow handlers reload them. No finding.
static float descend(int depth, float v);
static float (*volatile next_level)(int, float) = descend;
static float descend(int depth, float v) { return depth == 0 ? v : next_level(depth - 1, v * 0.5f) + 1.0f; }

torch::Tensor deep_calls_forward(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  auto in = x.accessor<float, 1>();
  auto o = out.accessor<float, 1>();
  for (size_t i = 0; i < (size_t)out.numel(); i++) o[i] = next_level(24, in[i]);
  return out;
}
