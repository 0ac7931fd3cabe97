/* assert.h for csmith programs on the bare boards: csmith's runtime
 * includes it; generated programs assert nothing unless --paranoid. */
#define assert(x) ((void)0)
