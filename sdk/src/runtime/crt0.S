/* q7 start-up code (sdk/ABI.md "Start-up").
 *
 * The host enters _start with a0 = 0, WINDOWBASE = 0, WINDOWSTART = 1,
 * PS.WOE = 1 and interrupts off. _start never returns. It only uses call4/callx4:
 * a frame that makes call4s is spilled by the 4-register overflow handler, which
 * does not read the caller's stack pointer from [a1 - 12]; _start has no caller,
 * so that slot holds nothing valid and a call8 from here could corrupt memory
 * if its frame were ever spilled.
 */
#define CPENABLE_CP0 1

/* The literal pool, in its own aligned section ahead of the code: L32R only
 * reaches backwards. (Spelled out rather than with .literal so the pool's
 * alignment does not depend on the assembler.) */
	.section .literal._start, "ax", @progbits
	.p2align 2
.Lstack_top:		.4byte __stack
.Lbss_table_start:	.4byte _bss_table_start
.Lbss_table_end:	.4byte _bss_table_end
.Lctor_list:		.4byte __CTOR_LIST__
.Lctor_end:		.4byte __CTOR_END__
.Linit_array_start:	.4byte __init_array_start
.Linit_array_end:	.4byte __init_array_end
.Lq7_main:		.4byte q7_main
.Lq7_exit:		.4byte q7_exit

	.section .text._start, "ax", @progbits
	.global _start
	.type _start, @function
	.p2align 2
_start:
	/* 1. Stack; enable coprocessor 0 (the FPU). `wsr a2, cpenable` is spelled
	 * as bytes because LLVM only accepts CPENABLE with +coprocessor, which the
	 * open profile does not pass. */
	l32r	a1, .Lstack_top
	movi	a0, 0
	movi	a2, CPENABLE_CP0
	.byte	0x20, 0xe0, 0x13	/* wsr a2, cpenable */
	rsync

	/* 2. Zero .bss: _bss_table holds (start, end) word pairs, both 8-aligned. */
	l32r	a2, .Lbss_table_start
	l32r	a3, .Lbss_table_end
.Lbss_range:
	bgeu	a2, a3, .Lbss_done
	l32i	a4, a2, 0
	l32i	a5, a2, 4
.Lbss_word:
	bgeu	a4, a5, .Lbss_next
	s32i	a0, a4, 0
	addi	a4, a4, 4
	j	.Lbss_word
.Lbss_next:
	addi	a2, a2, 8
	j	.Lbss_range
.Lbss_done:

	/* 3a. .ctors, last pointer first, down to the word after the -1 sentinel
	 * (__CTOR_END__ is just past the 0 terminator). callx4 preserves only a0-a3,
	 * so the loop state lives in a2/a3. */
	l32r	a2, .Lctor_list
	l32r	a3, .Lctor_end
	addi	a3, a3, -8
.Lctor_next:
	bgeu	a2, a3, .Lctors_done
	l32i	a4, a3, 0
	addi	a3, a3, -4
	beqz	a4, .Lctor_next
	callx4	a4
	j	.Lctor_next
.Lctors_done:

	/* 3b. .init_array, first to last. */
	l32r	a2, .Linit_array_start
	l32r	a3, .Linit_array_end
.Linit_next:
	bgeu	a2, a3, .Linit_done
	l32i	a4, a2, 0
	addi	a2, a2, 4
	callx4	a4
	j	.Linit_next
.Linit_done:

	/* 4. q7_main returns the exit status (also stored in the launch block). */
	l32r	a4, .Lq7_main
	callx4	a4
	/* 5. q7_exit(status) ends the run through simcall SYS_exit: the status
	 * returned in the callee's a2 is our a6, the next callee's argument. */
	l32r	a4, .Lq7_exit
	callx4	a4
1:	j	1b
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
