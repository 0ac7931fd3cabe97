// switch_stack_or_call_wrapper (neuron/stack_switch.hpp): call the wrapper on
// the current stack when enough of it remains, else on a heap-allocated stack
// through q7_call_on_stack (stack_switch.S explains the windowed-ABI details).
#include <neuron/stack_switch.hpp>
#include <q7/runtime.h>

namespace {
// Room kept below the requested size for the switch itself, the window-spill
// chain and an eventual failure message.
constexpr uint32_t kStackMargin = 1024;

uintptr_t current_stack_pointer() {
  uintptr_t sp;
  __asm__ volatile("mov %0, a1" : "=r"(sp));
  return sp;
}
}  // namespace

void switch_stack_or_call_wrapper(uint32_t wrapper_fn, uint32_t stack_size) {
  void (*wrapper)() = (void (*)())(uintptr_t)wrapper_fn;
  if (stack_size > MAX_STACK_SIZE)
    q7_fail(Q7_STATUS_ABORT, "stack size %u exceeds MAX_STACK_SIZE %u", (unsigned)stack_size,
            (unsigned)MAX_STACK_SIZE);
  uintptr_t sp = current_stack_pointer();
  uintptr_t floor = (uintptr_t)_end;
  if (sp > floor && sp - floor >= (uintptr_t)stack_size + kStackMargin) {
    wrapper();
    return;
  }
  size_t bytes = ((size_t)stack_size + kStackMargin + 15u) & ~(size_t)15u;
  char *stack = (char *)q7_heap_alloc(bytes, 16);
  if (!stack) q7_fail(Q7_STATUS_NO_HEAP, "no heap for a %u-byte operator stack", (unsigned)bytes);
  q7_call_on_stack(wrapper, (uintptr_t)(stack + bytes));
  q7_heap_free(stack);
}
