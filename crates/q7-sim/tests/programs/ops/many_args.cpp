// Ops with many tensor arguments: with the hidden return pointer, more than
// five tensors put arguments on the stack, and the wrapper brackets the call
// with `movsp` moves of the stack pointer (the Alloca path of q7's firmware
// when the caller's frame is spilled). Each output element is a weighted sum
// of the inputs' elements, so a misplaced argument changes the result.
#include <stdint.h>
#include <torch/torch.h>

using torch::Tensor;

static Tensor weighted(const Tensor *const *ts, int count) {
  int64_t n = ts[0]->numel();
  Tensor out = torch::empty({n}, torch::kFloat);
  auto o = out.accessor<float, 1>();
  for (int64_t i = 0; i < n; i++) o[i] = 0.0f;
  for (int k = 0; k < count; k++) {
    auto in = ts[k]->accessor<float, 1>();
    for (int64_t i = 0; i < n; i++) o[i] += (float)(k + 1) * in[i];
  }
  return out;
}

Tensor six_forward(const Tensor &a, const Tensor &b, const Tensor &c, const Tensor &d, const Tensor &e,
                   const Tensor &f) {
  const Tensor *ts[] = {&a, &b, &c, &d, &e, &f};
  return weighted(ts, 6);
}

Tensor seven_forward(const Tensor &a, const Tensor &b, const Tensor &c, const Tensor &d, const Tensor &e,
                     const Tensor &f, const Tensor &g) {
  const Tensor *ts[] = {&a, &b, &c, &d, &e, &f, &g};
  return weighted(ts, 7);
}

Tensor ten_forward(const Tensor &a, const Tensor &b, const Tensor &c, const Tensor &d, const Tensor &e,
                   const Tensor &f, const Tensor &g, const Tensor &h, const Tensor &i, const Tensor &j) {
  const Tensor *ts[] = {&a, &b, &c, &d, &e, &f, &g, &h, &i, &j};
  return weighted(ts, 10);
}
