/* Shared pieces of the test ISA headers (found through -I). Written for the
   q7 struct-layout tests; shaped like the per-generation TPB ISA headers the
   vendor ships (docs/FACTS.md): fixed-width fields and a size assertion per struct. */
#ifndef Q7_ISA_COMMON_H
#define Q7_ISA_COMMON_H

#include <stdint.h>

#define Q7_ISA_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define Q7_ISA_NUM_PARTITIONS 4

typedef struct Q7_ISA_ACCESS_PATTERN {
    uint32_t start_addr;
    int16_t step;
    uint16_t num_elem;
} Q7_ISA_ACCESS_PATTERN;

Q7_ISA_STATIC_ASSERT(sizeof(Q7_ISA_ACCESS_PATTERN) == 8, "access pattern is two words");

#endif
