// Recursion: a recursive merge sort over blocks of 64 (depth 6) and a
// 200-deep recursive sum, which spills register windows to the stack.
#include "pattern.h"

static NOINLINE void merge_sort(float *a, float *tmp, int lo, int hi) {
  if (hi - lo < 2) return;
  int mid = (lo + hi) / 2;
  merge_sort(a, tmp, lo, mid);
  merge_sort(a, tmp, mid, hi);
  int i = lo, j = mid, k = lo;
  while (i < mid && j < hi) tmp[k++] = !(a[j] < a[i]) ? a[i++] : a[j++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < hi) tmp[k++] = a[j++];
  for (k = lo; k < hi; k++) a[k] = tmp[k];
}

static NOINLINE float deep_sum(const float *a, int k) { return k == 0 ? 0.0f : a[k - 1] + deep_sum(a, k - 1) * 0.5f; }

PATTERN(recursion) {
  float tmp[64];
  for (long i = 0; i < n; i++) out[i] = in[i] != in[i] ? 0.0f : in[i];
  for (long b = 0; b + 64 <= n; b += 64) merge_sort(out + b, tmp, 0, 64);
  if (n >= 200) out[n - 1] = deep_sum(out, 200);
}
