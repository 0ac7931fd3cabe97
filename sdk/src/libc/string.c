/* <string.h> for the device: byte loops, with word-at-a-time paths for the
 * bulk copies and fills that tensor code does. */
#include <stdint.h>
#include <string.h>

void *memcpy(void *__restrict dst, const void *__restrict src, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
    for (; n >= 16; n -= 16, d += 16, s += 16) {
      uint32_t a = ((const uint32_t *)s)[0], b = ((const uint32_t *)s)[1];
      uint32_t c = ((const uint32_t *)s)[2], e = ((const uint32_t *)s)[3];
      ((uint32_t *)d)[0] = a;
      ((uint32_t *)d)[1] = b;
      ((uint32_t *)d)[2] = c;
      ((uint32_t *)d)[3] = e;
    }
    for (; n >= 4; n -= 4, d += 4, s += 4) *(uint32_t *)d = *(const uint32_t *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  d += n; /* overlapping with dst after src: copy backwards */
  s += n;
  while (n--) *--d = *--s;
  return dst;
}

void *memset(void *dst, int value, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  unsigned char byte = (unsigned char)value;
  for (; n && ((uintptr_t)d & 3u); n--) *d++ = byte;
  uint32_t word = byte * 0x01010101u;
  for (; n >= 4; n -= 4, d += 4) *(uint32_t *)d = word;
  while (n--) *d++ = byte;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n; n--, x++, y++)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

void *memchr(const void *s, int c, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (; n; n--, p++)
    if (*p == (unsigned char)c) return (void *)(uintptr_t)p;
  return NULL;
}

size_t strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && s[n]) n++;
  return n;
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return (unsigned char)*a < (unsigned char)*b ? -1 : (unsigned char)*a > (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n) {
  for (; n; n--, a++, b++) {
    if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    if (!*a) return 0;
  }
  return 0;
}

char *strcpy(char *__restrict dst, const char *__restrict src) {
  char *d = dst;
  while ((*d++ = *src++)) {
  }
  return dst;
}

char *strncpy(char *__restrict dst, const char *__restrict src, size_t n) {
  size_t i = 0;
  for (; i < n && src[i]; i++) dst[i] = src[i];
  for (; i < n; i++) dst[i] = 0;
  return dst;
}

char *strcat(char *__restrict dst, const char *__restrict src) {
  strcpy(dst + strlen(dst), src);
  return dst;
}

char *strncat(char *__restrict dst, const char *__restrict src, size_t n) {
  char *d = dst + strlen(dst);
  while (n-- && *src) *d++ = *src++;
  *d = 0;
  return dst;
}

char *strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c) return (char *)(uintptr_t)s;
    if (!*s) return NULL;
  }
}

char *strrchr(const char *s, int c) {
  const char *found = NULL;
  for (;; s++) {
    if (*s == (char)c) found = s;
    if (!*s) return (char *)(uintptr_t)found;
  }
}

char *strstr(const char *haystack, const char *needle) {
  size_t n = strlen(needle);
  for (; *haystack; haystack++)
    if (strncmp(haystack, needle, n) == 0) return (char *)(uintptr_t)haystack;
  return n == 0 ? (char *)(uintptr_t)haystack : NULL;
}
