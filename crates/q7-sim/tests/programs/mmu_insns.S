/* The MMU's TLB instructions and registers for mmu.c (de233_fpu). LLVM 22
 * knows the TLB instructions but not the MMU's special registers: their
 * rsr/wsr are bytes. */
#include "sysvec.inc"
#include "tlb_funcs.inc"

#define RSR(t, sr) .byte ((t) << 4), (sr), 0x03	/* rsr at, sr */
#define WSR(t, sr) .byte ((t) << 4), (sr), 0x13	/* wsr at, sr */
#define PTEVADDR 83
#define RASID 90
#define ITLBCFG 91
#define DTLBCFG 92


/* void mmu_read(unsigned v, unsigned out[6]): ritlb0, ritlb1, rdtlb0,
 * rdtlb1, pitlb, pdtlb of v. */
FUNC(mmu_read)
	ritlb0 a4, a2; s32i a4, a3, 0
	ritlb1 a4, a2; s32i a4, a3, 4
	rdtlb0 a4, a2; s32i a4, a3, 8
	rdtlb1 a4, a2; s32i a4, a3, 12
	movi a4, 0xdead
	pitlb a4, a2; s32i a4, a3, 16
	movi a4, 0xdead
	pdtlb a4, a2; s32i a4, a3, 20
	retw

/* void mmu_regs(unsigned out[4]): RASID, ITLBCFG, DTLBCFG, PTEVADDR. */
FUNC(mmu_regs)
	RSR(4, RASID); s32i a4, a2, 0
	RSR(4, ITLBCFG); s32i a4, a2, 4
	RSR(4, DTLBCFG); s32i a4, a2, 8
	RSR(4, PTEVADDR); s32i a4, a2, 12
	retw

/* void mmu_set_rasid(unsigned v), mmu_set_ptevaddr(unsigned v). */
FUNC(mmu_set_rasid)
	WSR(2, RASID); isync; retw
FUNC(mmu_set_ptevaddr)
	WSR(2, PTEVADDR); retw

/* unsigned mmu_cfg_written(unsigned v, unsigned data): TLBCFG = v, read
 * back, then 0 again (nothing in between uses memory). */
FUNC(mmu_cfg_written)
	movi a5, 0
	bnez a3, 1f
	WSR(2, ITLBCFG); RSR(4, ITLBCFG); WSR(5, ITLBCFG); j 2f
1:	WSR(2, DTLBCFG); RSR(4, DTLBCFG); WSR(5, DTLBCFG)
2:	isync
	mov a2, a4
	retw
	.section .note.GNU-stack, "", @progbits
