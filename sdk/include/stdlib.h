/* q7 SDK: the freestanding subset of <stdlib.h>. malloc and friends allocate from
   the core's private heap slice in tensor memory (sdk/ABI.md). */
#ifndef Q7_STDLIB_H
#define Q7_STDLIB_H

#include <stddef.h>
#include <q7/cdefs.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 0x7fffffff

Q7_BEGIN_C

typedef struct { int quot, rem; } div_t;
typedef struct { long quot, rem; } ldiv_t;
typedef struct { long long quot, rem; } lldiv_t;

void *malloc(size_t size) Q7_NOEXCEPT;
void *calloc(size_t count, size_t size) Q7_NOEXCEPT;
void *realloc(void *ptr, size_t size) Q7_NOEXCEPT;
void *aligned_alloc(size_t alignment, size_t size) Q7_NOEXCEPT;
void free(void *ptr) Q7_NOEXCEPT;

Q7_NORETURN void abort(void) Q7_NOEXCEPT;
Q7_NORETURN void exit(int status) Q7_NOEXCEPT;
Q7_NORETURN void _Exit(int status) Q7_NOEXCEPT;
int atexit(void (*fn)(void)) Q7_NOEXCEPT;

int abs(int x) Q7_NOEXCEPT;
long labs(long x) Q7_NOEXCEPT;
long long llabs(long long x) Q7_NOEXCEPT;
div_t div(int num, int den) Q7_NOEXCEPT;
ldiv_t ldiv(long num, long den) Q7_NOEXCEPT;
lldiv_t lldiv(long long num, long long den) Q7_NOEXCEPT;

int atoi(const char *s) Q7_NOEXCEPT;
long atol(const char *s) Q7_NOEXCEPT;
long long atoll(const char *s) Q7_NOEXCEPT;
long strtol(const char *s, char **end, int base) Q7_NOEXCEPT;
unsigned long strtoul(const char *s, char **end, int base) Q7_NOEXCEPT;
long long strtoll(const char *s, char **end, int base) Q7_NOEXCEPT;
unsigned long long strtoull(const char *s, char **end, int base) Q7_NOEXCEPT;

int rand(void) Q7_NOEXCEPT;
void srand(unsigned seed) Q7_NOEXCEPT;

void qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t count, size_t size,
              int (*compare)(const void *, const void *));

Q7_END_C

#endif
