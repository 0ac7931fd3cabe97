/* A function on a 64 KiB page of its own whose movi immediate smc.c
 * rewrites between calls (self-modifying code). */
	.section .text.smc_target, "ax", @progbits
	.p2align 16
	.global smc_target
	.global smc_imm
smc_target:	/* unsigned smc_target(void): returns the patched immediate */
	entry	a1, 32
	.byte	0x22, 0xa0	/* movi a2, imm (imm below 256) */
smc_imm:	.byte	0x00
	retw
	.section .note.GNU-stack, "", @progbits
