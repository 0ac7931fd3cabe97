// __fp16 arithmetic: clang-22's Xtensa backend cannot select half loads and
// conversions (sdk/README.md, defect 6), so q7 build refuses it by name.
#include <torch/torch.h>

static float widen(const __fp16 *p) { return *p; }

torch::Tensor half(const torch::Tensor &x) {
  torch::Tensor y = torch::empty(x.sizes(), torch::kFloat);
  y.fill_(widen((const __fp16 *)x.data_ptr()));
  return y;
}
