/*
 * core-isa.h -- processor-specific definitions in the XCHAL_* style,
 * written for the q7 core-config tests to describe the same ncore2gp-like
 * core as ncore2gp-params beside it. Not a vendor file.
 */

#ifndef XTENSA_CORE_CONFIGURATION_H
#define XTENSA_CORE_CONFIGURATION_H

/* ----------------------------------------------------------------------
 *  Identity
 * ---------------------------------------------------------------------- */
#define XCHAL_CORE_ID                   "Xm_ncore2gp"
#define XCHAL_HW_VERSION_NAME           "NX1.1.4"
#define XCHAL_SW_VERSION_NAME           "RI-2022.9"

/* ----------------------------------------------------------------------
 *  ISA options
 * ---------------------------------------------------------------------- */
#define XCHAL_HAVE_BE                   0   /* big-endian? no */
#define XCHAL_HAVE_WINDOWED             1   /* windowed registers */
#define XCHAL_NUM_AREGS                 64  /* physical address registers */
#define XCHAL_HAVE_DENSITY              1   /* 16-bit instructions */
#define XCHAL_HAVE_LOOPS                1   /* zero-overhead loops */
#define XCHAL_HAVE_MUL16                1
#define XCHAL_HAVE_MUL32                1
#define XCHAL_HAVE_MUL32_HIGH           1
#define XCHAL_HAVE_DIV32                1
#define XCHAL_HAVE_MAC16                0
#define XCHAL_HAVE_NSA                  1
#define XCHAL_HAVE_MINMAX               1
#define XCHAL_HAVE_SEXT                 1
#define XCHAL_HAVE_CLAMPS               1
#define XCHAL_HAVE_BOOLEANS             1
#define XCHAL_XEA_VERSION               3
#define XCHAL_HAVE_FP                   1   /* single-precision FPU */
#define XCHAL_HAVE_DFP                  0
#define XCHAL_HAVE_FP_DIV               0   /* no divide: __divsf3 */
#define XCHAL_HAVE_VISION               1   /* Vision vector pipe */
#define XCHAL_DATA_WIDTH                64  /* bytes per widest load */

/* Function-like macros are not facts and are skipped. */
#define XCHAL_REGION_OF(addr)           ((addr) >> 29)

/* ----------------------------------------------------------------------
 *  Local memories
 * ---------------------------------------------------------------------- */
#define XCHAL_INSTRAM0_VADDR            0x00000000
#define XCHAL_INSTRAM0_PADDR            0x00000000
#define XCHAL_INSTRAM0_SIZE             32768
#define XCHAL_DATARAM0_PADDR            0x00080000
#define XCHAL_DATARAM0_SIZE             0x10000
#define XCHAL_DATARAM1_PADDR            0x00090000
#define XCHAL_DATARAM1_SIZE             0x20000UL   /* planted: params says 0x10000 */

#endif /* XTENSA_CORE_CONFIGURATION_H */
