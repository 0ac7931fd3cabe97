/* q7_main: called by _start after .bss and constructors (sdk/ABI.md "Start-up"):
 * validate the launch block, look up the function the host asked for in the
 * wrapper's table and call its <fn>_stack_switch(). Returns the exit status. */
#include <q7/runtime.h>

extern uint32_t get_func_cnt(void);
extern uint32_t get_func_ptr(uint32_t index);

int q7_main(void) {
  q7_launch_block *launch = q7_launch();
  if (!launch) {
    q7_launch_block *raw = (q7_launch_block *)(void *)__q7_launch;
    q7_fail(Q7_STATUS_BAD_LAUNCH, "bad launch block at %p: magic %#x version %u (want %#x version %u)",
            (void *)raw, (unsigned)raw->magic, (unsigned)raw->version, Q7_LAUNCH_MAGIC, Q7_LAUNCH_VERSION);
  }
  launch->status = Q7_STATUS_OK;
  launch->result_tensor = 0;
  uint32_t count = get_func_cnt();
  if (launch->function_index >= count)
    q7_fail(Q7_STATUS_BAD_FUNCTION, "function index %u out of range (%u functions)",
            (unsigned)launch->function_index, (unsigned)count);
  void (*stack_switch)(void) = (void (*)(void))(uintptr_t)get_func_ptr(launch->function_index);
  stack_switch();
  __asm__ volatile("memw" ::: "memory");
  return (int)launch->status;
}
