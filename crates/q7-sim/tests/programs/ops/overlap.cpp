// Multicore op whose checker findings all come from hot loops, so the JIT
// compiles the code that makes them: each core first reads the last
// `extra` elements of its own partition of the destination before anyone
// wrote them, then writes its partition and `extra` elements of the next
// core's (races); the last core runs `past` elements off the end of the
// tensor (stray stores). The write loop also reads the element after the
// one it writes, before it is written (more reads of unwritten output).
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor overlap_forward(const torch::Tensor& t_in, int64_t extra, int64_t past) {
  size_t n = t_in.numel();
  torch::Tensor t_out = get_dst_tensor();
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  size_t part = n / count, begin = part * id, end = id == count - 1 ? n : begin + part;
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  float unwritten = 0.0f;
  for (size_t i = end - extra; i < end; i++) unwritten += out[i];  // the first bug
  size_t stop = id == count - 1 ? n + past : end + extra;           // the second and third
  // Each element also reads the next one, which is often not written yet.
  for (size_t i = begin; i < stop; i++) out[i] = in[i < n ? i : 0] * 2.0f + (out[i + 1] + unwritten) * 0.0f;
  return t_out;
}
