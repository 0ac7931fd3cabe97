/* An integer sort of SORT_ELEMENTS (1M) pseudo-random words for speed
 * measurements (de212): an iterative quicksort (median of three, insertion
 * sort for short ranges), then a check that the result is ordered and is a
 * permutation (same sum). Exits with a checksum byte. */
#include "rt.h"

#ifndef SORT_ELEMENTS
#define SORT_ELEMENTS (1024 * 1024)
#endif

static int data[SORT_ELEMENTS];

static void swap(int *a, int *b) {
  int t = *a;
  *a = *b;
  *b = t;
}

__attribute__((noinline)) static void insertion(int *v, int n) {
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

__attribute__((noinline)) static void quicksort(int *v, int n) {
  static int lo_stack[64], hi_stack[64];
  int top = 0;
  lo_stack[0] = 0;
  hi_stack[0] = n - 1;
  while (top >= 0) {
    int lo = lo_stack[top], hi = hi_stack[top];
    top--;
    while (hi - lo > 16) {
      int mid = lo + (hi - lo) / 2;
      if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
      if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
      if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
      int pivot = v[mid], i = lo, j = hi;
      while (i <= j) {
        while (v[i] < pivot) i++;
        while (v[j] > pivot) j--;
        if (i <= j) {
          swap(&v[i], &v[j]);
          i++;
          j--;
        }
      }
      /* Push the larger side, keep sorting the smaller: depth stays log n. */
      if (j - lo > hi - i) {
        top++;
        lo_stack[top] = lo;
        hi_stack[top] = j;
        lo = i;
      } else {
        top++;
        lo_stack[top] = i;
        hi_stack[top] = hi;
        hi = j;
      }
    }
    insertion(v + lo, hi - lo + 1);
  }
}

int main(void) {
  unsigned h = 0x9e3779b9u, sum = 0;
  for (int i = 0; i < SORT_ELEMENTS; i++) {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    data[i] = (int)h;
    sum += h;
  }
  quicksort(data, OPAQUE(SORT_ELEMENTS));
  unsigned after = (unsigned)data[0];
  for (int i = 1; i < SORT_ELEMENTS; i++) {
    CHECK(data[i - 1] <= data[i]);
    after += (unsigned)data[i];
  }
  CHECK(after == sum);
  t_show("median", data[SORT_ELEMENTS / 2]);
  return (data[SORT_ELEMENTS / 2] >> 24) & 0xff;
}
