/* Shared declaration helpers for the q7 SDK's C headers: they work from C and C++. */
#ifndef Q7_CDEFS_H
#define Q7_CDEFS_H

#ifdef __cplusplus
#define Q7_BEGIN_C extern "C" {
#define Q7_END_C }
#define Q7_NOEXCEPT noexcept
#else
#define Q7_BEGIN_C
#define Q7_END_C
#define Q7_NOEXCEPT
#endif

#define Q7_NORETURN __attribute__((__noreturn__))
#define Q7_PRINTF(fmt, args) __attribute__((__format__(__printf__, fmt, args)))

#endif
