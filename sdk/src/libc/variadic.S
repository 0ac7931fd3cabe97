/* Entry points of the SDK's variadic functions: printf, fprintf, sprintf,
 * snprintf and q7_fail.
 *
 * Why assembly: clang-22's Xtensa va_start is wrong (it keeps a7 in the frame
 * pointer before saving it, and its register-save pointer is one word off),
 * and its va_arg steps wrongly into stack arguments. So these functions never
 * use va_start: each stub stores its six argument registers a2..a7 in its
 * frame (below the 32 bytes at the top that window spills use) and passes q7_format_words() their address, the address of the
 * caller's stack arguments (at our incoming stack pointer, a1 + the frame
 * size), and which function was called. q7_format_words (printf.c) walks
 * them by the ABI's rules (64-bit values in aligned register pairs or 8-byte
 * aligned stack slots). */

/* Frame layout: the six words at [a1, a1 + 24); the top 32 bytes of a frame
 * that makes call8 calls are reserved for register-window spills. */
#define FRAME 64

.macro VARIADIC name, kind
	.section .literal.\name, "ax", @progbits
	.p2align 2
.L\name\()_target:	.4byte q7_format_words

	.section .text.\name, "ax", @progbits
	.global \name
	.type \name, @function
	.p2align 2
\name:
	entry	a1, FRAME
	s32i	a2, a1, 0
	s32i	a3, a1, 4
	s32i	a4, a1, 8
	s32i	a5, a1, 12
	s32i	a6, a1, 16
	s32i	a7, a1, 20
	movi	a10, \kind
	mov	a11, a1			/* the register words */
	addi	a12, a1, FRAME		/* the stack arguments */
	l32r	a8, .L\name\()_target
	callx8	a8
	mov	a2, a10
	retw
	.size \name, . - \name
.endm

	VARIADIC printf, 0
	VARIADIC fprintf, 1
	VARIADIC sprintf, 2
	VARIADIC snprintf, 3
	VARIADIC q7_fail, 4

	.section .note.GNU-stack, "", @progbits
