/* math.h for csmith programs on the bare boards: csmith's safe-math
 * wrappers for float and double name fabsf and fabs; the campaign generates
 * no floating point (csmith's default), so those wrappers are never used. */
#define fabsf(x) __builtin_fabsf(x)
#define fabs(x) __builtin_fabs(x)
