/* Symbol naming for the portable runtime sources (builtins, soft-float, math).
 *
 * On the device these define the real names the compiler and operator code
 * call (__adddf3, expf, ...). The host numerics tests compile the same sources
 * with -DQ7_HOST_TEST, which renames every definition to q7_test_<name> so it
 * cannot clash with the host's libgcc/libm and the tests can compare the two.
 *
 * These sources must never rely on the operation they implement: soft-double
 * code only uses integer arithmetic on the bit patterns. */
#ifndef Q7_SRC_BUILTIN_NAMES_H
#define Q7_SRC_BUILTIN_NAMES_H

#ifdef Q7_HOST_TEST
#define Q7_RT(name) q7_test_##name
#else
#define Q7_RT(name) name
#endif

/* The float and double math sources compute exactly what they say: no
 * contraction of a*b+c into a fused multiply-add, on the device or the host. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#endif
