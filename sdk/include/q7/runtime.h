/* The q7 device runtime's C interface: simulator services, the launch block,
   the two allocators (tensor heap slice and TCM) and failure reporting. Operator
   code normally uses <torch/torch.h> and <neuron/neuron-utils.hpp> instead. */
#ifndef Q7_RUNTIME_H
#define Q7_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <q7/abi.h>
#include <q7/cdefs.h>

Q7_BEGIN_C

/* simcall with the Tensilica ISS / QEMU semihosting numbering (sdk/ABI.md). */
enum { Q7_SYS_EXIT = 1, Q7_SYS_WRITE = 4 };
int q7_simcall(int call, int arg0, int arg1, int arg2) Q7_NOEXCEPT;
int q7_write(int fd, const void *buf, size_t len) Q7_NOEXCEPT;
Q7_NORETURN void q7_exit(int status) Q7_NOEXCEPT;

/* The launch block at __q7_launch, or NULL when its magic/version are wrong. */
q7_launch_block *q7_launch(void) Q7_NOEXCEPT;
/* Whether the SDK's own runtime checks are on for this launch (the default). */
int q7_sdk_checks(void) Q7_NOEXCEPT;

/* Ends the launch: prints "q7: <message>" to stderr, stores `status` in the
   launch block and exits with it. */
Q7_NORETURN void q7_fail(int status, const char *fmt, ...) Q7_NOEXCEPT Q7_PRINTF(2, 3);
/* Stores `status` in the launch block (when there is one) and exits with it. */
Q7_NORETURN void q7_set_status_and_exit(int status) Q7_NOEXCEPT;

/* First-fit allocator with coalescing over one memory range. */
typedef struct q7_arena {
  uintptr_t base;
  size_t size;
  struct q7_free_block *free_list;
  size_t in_use;
  size_t peak;
} q7_arena;
void q7_arena_init(q7_arena *arena, uintptr_t base, size_t size) Q7_NOEXCEPT;
void *q7_arena_alloc(q7_arena *arena, size_t size, size_t align) Q7_NOEXCEPT;
void q7_arena_free(q7_arena *arena, void *ptr) Q7_NOEXCEPT;
size_t q7_arena_block_size(const void *ptr) Q7_NOEXCEPT;

/* The core's private slice of tensor memory (launch block heap_base/heap_size);
   malloc, operator new and tensor factories allocate here. NULL when empty. */
void *q7_heap_alloc(size_t size, size_t align) Q7_NOEXCEPT;
void q7_heap_free(void *ptr) Q7_NOEXCEPT;
/* Like q7_heap_alloc, but ends the launch with status 5 when memory runs out. */
void *q7_heap_alloc_or_fail(size_t size, size_t align) Q7_NOEXCEPT;

/* The core's TCM pool (launch block tcm_base/tcm_size). */
void *q7_tcm_alloc(size_t size) Q7_NOEXCEPT;
void q7_tcm_free(void *ptr) Q7_NOEXCEPT;

/* Core identity: PRID, and the core count from the launch block (1 without one). */
uint32_t q7_core_id(void) Q7_NOEXCEPT;
uint32_t q7_core_count(void) Q7_NOEXCEPT;

/* The entry the start-up code calls (sdk/src/crt0.S); returns the exit status. */
int q7_main(void) Q7_NOEXCEPT;

/* Calls fn on a fresh stack whose top (16-aligned) is stack_top (stack_switch.S). */
void q7_call_on_stack(void (*fn)(void), uintptr_t stack_top) Q7_NOEXCEPT;

/* Linker-script symbols. */
extern char _end[];          /* end of .bss: the stack may not grow below it */
extern char __stack[];       /* initial stack pointer */
extern char __q7_launch[];   /* the launch block */

Q7_END_C

#endif
