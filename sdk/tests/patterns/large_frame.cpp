// Large stack frames: a 40 KiB local array (beyond what `entry` can
// allocate, so the prologue adjusts a1 with MOVSP) and a variable-length
// array (alloca, also MOVSP), each used for a reversible transform.
#include "pattern.h"

static NOINLINE float big_frame(const float *in, long n, long i) {
  volatile float buf[10240];  // 40 KiB
  for (int k = 0; k < 10240; k += 1021) buf[k] = in[(i + k) % n];
  float s = 0.0f;
  for (int k = 0; k < 10240; k += 1021) s = s * 0.5f + buf[k];
  return s;
}

static NOINLINE float vla(const float *in, long n, int len) {
  float buf[len];
  for (int k = 0; k < len; k++) buf[k] = in[k % n];
  float s = 0.0f;
  for (int k = len - 1; k >= 0; k--) s = s * 0.25f + buf[k];
  return s;
}

PATTERN(large_frame) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    out[i] = (i % 64 == 0) ? big_frame(in, n, i) : (i % 16 == 1) ? vla(in + i, n - i, 1 + (int)(i % 200)) : x;
  }
}
