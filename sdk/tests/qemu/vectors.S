/* QEMU harness for SDK-built programs (not part of libq7sdk.a).
 *
 * qemu-system-xtensa -M sim -cpu de233_fpu starts at the core's reset vector
 * (0xfe000000, in its sysrom) with PS.EXCM set and no live register window; the q7 ABI (sdk/ABI.md) instead
 * promises WINDOWSTART = 1, WINDOWBASE = 0, PS.WOE = 1, PS.EXCM = 0. _qemu_entry
 * sets that up and jumps to _start. The window overflow/underflow handlers at
 * VECBASE (0x2000 on de233_fpu) are the textbook ones; any other exception
 * ends the run with exit code 100 + the vector number, so a fault is visible. */
#define SIMCALL .byte 0x00, 0x51, 0x00
#define PS_WOE (1 << 18)
#define PS_UM (1 << 5)

	.section .qemu.entry, "ax", @progbits
	.global _qemu_entry
	.p2align 2
_qemu_entry:
	j	1f		/* over the literals: L32R only reaches backwards */
	.p2align 2
.Lps:	.4byte PS_WOE | PS_UM
.Lstart:	.4byte _start
1:	movi	a0, 1
	wsr	a0, windowstart
	movi	a0, 0
	wsr	a0, windowbase
	rsync
	l32r	a0, .Lps
	wsr	a0, ps
	rsync
	l32r	a2, .Lstart
	jx	a2

	.section .qemu.vectors, "ax", @progbits	/* at VECBASE */
#include "window_vectors.inc"
	/* User exception: only MOVSP's alloca exception is expected (clang emits
	 * MOVSP to pass arguments on the stack, e.g. to printf). */
	wsr	a0, excsave1
	rsr	a0, exccause
	addi	a0, a0, -5	/* AllocaCause */
	beqz	a0, .Lalloca
	FAIL_VECTOR(8)
	.org 0x3c0
	FAIL_VECTOR(9)	/* double exception */

/* a0 holds our WINDOWBASE: put it in PS.OWB (bits 8..11, so that RFWU
 * returns to our window) and refill the caller's frame with `underflow`. */
#define SET_OWB_AND_REFILL(underflow) \
	extui	a0, a0, 0, 3; \
	slli	a0, a0, 8; \
	rsr	a1, ps; \
	movi	a2, 15; \
	slli	a2, a2, 8; \
	or	a1, a1, a2; \
	xor	a1, a1, a2; \
	or	a1, a1, a0; \
	wsr	a1, ps; \
	rsync; \
	j	underflow

/* MOVSP faulted because the caller's frame is not in the register file:
 * refill it with the matching underflow handler, then retry the MOVSP. The
 * caller's frame size is the call increment in the top bits of our a0. We
 * rotate back onto the caller's window (whose registers are free until the
 * handler loads them), set PS.OWB to our window so that RFWU returns here,
 * and let the underflow handler's RFWU re-execute the MOVSP (EPC1).
 * de233_fpu has 32 address registers: WINDOWBASE is 3 bits wide. */
.Lalloca:
	rsr	a0, excsave1
	extui	a0, a0, 30, 2
	bnei	a0, 1, .Lalloca_not4
	rsr	a0, excsave1
	rotw	-1
	rsr	a0, windowbase
	addi	a0, a0, 1
	j	.Lalloca_owb4
.Lalloca_not4:
	bnei	a0, 2, .Lalloca12
	rsr	a0, excsave1
	rotw	-2
	rsr	a0, windowbase
	addi	a0, a0, 2
	j	.Lalloca_owb8
.Lalloca12:
	rsr	a0, excsave1
	rotw	-3
	rsr	a0, windowbase
	addi	a0, a0, 3
	SET_OWB_AND_REFILL(_WindowUnderflow12)
.Lalloca_owb4:
	SET_OWB_AND_REFILL(_WindowUnderflow4)
.Lalloca_owb8:
	SET_OWB_AND_REFILL(_WindowUnderflow8)

	.section .note.GNU-stack, "", @progbits
