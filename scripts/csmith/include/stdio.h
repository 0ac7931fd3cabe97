/* stdio.h for csmith programs on the bare boards (scripts/csmith-diff.sh).
 * csmith only calls printf with a format and at most three 32-bit words
 * (ints, uint32_t checksums, strings). clang-22's Xtensa va_start is wrong
 * (tests/programs/rt.h), so printf is a macro that turns each argument into
 * a word and calls q7_printf, a plain four-argument function. */
#ifndef Q7_CSMITH_STDIO_H
#define Q7_CSMITH_STDIO_H
int q7_printf(const char *fmt, unsigned a, unsigned b, unsigned c);
#define Q7_WORD(x) ((unsigned)(__UINTPTR_TYPE__)(x))
#define Q7_PRINTF_PICK(_1, _2, _3, _4, name, ...) name
#define Q7_PRINTF0(f) q7_printf(f, 0, 0, 0)
#define Q7_PRINTF1(f, a) q7_printf(f, Q7_WORD(a), 0, 0)
#define Q7_PRINTF2(f, a, b) q7_printf(f, Q7_WORD(a), Q7_WORD(b), 0)
#define Q7_PRINTF3(f, a, b, c) q7_printf(f, Q7_WORD(a), Q7_WORD(b), Q7_WORD(c))
#define printf(...) Q7_PRINTF_PICK(__VA_ARGS__, Q7_PRINTF3, Q7_PRINTF2, Q7_PRINTF1, Q7_PRINTF0, _)(__VA_ARGS__)
#endif
