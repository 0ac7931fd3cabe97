/* Launch-block access, simulator services and failure reporting (sdk/ABI.md). */
#include <q7/runtime.h>

q7_launch_block *q7_launch(void) {
  q7_launch_block *launch = (q7_launch_block *)(void *)__q7_launch;
  if (launch->magic != Q7_LAUNCH_MAGIC || launch->version != Q7_LAUNCH_VERSION) return NULL;
  return launch;
}

int q7_sdk_checks(void) {
  q7_launch_block *launch = q7_launch();
  return !launch || !(launch->flags & Q7_LAUNCH_NO_SDK_CHECKS);
}

int q7_write(int fd, const void *buf, size_t len) {
  return q7_simcall(Q7_SYS_WRITE, fd, (int)(uintptr_t)buf, (int)len);
}

void q7_exit(int status) {
  /* Make every store visible to the host before the core stops. */
  __asm__ volatile("memw" ::: "memory");
  for (;;) q7_simcall(Q7_SYS_EXIT, status, 0, 0);
}

/* q7_fail itself is in libc/variadic.S + printf.c (variadic functions avoid
 * clang's va_start); it ends here. */
void q7_set_status_and_exit(int status) {
  q7_launch_block *launch = q7_launch();
  if (launch) launch->status = (uint32_t)status;
  q7_exit(status);
}

uint32_t q7_core_id(void) {
  uint32_t id;
  __asm__ volatile("rsr %0, prid" : "=r"(id));
  return id;
}

uint32_t q7_core_count(void) {
  q7_launch_block *launch = q7_launch();
  return launch && launch->core_count ? launch->core_count : 1;
}
