/* The two allocators a core owns, set up lazily from the launch block: the
 * tensor-memory heap slice (malloc, operator new, tensors the op creates) and
 * the TCM pool (tcm_malloc). Without a valid launch block both are empty. */
#include <stdlib.h>
#include <string.h>
#include <q7/runtime.h>

static q7_arena heap_arena, tcm_arena;
static int arenas_ready;

static void ensure_arenas(void) {
  if (arenas_ready) return;
  arenas_ready = 1;
  q7_launch_block *launch = q7_launch();
  if (launch) {
    q7_arena_init(&heap_arena, launch->heap_base, launch->heap_size);
    q7_arena_init(&tcm_arena, launch->tcm_base, launch->tcm_size);
  }
}

void *q7_heap_alloc(size_t size, size_t align) {
  ensure_arenas();
  return q7_arena_alloc(&heap_arena, size, align);
}

void q7_heap_free(void *ptr) {
  ensure_arenas();
  q7_arena_free(&heap_arena, ptr);
}

void *q7_heap_alloc_or_fail(size_t size, size_t align) {
  void *p = q7_heap_alloc(size, align);
  if (!p)
    q7_fail(Q7_STATUS_NO_HEAP, "out of heap memory: %u bytes requested, %u of %u in use", (unsigned)size,
            (unsigned)heap_arena.in_use, (unsigned)heap_arena.size);
  return p;
}

void *q7_tcm_alloc(size_t size) {
  ensure_arenas();
  return q7_arena_alloc(&tcm_arena, size, 8);
}

void q7_tcm_free(void *ptr) {
  ensure_arenas();
  q7_arena_free(&tcm_arena, ptr);
}

void *malloc(size_t size) { return q7_heap_alloc(size, 8); }

void *aligned_alloc(size_t alignment, size_t size) { return q7_heap_alloc(size, alignment); }

void *calloc(size_t count, size_t size) {
  if (size && count > (size_t)-1 / size) return NULL;
  void *p = malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void free(void *ptr) { q7_heap_free(ptr); }

void *realloc(void *ptr, size_t size) {
  if (!ptr) return malloc(size);
  if (!size) {
    free(ptr);
    return NULL;
  }
  size_t old = q7_arena_block_size(ptr);
  if (old >= size) return ptr;
  void *fresh = malloc(size);
  if (fresh) {
    memcpy(fresh, ptr, old);
    free(ptr);
  }
  return fresh;
}
