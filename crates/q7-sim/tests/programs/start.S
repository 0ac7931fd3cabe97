/* Start-up and exception vectors for bare test programs, identical under
 * qemu-system-xtensa -M sim and q7's ISS configured like the same core.
 *
 * .reset sits at the core's reset vector (the linker script places it) and
 * jumps to _start. _start sets the windowed-ABI state explicitly, so nothing
 * depends on reset values: WINDOWBASE = 0, WINDOWSTART = 1, PS = WOE | UM,
 * a1 = __stack; enables coprocessor 0 when the core has one (HAVE_CP), calls
 * main with call4 and exits with its return value through SYS_exit.
 *
 * .vectors sits at VECBASE: the textbook window overflow/underflow handlers;
 * the user exception vector exits with 64 + EXCCAUSE, every other vector
 * with 100 + its number, so an exception shows as a distinctive exit code. */
#define SIMCALL .byte 0x00, 0x51, 0x00
#define PS_WOE (1 << 18)
#define PS_UM (1 << 5)

	.section .reset, "ax", @progbits
	.global _reset
_reset:
	j	1f
	.p2align 2
.Lstart_addr:	.4byte _start
1:	l32r	a2, .Lstart_addr
	jx	a2

	.section .literal._start, "ax", @progbits
	.p2align 2
.Lps:		.4byte PS_WOE | PS_UM
.Lstack:	.4byte __stack
.Lmain:		.4byte main

	.section .text._start, "ax", @progbits
	.global _start
	.p2align 2
_start:
	movi	a0, 0
	wsr	a0, windowbase
	rsync
	movi	a0, 1
	wsr	a0, windowstart
	rsync
	l32r	a0, .Lps
	wsr	a0, ps
	rsync
#ifdef HAVE_CP
	movi	a0, 1
	.byte	0x00, 0xe0, 0x13	/* wsr a0, cpenable */
	rsync
#endif
	l32r	a1, .Lstack
	movi	a0, 0
	l32r	a4, .Lmain
	callx4	a4
	mov	a3, a6
	movi	a2, 1
	SIMCALL
1:	j	1b

	.section .vectors, "ax", @progbits
#include "../../../../sdk/tests/qemu/window_vectors.inc"
	/* User exception. Alloca (EXCCAUSE 5, raised by movsp when the caller's
	 * frame is not in the register file) is serviced the standard way: make
	 * it look like a window underflow of the caller (PS.OWB = WINDOWBASE,
	 * rotate back by the caller's call increment, which a0 holds) and let
	 * the underflow handler refill it; its rfwu returns to the movsp, which
	 * then succeeds. Any other cause exits with 64 + EXCCAUSE
	 * (IllegalInstruction 64, IntegerDivideByZero 70, LoadStoreAlignment 73). */
	wsr	a2, excsave1
	wsr	a3, misc0
	rsr	a2, exccause
	beqi	a2, 5, .Lalloca
	addi	a3, a2, 64
	movi	a2, 1
	SIMCALL
1:	j	1b
.Lalloca:
	rsr	a3, windowbase
	slli	a3, a3, 8
	rsr	a2, ps
	srli	a2, a2, 12
	slli	a2, a2, 12
	or	a2, a2, a3
	addi	a2, a2, 0x30	/* EXCM | UM, INTLEVEL 0, OWB = WINDOWBASE */
	wsr	a2, ps
	rsync
	rsr	a3, misc0
	rsr	a2, excsave1
	bbsi	a0, 31, 2f
	rotw	-1
	j	_WindowUnderflow4
2:	bbsi	a0, 30, 3f
	rotw	-2
	j	_WindowUnderflow8
3:	rotw	-3
	j	_WindowUnderflow12
	.org 0x3c0
	FAIL_VECTOR(9)	/* double exception */

	.section .note.GNU-stack, "", @progbits
