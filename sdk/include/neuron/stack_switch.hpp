// Stack selection for an operator call (docs/PLATFORM.md, "Wrapper and stack"): STACK_SIZE bytes are
// guaranteed to the wrapper; when less than that remains between the current
// stack pointer and the end of .bss, the wrapper runs on a stack allocated from
// the core's heap slice instead.
#ifndef Q7_NEURON_STACK_SWITCH_HPP
#define Q7_NEURON_STACK_SWITCH_HPP

#include <stdint.h>

#ifndef STACK_SIZE
#define STACK_SIZE 4196  // default when the operator's author specifies none
#endif
#define MAX_STACK_SIZE 0x400000
static_assert(STACK_SIZE <= MAX_STACK_SIZE, "STACK_SIZE exceeds MAX_STACK_SIZE (4 MiB)");

// Calls `wrapper_fn` (the address of a void() function) with at least
// `stack_size` bytes of stack.
void switch_stack_or_call_wrapper(uint32_t wrapper_fn, uint32_t stack_size = STACK_SIZE);

#endif
