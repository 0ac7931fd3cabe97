// Generalised IoU of box pairs on eight cores: boxes1[i] against boxes2[i]
// for two [N, 4] tensors of (x1, y1, x2, y2) boxes, giving an [N] tensor of
//
//   giou = iou - (enclosing area - union) / enclosing area
//
// (Rezatofighi et al. 2019; torchvision's generalized_box_iou, diagonal).
// Each core takes a contiguous share of the pairs by get_cpu_id(), stages
// blocks of both inputs in TCM, computes there and copies its results into
// the destination tensor the host passed (get_dst_tensor()). Each arithmetic
// step is its own statement, so no multiply-add is fused and the host
// reference reproduces every rounding.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

static inline float max_f(float a, float b) { return a > b ? a : b; }
static inline float min_f(float a, float b) { return a < b ? a : b; }

static float giou(const float* a, const float* b) {
  float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  float area_b = (b[2] - b[0]) * (b[3] - b[1]);

  float inter_w = max_f(min_f(a[2], b[2]) - max_f(a[0], b[0]), 0.0f);
  float inter_h = max_f(min_f(a[3], b[3]) - max_f(a[1], b[1]), 0.0f);
  float inter = inter_w * inter_h;
  float sum = area_a + area_b;
  float uni = sum - inter;
  float iou = inter / uni;

  float hull_w = max_f(a[2], b[2]) - min_f(a[0], b[0]);
  float hull_h = max_f(a[3], b[3]) - min_f(a[1], b[1]);
  float hull = hull_w * hull_h;
  float excess = hull - uni;
  float penalty = excess / hull;
  return iou - penalty;
}

torch::Tensor giou_forward(const torch::Tensor& boxes1, const torch::Tensor& boxes2) {
  torch::Tensor t_out = get_dst_tensor();
  size_t num_boxes = boxes1.size(0);

  // Core i takes pairs [first, first + count): an equal share, the first
  // num_boxes % cpu_count cores one more.
  uint32_t cpu_id = get_cpu_id();
  uint32_t cpu_count = get_cpu_count();
  size_t share = num_boxes / cpu_count;
  size_t extra = num_boxes % cpu_count;
  size_t count = share + (cpu_id < extra ? 1 : 0);
  size_t first = cpu_id * share + (cpu_id < extra ? cpu_id : extra);

  static constexpr size_t block = 256;  // boxes per TCM block: 2 x 4 KiB in, 1 KiB out
  float* tcm_a = (float*)torch::neuron::tcm_malloc(sizeof(float) * 4 * block);
  float* tcm_b = (float*)torch::neuron::tcm_malloc(sizeof(float) * 4 * block);
  float* tcm_out = (float*)torch::neuron::tcm_malloc(sizeof(float) * block);
  if (tcm_a == nullptr || tcm_b == nullptr || tcm_out == nullptr) {
    abort();
  }

  auto a_acc = boxes1.tcm_accessor();
  auto b_acc = boxes2.tcm_accessor();
  auto out_acc = t_out.tcm_accessor();
  for (size_t i = 0; i < count; i += block) {
    size_t n = count - i < block ? count - i : block;
    a_acc.tensor_to_tcm<float>(tcm_a, (first + i) * 4, n * 4);
    b_acc.tensor_to_tcm<float>(tcm_b, (first + i) * 4, n * 4);
    for (size_t j = 0; j < n; j++) {
      tcm_out[j] = giou(tcm_a + 4 * j, tcm_b + 4 * j);
    }
    out_acc.tcm_to_tensor<float>(tcm_out, first + i, n);
  }

  torch::neuron::tcm_free(tcm_out);
  torch::neuron::tcm_free(tcm_b);
  torch::neuron::tcm_free(tcm_a);
  return t_out;
}
