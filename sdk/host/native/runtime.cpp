// Host implementations of the device runtime (sdk/src/runtime) for
// `q7 run --native`: the heap and TCM allocators over the host's malloc (so
// AddressSanitizer sees every block), the core identity the driver sets, the
// argument stream and failure reporting. The tensor library itself
// (sdk/src/torch) is compiled from the device sources.
//
// What the device does not have is a finding with the op's stack: heap use
// past the device heap (counted by the sanitizer allocator's hooks), and a
// process created (q7's seccomp filter traps fork and clone with SIGSYS).
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sanitizer/allocator_interface.h>
#include <sanitizer/common_interface_defs.h>

#include <neuron/customop_runtime.hpp>
#include <neuron/neuron-utils.hpp>
#include <q7/runtime.h>

#include "q7_native.h"

namespace {

// The device's TCM pool per core (docs/PLATFORM.md): 16 KiB, first-fit with
// an 8-byte header and 8-byte granules (sdk/src/runtime/arena.c), charged here
// the same way so an op that runs out of TCM on the device runs out here too.
constexpr size_t kTcmBytes = 16 * 1024;
constexpr size_t kTcmHeader = 8;
constexpr size_t kTcmMaxBlocks = 256;

struct core_state {
  uint32_t id = 0;
  uint32_t count = 1;
  const q7_native_arg *args = nullptr;
  uint32_t arg_count = 0;
  uint32_t next_arg = 0;
  q7_tensor_desc *dst = nullptr;
  bool sdk_checks = true;
  size_t tcm_used = 0;
  void *tcm_blocks[kTcmMaxBlocks] = {};
  size_t tcm_sizes[kTcmMaxBlocks] = {};
};

core_state core;

// Heap accounting: every live block's bytes; a core's use is what it added
// since it began. TCM blocks are charged to the TCM pool instead.
uint64_t heap_limit = 0;
long long heap_live = 0;
long long heap_at_begin = 0;
bool core_running = false;
int tcm_depth = 0;

// A finding of the host runtime: a line q7 reads, then the stack (frames
// q7 symbolizes). No allocation: it may run inside the allocator's hook or
// a signal handler.
void report_finding(const char *kind, const char *message) {
  char line[512];
  int n = snprintf(line, sizeof line, "q7-native: finding: %s: %s\n", kind, message);
  if (n > 0) (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  __sanitizer_print_stack_trace();
}

void on_malloc(const volatile void *, size_t size) {
  if (tcm_depth) return;
  heap_live += (long long)size;
  if (!core_running || heap_limit == 0 || heap_live - heap_at_begin <= (long long)heap_limit) return;
  core_running = false;  // once
  char amount[32], message[160];
  if (heap_limit % (1u << 20) == 0)
    snprintf(amount, sizeof amount, "%llu MiB", (unsigned long long)(heap_limit >> 20));
  else
    snprintf(amount, sizeof amount, "%llu bytes", (unsigned long long)heap_limit);
  snprintf(message, sizeof message,
           "the op allocated more than the device heap's %s, where the device's malloc returns null", amount);
  report_finding("heap-limit", message);
  q7_fail(Q7_STATUS_NO_HEAP, "%s", message);
}

void on_free(const volatile void *ptr) {
  const void *p = (const void *)ptr;
  // Not ours (a bad free): the sanitizer reports it.
  if (tcm_depth || !__sanitizer_get_ownership(p)) return;
  heap_live -= (long long)__sanitizer_get_allocated_size(p);
}

void on_sigsys(int, siginfo_t *info, void *) {
  const char *call = "clone";
#ifdef SYS_fork
  if (info->si_syscall == SYS_fork) call = "fork";
#endif
#ifdef SYS_vfork
  if (info->si_syscall == SYS_vfork) call = "vfork";
#endif
  char message[160];
  snprintf(message, sizeof message, "the op tried to create a process (a %s system call); the device has none",
           call);
  report_finding("process", message);
  q7_fail(Q7_STATUS_ABORT, "%s", message);
}

// Before the op's own static constructors (default priority), after the
// sanitizer runtime's initialisation (preinit).
__attribute__((constructor(101))) void install_guards() {
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_sigsys;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &action, nullptr);
}

size_t tcm_charge(size_t size) { return ((size + 7) & ~(size_t)7) + kTcmHeader; }

const char *kind_name(uint32_t kind) {
  switch (kind) {
    case Q7_ARG_TENSOR: return "tensor";
    case Q7_ARG_DOUBLE: return "double";
    case Q7_ARG_INT64: return "int64";
    case Q7_ARG_SCALAR: return "scalar";
    default: return "unknown";
  }
}

const q7_native_arg &next_arg(uint32_t kind) {
  uint32_t index = core.next_arg;
  if (index >= core.arg_count)
    q7_fail(Q7_STATUS_ARG_COUNT, "argument %u (%s) requested, but the host passed %u", (unsigned)index,
            kind_name(kind), (unsigned)core.arg_count);
  const q7_native_arg &arg = core.args[index];
  if (arg.kind != kind)
    q7_fail(Q7_STATUS_ARG_KIND, "argument %u: the wrapper expects a %s, the host passed a %s", (unsigned)index,
            kind_name(kind), kind_name(arg.kind));
  core.next_arg = index + 1;
  return arg;
}

}  // namespace

void q7_native_begin_core(uint32_t id, uint32_t count, const q7_native_arg *args, uint32_t arg_count,
                          q7_tensor_desc *dst, bool sdk_checks) {
  core.id = id;
  core.count = count;
  core.args = args;
  core.arg_count = arg_count;
  core.next_arg = 0;
  core.dst = dst;
  core.sdk_checks = sdk_checks;
  heap_at_begin = heap_live;
  core_running = true;
}

void q7_native_set_heap_limit(uint64_t bytes) { heap_limit = bytes; }

void q7_native_end_core() {
  core_running = false;
  for (size_t i = 0; i < kTcmMaxBlocks; ++i) {
    ++tcm_depth;
    free(core.tcm_blocks[i]);
    --tcm_depth;
    core.tcm_blocks[i] = nullptr;
    core.tcm_sizes[i] = 0;
  }
  core.tcm_used = 0;
}

extern "C" {

int q7_sdk_checks(void) noexcept { return core.sdk_checks; }

void q7_fail(int status, const char *fmt, ...) noexcept {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "q7: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  q7_set_status_and_exit(status);
}

void q7_set_status_and_exit(int status) noexcept {
  // The driver's reader takes the core from this line (the exit code is the status).
  fprintf(stderr, "q7-native: core %u ended with status %d\n", (unsigned)core.id, status);
  fflush(stdout);
  _Exit(status);
}

void *q7_heap_alloc(size_t size, size_t align) noexcept {
  void *p = nullptr;
  if (align < sizeof(void *)) align = sizeof(void *);
  return posix_memalign(&p, align, size ? size : 1) == 0 ? p : nullptr;
}

void q7_heap_free(void *ptr) noexcept { free(ptr); }

void *q7_heap_alloc_or_fail(size_t size, size_t align) noexcept {
  void *p = q7_heap_alloc(size, align);
  if (!p) q7_fail(Q7_STATUS_NO_HEAP, "out of heap memory (%u bytes requested)", (unsigned)size);
  return p;
}

void *q7_tcm_alloc(size_t size) noexcept {
  if (size == 0 || tcm_charge(size) > kTcmBytes - core.tcm_used) return nullptr;
  for (size_t i = 0; i < kTcmMaxBlocks; ++i) {
    if (core.tcm_blocks[i]) continue;
    ++tcm_depth;
    void *p = malloc(size);
    --tcm_depth;
    if (!p) return nullptr;
    core.tcm_blocks[i] = p;
    core.tcm_sizes[i] = size;
    core.tcm_used += tcm_charge(size);
    return p;
  }
  return nullptr;
}

void q7_tcm_free(void *ptr) noexcept {
  if (!ptr) return;
  for (size_t i = 0; i < kTcmMaxBlocks; ++i) {
    if (core.tcm_blocks[i] != ptr) continue;
    core.tcm_used -= tcm_charge(core.tcm_sizes[i]);
    core.tcm_blocks[i] = nullptr;
    ++tcm_depth;
    free(ptr);
    --tcm_depth;
    return;
  }
  // Not a TCM block: freeing it is the op's bug; let the sanitizer say so.
  free(ptr);
}

uint32_t q7_core_id(void) noexcept { return core.id; }
uint32_t q7_core_count(void) noexcept { return core.count; }

}  // extern "C"

void customop_setup() { core.next_arg = 0; }
void customop_setup(bool) { customop_setup(); }
torch::Tensor customop_next_tensor() { return torch::Tensor(next_arg(Q7_ARG_TENSOR).tensor); }
double customop_next_double() { return next_arg(Q7_ARG_DOUBLE).f64; }
int64_t customop_next_int64() { return next_arg(Q7_ARG_INT64).i64; }
torch::Scalar customop_next_scalar() { return torch::Scalar(next_arg(Q7_ARG_SCALAR).f64); }
int customop_next_int() { return (int)customop_next_int64(); }
long long customop_next_longlong() { return customop_next_int64(); }
float customop_next_float() { return (float)customop_next_double(); }
void customop_return_tensor(const torch::Tensor &) {}
void customop_cleanup() {}

torch::Tensor get_dst_tensor() {
  if (!core.dst) q7_fail(Q7_STATUS_ABORT, "get_dst_tensor(): the host passed no destination tensor");
  return torch::Tensor(core.dst);
}

uint32_t get_cpu_id() { return q7_core_id(); }
uint32_t get_cpu_count() { return q7_core_count(); }

namespace torch {
namespace neuron {
void *tcm_malloc(size_t nbytes) { return q7_tcm_alloc(nbytes); }
void tcm_free(void *ptr) { q7_tcm_free(ptr); }
}  // namespace neuron
}  // namespace torch
