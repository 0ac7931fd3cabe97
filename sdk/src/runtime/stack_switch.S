/* void q7_call_on_stack(void (*fn)(void), uintptr_t stack_top)
 *
 * Runs fn with a1 = stack_top and returns on the original stack.
 *
 * Why it is written this way (windowed ABI): a frame's a0-a3 are spilled to the
 * 16 bytes below its callee's stack pointer, and a call8/call12 frame's extra
 * registers to an area found through the word at [a1 - 12] (the caller's stack
 * pointer). Changing a1 while an older frame is still live in the register file
 * would make a later spill of that frame land relative to the new a1, while the
 * refill on return reads relative to the restored a1. So, before touching a1:
 *   1. force every older frame out of the register file with a call12 chain
 *      deep enough to rotate through the whole register file (6 x 12 > 64
 *      registers; the hardware overflow handlers do the stores);
 *   2. copy our 16-byte base save area (caller's a0-a3, including its stack
 *      pointer at -12) below the new stack top, so a spill of *this* frame
 *      while fn runs finds the same caller stack pointer at [stack_top - 12];
 *   3. switch a1, callx8 fn, and restore a1 before retw; our caller's frame
 *      is then refilled from the untouched save area below our original a1.
 * This needs no privileged instruction and no alloca (MOVSP) exception handler.
 */
	.section .literal.q7_call_on_stack, "ax", @progbits
	.p2align 2
.Lspill_chain:	.4byte q7_window_spill_chain

	.section .text.q7_call_on_stack, "ax", @progbits
	.global q7_call_on_stack
	.type q7_call_on_stack, @function
	.p2align 2
q7_call_on_stack:
	entry	a1, 48
	movi	a14, 6
	l32r	a8, .Lspill_chain
	callx12	a8
	addi	a6, a1, -16		/* our base save area ... */
	addi	a7, a3, -16		/* ... copied below the new stack top */
	l32i	a8, a6, 0
	s32i	a8, a7, 0
	l32i	a8, a6, 4
	s32i	a8, a7, 4
	l32i	a8, a6, 8
	s32i	a8, a7, 8
	l32i	a8, a6, 12
	s32i	a8, a7, 12
	mov	a4, a1			/* a4..a7 survive callx8 */
	mov	a1, a3
	callx8	a2
	mov	a1, a4
	retw
	.size q7_call_on_stack, . - q7_call_on_stack

/* q7_window_spill_chain(depth): calls itself depth more times with call12.
 * Each level rotates the window by 12 registers; once the chain has wrapped the
 * register file, every older frame has been spilled to its stack. */
	.section .literal.q7_window_spill_chain, "ax", @progbits
	.p2align 2
.Lself:	.4byte q7_window_spill_chain

	.section .text.q7_window_spill_chain, "ax", @progbits
	.global q7_window_spill_chain
	.type q7_window_spill_chain, @function
	.p2align 2
q7_window_spill_chain:
	entry	a1, 48
	beqz	a2, 1f
	addi	a14, a2, -1
	l32r	a12, .Lself		/* GNU ld for lx106 (a call0 core) rejects */
	callx12	a12		/* relocations on CALL12, so call through a literal */
1:	retw
	.size q7_window_spill_chain, . - q7_window_spill_chain

	.section .note.GNU-stack, "", @progbits
