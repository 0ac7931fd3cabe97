/* string.h for csmith programs on the bare boards: what csmith and the
 * compiler call (q7_csmith_rt.h defines them). */
#ifndef Q7_CSMITH_STRING_H
#define Q7_CSMITH_STRING_H
typedef __SIZE_TYPE__ size_t;
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int value, size_t n);
int strcmp(const char *a, const char *b);
#endif
