/* printf and friends: %d %i %u %o %x %X %c %s %p %f %F %e %E %g %G %%, with
 * flags (- + space # 0), width and precision (numbers or *), and the length
 * modifiers hh h l ll z j t (L is accepted; long double is double here).
 * printf writes through the simulator's write service in 128-byte pieces. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <q7/runtime.h>
#include "format.h"

enum {
  FLAG_LEFT = 1,
  FLAG_PLUS = 2,
  FLAG_SPACE = 4,
  FLAG_ALT = 8,
  FLAG_ZERO = 16,
};

typedef struct {
  int flags;
  int width;
  int precision; /* -1: none */
} spec;

/* --- argument access (see q7_args in format.h) --- */

static uint32_t arg_word(q7_args *a) {
  if (a->reg_index < 6) return a->regs[a->reg_index++];
  uint32_t w = a->stack[a->stack_offset / 4];
  a->stack_offset += 4;
  return w;
}

static uint64_t arg_dword(q7_args *a) {
  uint32_t lo, hi;
  if (a->reg_index & 1) a->reg_index++; /* even register pairs */
  if (a->reg_index + 2 <= 6) {
    lo = a->regs[a->reg_index];
    hi = a->regs[a->reg_index + 1];
    a->reg_index += 2;
  } else {
    a->reg_index = 6; /* everything after lives on the stack */
    a->stack_offset = (a->stack_offset + 7u) & ~7u;
    lo = a->stack[a->stack_offset / 4];
    hi = a->stack[a->stack_offset / 4 + 1];
    a->stack_offset += 8;
  }
  return ((uint64_t)hi << 32) | lo;
}

static int32_t next_int(q7_args *a) { return a->regs ? (int32_t)arg_word(a) : va_arg(a->ap, int); }
static uint32_t next_uint(q7_args *a) { return a->regs ? arg_word(a) : va_arg(a->ap, unsigned); }
static int64_t next_llong(q7_args *a) { return a->regs ? (int64_t)arg_dword(a) : va_arg(a->ap, long long); }
static uint64_t next_ullong(q7_args *a) { return a->regs ? arg_dword(a) : va_arg(a->ap, unsigned long long); }
static const void *next_ptr(q7_args *a) {
  return a->regs ? (const void *)(uintptr_t)arg_word(a) : va_arg(a->ap, const void *);
}
static double next_double(q7_args *a) {
  if (!a->regs) return va_arg(a->ap, double);
  uint64_t bits = arg_dword(a);
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

static void put(q7_sink *sink, const char *s, size_t n) {
  if (n) sink->put(sink, s, n);
  sink->count += n;
}

static void pad(q7_sink *sink, char c, int n) {
  char block[16];
  memset(block, c, sizeof block);
  while (n > 0) {
    int k = n > 16 ? 16 : n;
    put(sink, block, (size_t)k);
    n -= k;
  }
}

/* Emits prefix (sign, 0x) + zeros + body with width handling. */
static void emit(q7_sink *sink, const spec *sp, const char *prefix, int zeros, const char *body, int body_len) {
  int prefix_len = (int)strlen(prefix);
  int len = prefix_len + zeros + body_len;
  int fill = sp->width > len ? sp->width - len : 0;
  if (!(sp->flags & FLAG_LEFT) && !(sp->flags & FLAG_ZERO)) pad(sink, ' ', fill);
  put(sink, prefix, (size_t)prefix_len);
  if (!(sp->flags & FLAG_LEFT) && (sp->flags & FLAG_ZERO)) pad(sink, '0', fill);
  pad(sink, '0', zeros);
  put(sink, body, (size_t)body_len);
  if (sp->flags & FLAG_LEFT) pad(sink, ' ', fill);
}

static const char *sign_prefix(int negative, int flags) {
  return negative ? "-" : (flags & FLAG_PLUS) ? "+" : (flags & FLAG_SPACE) ? " " : "";
}

static void format_integer(q7_sink *sink, spec sp, uint64_t magnitude, int negative, unsigned base, int upper,
                           int is_signed) {
  char buf[24];
  int len = 0;
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  uint32_t b = base;
  while (magnitude) {
    /* 32-bit divisions when the value fits; the 64-bit helper otherwise. */
    uint32_t digit;
    if (magnitude >> 32) {
      digit = (uint32_t)(magnitude % b);
      magnitude /= b;
    } else {
      uint32_t m = (uint32_t)magnitude;
      digit = m % b;
      magnitude = m / b;
    }
    buf[sizeof buf - 1 - len++] = digits[digit];
  }
  int zeros = sp.precision > len ? sp.precision - len : 0;
  if (sp.precision == 0 && len == 0) zeros = 0; /* "%.0d" of 0 prints nothing */
  else if (len == 0) zeros = zeros > 1 ? zeros : 1;
  const char *prefix = is_signed ? sign_prefix(negative, sp.flags) : "";
  if ((sp.flags & FLAG_ALT) && base == 8 && zeros == 0 && (len == 0 || buf[sizeof buf - len] != '0')) zeros = 1;
  if ((sp.flags & FLAG_ALT) && base == 16 && len > 0) prefix = upper ? "0X" : "0x";
  if (sp.precision >= 0) sp.flags &= ~FLAG_ZERO;
  emit(sink, &sp, prefix, zeros, buf + sizeof buf - len, len);
}

static void format_string(q7_sink *sink, spec sp, const char *s) {
  if (!s) s = "(null)";
  int len = (int)(sp.precision >= 0 ? strnlen(s, (size_t)sp.precision) : strlen(s));
  sp.flags &= ~FLAG_ZERO;
  emit(sink, &sp, "", 0, s, len);
}

/* %f %e %g on a double. */
static void format_float(q7_sink *sink, spec sp, double value, char conv) {
  uint64_t bits;
  memcpy(&bits, &value, 8);
  int negative = (int)(bits >> 63);
  int upper = conv == 'F' || conv == 'E' || conv == 'G';
  char lower = (char)(upper ? conv - 'A' + 'a' : conv);
  const char *prefix = sign_prefix(negative, sp.flags);
  if (((bits >> 52) & 0x7ffu) == 0x7ffu) {
    int nan = (bits & 0x000fffffffffffffull) != 0;
    const char *text = nan ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    sp.flags &= ~FLAG_ZERO;
    emit(sink, &sp, prefix, 0, text, 3);
    return;
  }
  int precision = sp.precision < 0 ? 6 : sp.precision;
  int alt = (sp.flags & FLAG_ALT) != 0;
  int strip_zeros = 0;
  q7_decimal d;
  char style = lower;
  if (lower == 'g') {
    if (precision == 0) precision = 1;
    q7_decimal_digits(value, 'e', precision - 1, &d);
    int x = d.exp10 - 1; /* the exponent %e would print */
    if (x >= -4 && x < precision) {
      style = 'f';
      precision = precision - 1 - x;
      q7_decimal_digits(value, 'f', precision, &d);
    } else {
      style = 'e';
      precision = precision - 1;
    }
    strip_zeros = !alt;
  } else {
    q7_decimal_digits(value, lower, precision, &d);
  }

  char body[Q7_PRINTF_MAX_PRECISION + 340];
  int len = 0;
  if (style == 'f') {
    /* d.count = d.exp10 + precision digits (fewer leading zeros implied). */
    int int_digits = d.exp10 > 0 ? d.exp10 : 0;
    for (int i = 0; i < int_digits; i++) body[len++] = d.digits[i];
    if (int_digits == 0) body[len++] = '0';
    int frac_len = precision;
    if (strip_zeros) { /* drop trailing zeros of the fraction */
      while (frac_len > 0) {
        int k = d.exp10 + frac_len - 1; /* index of the last fraction digit */
        char c = k >= 0 && k < d.count ? d.digits[k] : '0';
        if (c != '0') break;
        frac_len--;
      }
    }
    if (frac_len > 0 || alt) body[len++] = '.';
    for (int i = 0; i < frac_len; i++) {
      int k = d.exp10 + i; /* digit index of the i-th fraction digit */
      body[len++] = k >= 0 && k < d.count ? d.digits[k] : '0';
    }
  } else {
    int digits = precision + 1;
    if (strip_zeros)
      while (digits > 1 && d.digits[digits - 1] == '0') digits--;
    body[len++] = d.digits[0];
    if (digits > 1 || alt) body[len++] = '.';
    for (int i = 1; i < digits; i++) body[len++] = d.digits[i];
    int x = d.digits[0] == '0' ? 0 : d.exp10 - 1;
    body[len++] = upper ? 'E' : 'e';
    body[len++] = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    if (x >= 100) body[len++] = (char)('0' + x / 100);
    body[len++] = (char)('0' + x / 10 % 10);
    body[len++] = (char)('0' + x % 10);
  }
  emit(sink, &sp, prefix, 0, body, len);
}

int q7_vformat(q7_sink *sink, const char *fmt, q7_args *args) {
  while (*fmt) {
    const char *start = fmt;
    while (*fmt && *fmt != '%') fmt++;
    put(sink, start, (size_t)(fmt - start));
    if (!*fmt) break;
    const char *directive = fmt++;
    spec sp = {0, 0, -1};
    for (;; fmt++) {
      if (*fmt == '-') sp.flags |= FLAG_LEFT;
      else if (*fmt == '+') sp.flags |= FLAG_PLUS;
      else if (*fmt == ' ') sp.flags |= FLAG_SPACE;
      else if (*fmt == '#') sp.flags |= FLAG_ALT;
      else if (*fmt == '0') sp.flags |= FLAG_ZERO;
      else break;
    }
    if (*fmt == '*') {
      sp.width = next_int(args);
      if (sp.width < 0) {
        sp.flags |= FLAG_LEFT;
        sp.width = -sp.width;
      }
      fmt++;
    } else {
      while (*fmt >= '0' && *fmt <= '9') sp.width = sp.width * 10 + (*fmt++ - '0');
    }
    if (*fmt == '.') {
      fmt++;
      sp.precision = 0;
      if (*fmt == '*') {
        sp.precision = next_int(args);
        if (sp.precision < 0) sp.precision = -1;
        fmt++;
      } else {
        while (*fmt >= '0' && *fmt <= '9') sp.precision = sp.precision * 10 + (*fmt++ - '0');
      }
    }
    int size = 0; /* -2 hh, -1 h, 0 int, 1 long, 2 long long, 3 size_t/intmax/ptrdiff */
    for (;; fmt++) {
      if (*fmt == 'h') size = size == -1 ? -2 : -1;
      else if (*fmt == 'l') size = size == 1 ? 2 : 1;
      else if (*fmt == 'z' || *fmt == 't') size = 3;
      else if (*fmt == 'j') size = 2;
      else if (*fmt == 'L') size = 0;
      else break;
    }
    char conv = *fmt;
    if (!conv) break;
    fmt++;
    switch (conv) {
      case 'd':
      case 'i': {
        /* long, size_t and ptrdiff_t are 32-bit on the core */
        int64_t v = size == 2 ? next_llong(args) : (int64_t)next_int(args);
        if (size == -1) v = (short)v;
        if (size == -2) v = (signed char)v;
        uint64_t magnitude = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        format_integer(sink, sp, magnitude, v < 0, 10, 0, 1);
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        uint64_t v = size == 2 ? next_ullong(args) : (uint64_t)next_uint(args);
        if (size == -1) v = (unsigned short)v;
        if (size == -2) v = (unsigned char)v;
        unsigned base = conv == 'u' ? 10 : conv == 'o' ? 8 : 16;
        format_integer(sink, sp, v, 0, base, conv == 'X', 0);
        break;
      }
      case 'p': {
        uintptr_t v = (uintptr_t)next_ptr(args);
        sp.flags |= FLAG_ALT;
        format_integer(sink, sp, v, 0, 16, 0, 0);
        break;
      }
      case 'c': {
        char c = (char)next_int(args);
        sp.flags &= ~FLAG_ZERO;
        emit(sink, &sp, "", 0, &c, 1);
        break;
      }
      case 's':
        format_string(sink, sp, (const char *)next_ptr(args));
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
        format_float(sink, sp, next_double(args), conv);
        break;
      case '%':
        put(sink, "%", 1);
        break;
      default: /* unsupported (%a, %n, ...): print the directive as is */
        put(sink, directive, (size_t)(fmt - directive));
        break;
    }
  }
  return (int)sink->count;
}

/* --- sinks --- */

typedef struct {
  q7_sink base;
  int fd;
  size_t used;
  char buf[128];
} fd_sink;

static void fd_flush(fd_sink *s) {
  if (s->used) q7_write(s->fd, s->buf, s->used);
  s->used = 0;
}

static void fd_put(q7_sink *sink, const char *str, size_t n) {
  fd_sink *s = (fd_sink *)sink;
  while (n) {
    size_t room = sizeof s->buf - s->used;
    size_t k = n < room ? n : room;
    memcpy(s->buf + s->used, str, k);
    s->used += k;
    str += k;
    n -= k;
    if (s->used == sizeof s->buf) fd_flush(s);
  }
}

struct q7_file {
  int fd;
};
static struct q7_file stdout_file = {1}, stderr_file = {2};
FILE *const stdout = &stdout_file;
FILE *const stderr = &stderr_file;

static int format_to_fd(int fd, const char *fmt, q7_args *args) {
  fd_sink s;
  s.base.put = fd_put;
  s.base.count = 0;
  s.fd = fd;
  s.used = 0;
  int n = q7_vformat(&s.base, fmt, args);
  fd_flush(&s);
  return n;
}

typedef struct {
  q7_sink base;
  char *buf;
  size_t size; /* room including the terminating NUL */
  size_t used;
} buffer_sink;

static void buffer_put(q7_sink *sink, const char *str, size_t n) {
  buffer_sink *s = (buffer_sink *)sink;
  if (s->size == 0) return;
  size_t room = s->size - 1 - s->used;
  size_t k = n < room ? n : room;
  memcpy(s->buf + s->used, str, k);
  s->used += k;
}

static int format_to_buffer(char *buf, size_t size, const char *fmt, q7_args *args) {
  buffer_sink s;
  s.base.put = buffer_put;
  s.base.count = 0;
  s.buf = buf;
  s.size = size;
  s.used = 0;
  int n = q7_vformat(&s.base, fmt, args);
  if (size) buf[s.used] = 0;
  return n;
}

/* The va_list forms, for callers that have one. (clang-22 miscompiles
 * va_start on Xtensa, so a va_list made there is already wrong; the
 * SDK's own variadic functions come in through q7_format_words instead.) */
int vfprintf(FILE *__restrict stream, const char *__restrict fmt, va_list ap) {
  q7_args args = {0};
  va_copy(args.ap, ap);
  int n = format_to_fd(stream ? stream->fd : 1, fmt, &args);
  va_end(args.ap);
  return n;
}

int vprintf(const char *__restrict fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int vsnprintf(char *__restrict buf, size_t size, const char *__restrict fmt, va_list ap) {
  q7_args args = {0};
  va_copy(args.ap, ap);
  int n = format_to_buffer(buf, size, fmt, &args);
  va_end(args.ap);
  return n;
}

int vsprintf(char *__restrict buf, const char *__restrict fmt, va_list ap) {
  return vsnprintf(buf, (size_t)INT32_MAX, fmt, ap);
}

int q7_format_words(int kind, const uint32_t *regs, const uint32_t *stack) {
  q7_args args;
  memset(&args, 0, sizeof args);
  args.regs = regs;
  args.stack = stack;
  switch (kind) {
    case 0: /* printf(fmt, ...) */
      args.reg_index = 1;
      return format_to_fd(1, (const char *)(uintptr_t)regs[0], &args);
    case 1: { /* fprintf(stream, fmt, ...) */
      const FILE *stream = (const FILE *)(uintptr_t)regs[0];
      args.reg_index = 2;
      return format_to_fd(stream ? stream->fd : 1, (const char *)(uintptr_t)regs[1], &args);
    }
    case 2: /* sprintf(buf, fmt, ...) */
      args.reg_index = 2;
      return format_to_buffer((char *)(uintptr_t)regs[0], (size_t)INT32_MAX, (const char *)(uintptr_t)regs[1], &args);
    case 3: /* snprintf(buf, size, fmt, ...) */
      args.reg_index = 3;
      return format_to_buffer((char *)(uintptr_t)regs[0], regs[1], (const char *)(uintptr_t)regs[2], &args);
    default: { /* q7_fail(status, fmt, ...): "q7: <message>" on stderr, then exit */
      char message[200];
      memcpy(message, "q7: ", 4);
      args.reg_index = 2;
      int len = 4 + format_to_buffer(message + 4, sizeof message - 5, (const char *)(uintptr_t)regs[1], &args);
      if (len > (int)sizeof message - 2) len = (int)sizeof message - 2;
      message[len++] = '\n';
      q7_write(2, message, (size_t)len);
      q7_set_status_and_exit((int)regs[0]);
    }
  }
}

int fputs(const char *__restrict s, FILE *__restrict stream) {
  q7_write(stream ? stream->fd : 1, s, strlen(s));
  return 0;
}

int puts(const char *s) {
  size_t n = strlen(s);
  char nl = '\n';
  q7_write(1, s, n);
  q7_write(1, &nl, 1);
  return 0;
}

int fputc(int c, FILE *stream) {
  char ch = (char)c;
  q7_write(stream ? stream->fd : 1, &ch, 1);
  return (unsigned char)c;
}

int putc(int c, FILE *stream) { return fputc(c, stream); }
int putchar(int c) { return fputc(c, stdout); }
int fflush(FILE *stream) {
  (void)stream;
  return 0;
}
