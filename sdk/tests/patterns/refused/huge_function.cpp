// A function of about 300 KB (inline-assembly padding): an L32R at its end
// cannot reach the literal pool before its start (L32R reaches 256 KiB
// back), which GNU ld reports as "l32r: literal target out of range";
// q7 build names the function (sdk/README.md, defect 8).
#include <torch/torch.h>

__attribute__((noinline)) static float huge(const float *p) {
  __asm__ volatile(".rept 150000\n\tnop.n\n\t.endr" ::: "memory");
  return p[0] * 1.2345f;
}

torch::Tensor huge_function(const torch::Tensor &x) {
  torch::Tensor y = torch::empty(x.sizes(), torch::kFloat);
  y.fill_(huge(x.data_ptr<float>()));
  return y;
}
