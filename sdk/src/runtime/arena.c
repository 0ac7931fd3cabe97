/* First-fit allocator with address-ordered free list and coalescing; used for
 * the tensor heap slice and for TCM (sdk/ABI.md "Memory a core sees").
 *
 * Every block starts with an 8-byte header holding its total size (header
 * included). A free block additionally links to the next free block, so the
 * smallest block is 16 bytes. Sizes are multiples of 8, which keeps every
 * payload 8-aligned (int64/double elements and tensor descriptors need that);
 * stricter alignments split off a leading free fragment. */
#include <q7/runtime.h>

#define HEADER 8u
#define MIN_BLOCK 16u

typedef struct q7_free_block {
  size_t size;
  uint32_t pad;
  struct q7_free_block *next;
} q7_free_block;

typedef struct {
  size_t size;
  uint32_t magic; /* catches frees of pointers this allocator never returned */
} used_header;

#define USED_MAGIC 0x71a110c8u

_Static_assert(sizeof(used_header) == HEADER, "header size");

static uintptr_t align_up(uintptr_t x, uintptr_t a) { return (x + a - 1) & ~(a - 1); }

void q7_arena_init(q7_arena *arena, uintptr_t base, size_t size) {
  uintptr_t start = align_up(base, 8);
  uintptr_t end = (base + size) & ~(uintptr_t)7;
  arena->base = start;
  arena->size = end > start ? end - start : 0;
  arena->free_list = NULL;
  arena->in_use = 0;
  arena->peak = 0;
  if (arena->size >= MIN_BLOCK) {
    q7_free_block *block = (q7_free_block *)start;
    block->size = arena->size;
    block->next = NULL;
    arena->free_list = block;
  }
}

/* Inserts a free block in address order and merges it with its neighbours. */
static void insert_free(q7_arena *arena, q7_free_block *block) {
  q7_free_block **link = &arena->free_list;
  while (*link && *link < block) link = &(*link)->next;
  block->next = *link;
  *link = block;
  if (block->next && (uintptr_t)block + block->size == (uintptr_t)block->next) {
    block->size += block->next->size;
    block->next = block->next->next;
  }
  if (link != &arena->free_list) {
    q7_free_block *prev = (q7_free_block *)((char *)link - __builtin_offsetof(q7_free_block, next));
    if ((uintptr_t)prev + prev->size == (uintptr_t)block) {
      prev->size += block->size;
      prev->next = block->next;
    }
  }
}

void *q7_arena_alloc(q7_arena *arena, size_t size, size_t align) {
  if (align < 8) align = 8;
  if (align & (align - 1)) return NULL;
  if (size > arena->size) return NULL;
  size_t need = align_up(size, 8) + HEADER;
  if (need < MIN_BLOCK) need = MIN_BLOCK;
  for (q7_free_block **link = &arena->free_list; *link; link = &(*link)->next) {
    q7_free_block *block = *link;
    uintptr_t start = (uintptr_t)block;
    uintptr_t end = start + block->size;
    uintptr_t payload = align_up(start + HEADER, align);
    /* A leading fragment must be big enough to stay a free block. */
    if (payload - HEADER != start && payload - HEADER - start < MIN_BLOCK)
      payload = align_up(start + HEADER + MIN_BLOCK, align);
    if (payload + need - HEADER > end) continue;
    uintptr_t used = payload - HEADER;
    *link = block->next;
    if (used > start) { /* give back the leading fragment */
      q7_free_block *lead = block;
      lead->size = used - start;
      lead->next = *link;
      *link = lead;
      link = &lead->next;
    }
    size_t taken = end - used;
    if (taken - need >= MIN_BLOCK) { /* split off the tail */
      q7_free_block *tail = (q7_free_block *)(used + need);
      tail->size = taken - need;
      tail->next = *link;
      *link = tail;
      taken = need;
    }
    used_header *header = (used_header *)used;
    header->size = taken;
    header->magic = USED_MAGIC;
    arena->in_use += taken;
    if (arena->in_use > arena->peak) arena->peak = arena->in_use;
    return (void *)payload;
  }
  return NULL;
}

size_t q7_arena_block_size(const void *ptr) {
  const used_header *header = (const used_header *)((uintptr_t)ptr - HEADER);
  return header->size - HEADER;
}

void q7_arena_free(q7_arena *arena, void *ptr) {
  if (!ptr) return;
  uintptr_t at = (uintptr_t)ptr - HEADER;
  used_header *header = (used_header *)at;
  if (at < arena->base || at >= arena->base + arena->size || header->magic != USED_MAGIC)
    q7_fail(Q7_STATUS_ABORT, "free of %p, which was not allocated here", ptr);
  size_t size = header->size;
  header->magic = 0;
  arena->in_use -= size;
  q7_free_block *block = (q7_free_block *)at;
  block->size = size;
  insert_free(arena, block);
}
