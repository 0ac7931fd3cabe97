// Builds a launch block (sdk/ABI.md) in QEMU's RAM the way the q7 simulator
// would: heap slice, TCM, core identity, and tensor arguments.
#ifndef Q7_QEMU_LAUNCH_FIXTURE_H
#define Q7_QEMU_LAUNCH_FIXTURE_H

#include <stdint.h>
#include <string.h>
#include <q7/abi.h>
#include <q7/runtime.h>

extern "C" char q7_qemu_heap[];  // qemu.ld: 1 MiB at 0x600000

namespace q7_fixture {

// Fake TCM: 16 KiB of ordinary RAM.
inline char *tcm() {
  static char memory[16384] __attribute__((aligned(16)));
  return memory;
}

inline void describe(q7_tensor_desc *d, uint32_t dtype, void *data, int64_t n) {
  memset(d, 0, sizeof *d);
  d->dtype = dtype;
  d->rank = 1;
  d->data = (uint32_t)(uintptr_t)data;
  d->sizes[0] = n;
  d->strides[0] = 1;
  d->numel = n;
}

inline q7_launch_block *launch(uint32_t function_index, uint32_t core_count, q7_arg *args, uint32_t arg_count,
                               q7_tensor_desc *dst) {
  q7_launch_block *lb = (q7_launch_block *)(void *)__q7_launch;
  memset(lb, 0, sizeof *lb);
  lb->magic = Q7_LAUNCH_MAGIC;
  lb->version = Q7_LAUNCH_VERSION;
  lb->function_index = function_index;
  lb->core_id = 0;
  lb->core_count = core_count;
  lb->arg_count = arg_count;
  lb->args = (uint32_t)(uintptr_t)args;
  lb->dst_tensor = (uint32_t)(uintptr_t)dst;
  lb->heap_base = (uint32_t)(uintptr_t)q7_qemu_heap;
  lb->heap_size = 0x100000;
  lb->tcm_base = (uint32_t)(uintptr_t)tcm();
  lb->tcm_size = 16384;
  return lb;
}

}  // namespace q7_fixture

#endif
