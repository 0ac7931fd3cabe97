/* A control-move instruction operand block: header + access patterns +
   a union of immediates + packed flags. Every assertion here is right. */
#ifndef Q7_ISA_CTRL_H
#define Q7_ISA_CTRL_H

#include "q7_isa_common.h"

typedef enum { Q7_DTYPE_INT8 = 1, Q7_DTYPE_FP32 = 7 } Q7_ISA_DTYPE;

typedef struct Q7_ISA_HEADER {
    uint8_t opcode;
    uint8_t inst_word_len;
    uint16_t debug_level : 4, semaphore : 6, : 6;
} Q7_ISA_HEADER;

typedef struct Q7_ISA_CTRL_MV_STRUCT {
    Q7_ISA_HEADER header;
    Q7_ISA_ACCESS_PATTERN src[2];
    Q7_ISA_ACCESS_PATTERN dst;
    uint8_t dtype;          /* a Q7_ISA_DTYPE */
    /* three bytes of padding here: the union below is 4-aligned */
    union {
        uint32_t imm_u32;
        float imm_f32;
        uint8_t imm_bytes[4];
    };
    uint32_t partition_mask[Q7_ISA_NUM_PARTITIONS];
    uint64_t cookie;
} Q7_ISA_CTRL_MV_STRUCT;

Q7_ISA_STATIC_ASSERT(sizeof(Q7_ISA_CTRL_MV_STRUCT) == 64, "ctrl_mv is 64 bytes");
Q7_ISA_STATIC_ASSERT(__builtin_offsetof(Q7_ISA_CTRL_MV_STRUCT, cookie) == 56, "cookie is the last word");

#endif
