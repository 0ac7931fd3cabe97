/* q7 SDK: <assert.h>. A failed assertion prints "file:line: function: Assertion
   `expr' failed." to stderr and ends the launch with status 7 (sdk/ABI.md).
   Deliberately no include guard: NDEBUG may change between inclusions. */
#include <q7/cdefs.h>

#undef assert
#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
#define assert(expr) ((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))
#endif

#ifndef Q7_ASSERT_FAIL_DECLARED
#define Q7_ASSERT_FAIL_DECLARED
Q7_BEGIN_C
Q7_NORETURN void __assert_fail(const char *expr, const char *file, unsigned line, const char *function) Q7_NOEXCEPT;
Q7_END_C
#endif

#if !defined(__cplusplus) && !defined(static_assert)
#define static_assert _Static_assert
#endif
