/* <stdlib.h>: process control, integer helpers, string-to-number parsing,
 * a small PRNG and sorting. Memory allocation is in runtime/heap.c. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <q7/runtime.h>

void abort(void) { q7_fail(Q7_STATUS_ABORT, "abort() called"); }

void exit(int status) { q7_set_status_and_exit(status); }

void _Exit(int status) { exit(status); }

int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }
long long llabs(long long x) { return x < 0 ? -x : x; }

div_t div(int num, int den) {
  div_t r = {num / den, num % den};
  return r;
}
ldiv_t ldiv(long num, long den) {
  ldiv_t r = {num / den, num % den};
  return r;
}
lldiv_t lldiv(long long num, long long den) {
  lldiv_t r = {num / den, num % den};
  return r;
}

/* Parses an unsigned magnitude; *negative reports a leading '-'. Saturates
 * at `limit` and sets *overflow. */
static unsigned long long parse_integer(const char *s, char **end, int base, int *negative,
                                        unsigned long long limit, int *overflow) {
  const char *p = s;
  *negative = 0;
  *overflow = 0;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '+' || *p == '-') *negative = *p++ == '-';
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = p[0] == '0' ? 8 : 10;
  }
  unsigned long long value = 0;
  const char *digits = p;
  for (;; p++) {
    int c = (unsigned char)*p, digit;
    if (isdigit(c)) digit = c - '0';
    else if (isalpha(c)) digit = tolower(c) - 'a' + 10;
    else break;
    if (digit >= base) break;
    if (value > (limit - (unsigned)digit) / (unsigned)base) {
      *overflow = 1;
      value = limit;
    } else if (!*overflow) {
      value = value * (unsigned)base + (unsigned)digit;
    }
  }
  if (end) *end = (char *)(uintptr_t)(p == digits ? s : p);
  return value;
}

long long strtoll(const char *s, char **end, int base) {
  int negative, overflow;
  unsigned long long m = parse_integer(s, end, base, &negative, (unsigned long long)LLONG_MAX + 1, &overflow);
  if (!negative) return m > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)m;
  return m > (unsigned long long)LLONG_MAX ? LLONG_MIN : -(long long)m;
}

unsigned long long strtoull(const char *s, char **end, int base) {
  int negative, overflow;
  unsigned long long m = parse_integer(s, end, base, &negative, ULLONG_MAX, &overflow);
  return negative && !overflow ? 0 - m : m;
}

long strtol(const char *s, char **end, int base) {
  long long v = strtoll(s, end, base);
  return v > LONG_MAX ? LONG_MAX : v < LONG_MIN ? LONG_MIN : (long)v;
}

unsigned long strtoul(const char *s, char **end, int base) {
  unsigned long long v = strtoull(s, end, base);
  return v > ULONG_MAX ? ULONG_MAX : (unsigned long)v;
}

int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }
long long atoll(const char *s) { return strtoll(s, NULL, 10); }

/* A 32-bit xorshift generator; rand() returns its top 31 bits. */
static uint32_t rand_state = 1;
void srand(unsigned seed) { rand_state = seed ? seed : 1; }
int rand(void) {
  uint32_t x = rand_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rand_state = x;
  return (int)(x >> 1);
}

static void swap_bytes(char *a, char *b, size_t size) {
  while (size--) {
    char t = *a;
    *a++ = *b;
    *b++ = t;
  }
}

/* Heap sort: no recursion, no allocation, O(n log n). */
static void sift_down(char *base, size_t root, size_t count, size_t size, int (*cmp)(const void *, const void *)) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= count) return;
    if (child + 1 < count && cmp(base + child * size, base + (child + 1) * size) < 0) child++;
    if (cmp(base + root * size, base + child * size) >= 0) return;
    swap_bytes(base + root * size, base + child * size, size);
    root = child;
  }
}

void qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *)) {
  char *b = (char *)base;
  if (count < 2) return;
  for (size_t i = count / 2; i-- > 0;) sift_down(b, i, count, size, compare);
  for (size_t end = count - 1; end > 0; end--) {
    swap_bytes(b, b + end * size, size);
    sift_down(b, 0, end, size, compare);
  }
}

void *bsearch(const void *key, const void *base, size_t count, size_t size,
              int (*compare)(const void *, const void *)) {
  const char *lo = (const char *)base;
  while (count) {
    const char *mid = lo + (count / 2) * size;
    int c = compare(key, mid);
    if (c == 0) return (void *)(uintptr_t)mid;
    if (c > 0) {
      lo = mid + size;
      count -= count / 2 + 1;
    } else {
      count /= 2;
    }
  }
  return NULL;
}

void __assert_fail(const char *expr, const char *file, unsigned line, const char *function) {
  q7_fail(Q7_STATUS_ABORT, "%s:%u: %s: Assertion `%s' failed.", file, line, function, expr);
}
