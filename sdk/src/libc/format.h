/* The printf engine shared by printf, fprintf, snprintf and friends. */
#ifndef Q7_SRC_FORMAT_H
#define Q7_SRC_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Output goes to a sink: `put` receives each piece; `count` totals the
 * characters the format produced (the printf return value). */
typedef struct q7_sink {
  void (*put)(struct q7_sink *sink, const char *s, size_t n);
  size_t count;
} q7_sink;

/* Where the arguments come from: a va_list, or the raw argument words the
 * variadic.S stubs captured (clang-22's Xtensa va_start/va_arg are broken, see
 * variadic.S). Raw words follow the ABI: six register words (a2..a7), 64-bit
 * values in even-aligned register pairs, then 8-byte aligned stack slots. */
typedef struct q7_args {
  const uint32_t *regs;  /* a2..a7, or NULL to read from `ap` */
  int reg_index;         /* next register word */
  const uint32_t *stack; /* the caller's stack arguments */
  uint32_t stack_offset; /* bytes consumed */
  va_list ap;
} q7_args;

int q7_vformat(q7_sink *sink, const char *fmt, q7_args *args);

/* The C side of the variadic.S stubs: kind 0 printf, 1 fprintf, 2 sprintf,
 * 3 snprintf, 4 q7_fail. */
int q7_format_words(int kind, const uint32_t *regs, const uint32_t *stack);

/* Decimal digits of a finite double for %f/%e/%g (printf_float.c). */
typedef struct {
  char digits[520]; /* significant digits, no point */
  int count;        /* digits in use */
  int exp10;        /* value = 0.d1d2... * 10^exp10 (0 for zero) */
} q7_decimal;

#define Q7_PRINTF_MAX_PRECISION 480

/* Correctly rounded (ties to even) decimal form of |value|: mode 'f' keeps
 * `precision` digits after the point, mode 'e' keeps precision+1 significant
 * digits. `value` must be finite. */
void q7_decimal_digits(double value, char mode, int precision, q7_decimal *out);

#endif
