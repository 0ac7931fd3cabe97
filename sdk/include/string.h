/* q7 SDK: the freestanding subset of <string.h>. */
#ifndef Q7_STRING_H
#define Q7_STRING_H

#include <stddef.h>
#include <q7/cdefs.h>

Q7_BEGIN_C

void *memcpy(void *__restrict dst, const void *__restrict src, size_t n) Q7_NOEXCEPT;
void *memmove(void *dst, const void *src, size_t n) Q7_NOEXCEPT;
void *memset(void *dst, int value, size_t n) Q7_NOEXCEPT;
int memcmp(const void *a, const void *b, size_t n) Q7_NOEXCEPT;
void *memchr(const void *s, int c, size_t n) Q7_NOEXCEPT;

size_t strlen(const char *s) Q7_NOEXCEPT;
size_t strnlen(const char *s, size_t max) Q7_NOEXCEPT;
int strcmp(const char *a, const char *b) Q7_NOEXCEPT;
int strncmp(const char *a, const char *b, size_t n) Q7_NOEXCEPT;
char *strcpy(char *__restrict dst, const char *__restrict src) Q7_NOEXCEPT;
char *strncpy(char *__restrict dst, const char *__restrict src, size_t n) Q7_NOEXCEPT;
char *strcat(char *__restrict dst, const char *__restrict src) Q7_NOEXCEPT;
char *strncat(char *__restrict dst, const char *__restrict src, size_t n) Q7_NOEXCEPT;
char *strchr(const char *s, int c) Q7_NOEXCEPT;
char *strrchr(const char *s, int c) Q7_NOEXCEPT;
char *strstr(const char *haystack, const char *needle) Q7_NOEXCEPT;

Q7_END_C

#endif
