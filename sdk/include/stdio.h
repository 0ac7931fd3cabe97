/* q7 SDK: <stdio.h> for an operator: formatted output to the simulator's
   stdout/stderr through the simcall write service (sdk/ABI.md). There are no
   files and no input. */
#ifndef Q7_STDIO_H
#define Q7_STDIO_H

#include <stdarg.h>
#include <stddef.h>
#include <q7/cdefs.h>

#define EOF (-1)

Q7_BEGIN_C

typedef struct q7_file FILE;
extern FILE *const stdout;
extern FILE *const stderr;
#define stdout stdout
#define stderr stderr

int printf(const char *__restrict fmt, ...) Q7_NOEXCEPT Q7_PRINTF(1, 2);
int vprintf(const char *__restrict fmt, va_list ap) Q7_NOEXCEPT Q7_PRINTF(1, 0);
int fprintf(FILE *__restrict stream, const char *__restrict fmt, ...) Q7_NOEXCEPT Q7_PRINTF(2, 3);
int vfprintf(FILE *__restrict stream, const char *__restrict fmt, va_list ap) Q7_NOEXCEPT Q7_PRINTF(2, 0);
int sprintf(char *__restrict buf, const char *__restrict fmt, ...) Q7_NOEXCEPT Q7_PRINTF(2, 3);
int vsprintf(char *__restrict buf, const char *__restrict fmt, va_list ap) Q7_NOEXCEPT Q7_PRINTF(2, 0);
int snprintf(char *__restrict buf, size_t size, const char *__restrict fmt, ...) Q7_NOEXCEPT Q7_PRINTF(3, 4);
int vsnprintf(char *__restrict buf, size_t size, const char *__restrict fmt, va_list ap) Q7_NOEXCEPT
    Q7_PRINTF(3, 0);

int puts(const char *s) Q7_NOEXCEPT;
int putchar(int c) Q7_NOEXCEPT;
int fputs(const char *__restrict s, FILE *__restrict stream) Q7_NOEXCEPT;
int fputc(int c, FILE *stream) Q7_NOEXCEPT;
int putc(int c, FILE *stream) Q7_NOEXCEPT;
int fflush(FILE *stream) Q7_NOEXCEPT;

Q7_END_C

#endif
