// An author's own variadic helper: clang-22 miscompiles va_start/va_arg on
// Xtensa (sdk/README.md, defect 2), so q7 build refuses it by name.
#include <stdarg.h>

#include <torch/torch.h>

static float sum_floats(int count, ...) {
  va_list ap;
  va_start(ap, count);
  float s = 0.0f;
  for (int i = 0; i < count; i++) s += (float)va_arg(ap, double);
  va_end(ap);
  return s;
}

torch::Tensor variadic(const torch::Tensor &x) {
  torch::Tensor y = torch::empty(x.sizes(), torch::kFloat);
  y.fill_(sum_floats(3, 1.0, 2.0, 3.0));
  return y;
}
