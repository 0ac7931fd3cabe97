// One operator-code pattern = one function `pattern_NAME(in, out, n)` over
// float arrays, written once and compiled twice: for the device as the op
// `NAME(Tensor x) -> Tensor` (q7 build, open profile) and for the host
// (-DQ7_HOST, with host_main.cpp). crates/q7/tests/patterns_run.rs compares
// the two outputs. Patterns that compute integers store their bit patterns
// in the float output (see store_bits).
#pragma once
#include <stdint.h>
#include <string.h>

#ifdef Q7_HOST
#define PATTERN(name) void pattern_##name(const float *in, float *out, long n)
#else
#include <torch/torch.h>
#define PATTERN(name)                                                          \
  static void pattern_##name(const float *in, float *out, long n);             \
  torch::Tensor name(const torch::Tensor &x) {                                 \
    torch::Tensor y = torch::empty(x.sizes(), torch::kFloat);                  \
    pattern_##name(x.data_ptr<float>(), y.data_ptr<float>(), (long)x.numel()); \
    return y;                                                                  \
  }                                                                            \
  static void pattern_##name(const float *in, float *out, long n)
#endif

// Keeps the compiler from folding a helper into its caller, so calls (and
// their argument passing) really happen.
#define NOINLINE __attribute__((noinline))

static inline uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline float store_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
