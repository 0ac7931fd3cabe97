// The builtin op library: SORT and TopK on the eight GPSIMD cores, built like
// the vendor's libbuiltincustomop_cpu{0..7}.stripped.so (docs/FACTS.md) with the
// open SDK. See README.md in this folder for the algorithm and the barrier
// protocol; the comments here say what each piece does.
//
//   sort_singlecore_compute(Tensor x) -> Tensor          one core sorts all of x
//   sort_multicore_compute(Tensor x) -> Tensor           local sorts + merge tree
//   partial_sort_multicore_compute(Tensor x) -> Tensor   local sorts only
//   partial_merge_multicore_compute(Tensor x) -> Tensor  merge tree only
//   topk_multicore_compute(Tensor x, int k) -> Tensor    the k largest, descending
//
// x is a 1-D float tensor. The multicore ops write through get_dst_tensor()
// and return it. Ascending order; NaN sorts last (as torch.sort does) and
// comes back as the canonical quiet NaN.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

namespace {

// ---------------------------------------------------------------------------
// Sort keys. A float maps to a 32-bit unsigned key whose integer order is the
// float order (negative floats have all bits flipped, positive ones the sign
// bit set), so the sort compares integers and never touches the FPU. Every
// NaN maps to one key above +inf, and padding uses the largest key of all, so
// padding sorts after every real element, NaN included.
// ---------------------------------------------------------------------------
const uint32_t kPadKey = 0xffffffffu;
const uint32_t kNanKey = 0xfffffffeu;
const uint32_t kQuietNan = 0x7fc00000u;

inline uint32_t key_of(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) return kNanKey;
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

inline float float_of(uint32_t key) {
  uint32_t b;
  if (key >= kNanKey) {
    b = kQuietNan;
  } else if (key & 0x80000000u) {
    b = key & 0x7fffffffu;
  } else {
    b = ~key;
  }
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

void fail(const char* op, const char* message);

uint32_t next_pow2(uint32_t n) {
  uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

uint32_t log2_exact(uint32_t n) {
  uint32_t l = 0;
  while ((1u << l) < n) l++;
  return l;
}

// ---------------------------------------------------------------------------
// Bitonic sort of n keys, n a power of two, ascending. Stage k builds bitonic
// runs of length k; step j compare-exchanges elements j apart, upwards in
// blocks whose bit k is clear and downwards in the others.
// ---------------------------------------------------------------------------
void bitonic_sort(uint32_t* a, uint32_t n) {
  for (uint32_t k = 2; k <= n; k <<= 1) {
    for (uint32_t j = k >> 1; j > 0; j >>= 1) {
      for (uint32_t base = 0; base < n; base += 2 * j) {
        uint32_t* p = a + base;
        uint32_t* q = p + j;
        if ((base & k) == 0) {
          for (uint32_t i = 0; i < j; i++) {
            uint32_t x = p[i], y = q[i];
            p[i] = x < y ? x : y;
            q[i] = x < y ? y : x;
          }
        } else {
          for (uint32_t i = 0; i < j; i++) {
            uint32_t x = p[i], y = q[i];
            p[i] = x < y ? y : x;
            q[i] = x < y ? x : y;
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The shared DRAM window [0x80000, 0x90000) (sdk/ABI.md): one 64-byte slot per
// core at 0x80000 + 64 * id, so the library uses [0x80000, 0x80200).
//
//   +0   arrivals  barriers this core has passed since the window was zeroed
//                  (wraps modulo 2^32)
//   +4   failed    the arrival count this core will never reach because it
//                  failed (0: never failed)
//   +8   runs[L]   address of this core's level-L run buffer, L = 0..3
//
// Every word of a slot is written only by the slot's core.
// ---------------------------------------------------------------------------
const uintptr_t kSharedDram = 0x80000;
const uint32_t kMaxCores = 8;
const uint32_t kMaxLevels = 3;

struct alignas(64) CoreSlot {
  volatile uint32_t arrivals;
  volatile uint32_t failed;
  volatile uint32_t runs[kMaxLevels + 1];
};

inline CoreSlot* slot(uint32_t core) { return (CoreSlot*)kSharedDram + core; }

inline void memory_barrier() { __asm__ volatile("memw" ::: "memory"); }

// A barrier over all cores of the launch without atomic instructions: every
// core only ever writes its own slot. A core arriving at its b-th barrier of
// the launch stores base + b and waits until every counter has reached
// base + b (compared modulo 2^32), base being its counter at launch start.
// Every core of a launch passes the same number of barriers, so all counters
// start each launch equal (zero when the host zeroed the window). A core that
// fails stores base + b + 1 in `failed`; a waiter that sees a failure newer
// than its base gives up too instead of waiting for ever.
class Barrier {
 public:
  Barrier(uint32_t id, uint32_t count) : id_(id), count_(count), base_(slot(id)->arrivals), passed_(0) {}

  void wait(const char* op) {
    memory_barrier();  // this core's stores land before its arrival shows
    passed_ += 1;
    uint32_t target = base_ + passed_;
    slot(id_)->arrivals = target;
    for (uint32_t c = 0; c < count_; c++) {
      while ((int32_t)(slot(c)->arrivals - target) < 0) {
        if ((int32_t)(slot(c)->failed - base_) > 0) fail(op, "another core failed; abandoning the launch");
      }
    }
    memory_barrier();
  }

  void mark_failed() {
    slot(id_)->failed = base_ + passed_ + 1;
    memory_barrier();
  }

 private:
  uint32_t id_;
  uint32_t count_;
  uint32_t base_;
  uint32_t passed_;
};

// The barrier of the multicore op running on this core, if any.
Barrier* active_barrier = nullptr;

void fail(const char* op, const char* message) {
  if (active_barrier != nullptr) {
    Barrier* b = active_barrier;
    active_barrier = nullptr;
    b->mark_failed();
  }
  fprintf(stderr, "%s: %s\n", op, message);
  abort();
}

// Merges, from the top down, the largest `count` keys of the sorted runs
// a[a_lo, a_hi) and b[b_lo, b_hi) into out[out_hi - count, out_hi).
void merge_top(const uint32_t* a, uint32_t a_lo, uint32_t a_hi, const uint32_t* b, uint32_t b_lo, uint32_t b_hi,
               uint32_t* out, uint32_t out_hi, uint32_t count) {
  uint32_t ia = a_hi, ib = b_hi;
  uint32_t* o = out + out_hi;
  for (uint32_t t = 0; t < count; t++) {
    if (ia > a_lo && (ib == b_lo || a[ia - 1] >= b[ib - 1])) {
      *--o = a[--ia];
    } else {
      *--o = b[--ib];
    }
  }
}

// One launch of a multicore op on this core: its share of x, its run
// buffers, and its part in the merge tree.
//
// Ownership: a core writes only the buffers it allocated (its runs) and its
// own part of the destination; other cores read a run only between the
// barrier after which it is complete and the final barrier, before which
// nobody frees anything.
class MulticoreSort {
 public:
  MulticoreSort(const char* op, uint32_t numel)
      : op_(op), id_(get_cpu_id()), count_(get_cpu_count()), barrier_(id_, count_), numel_(numel) {
    active_barrier = &barrier_;
    if (count_ == 0 || count_ > kMaxCores || (count_ & (count_ - 1)) != 0) {
      fail(op_, "the core count must be 1, 2, 4 or 8");
    }
    levels_ = log2_exact(count_);
    // Balanced partition: count_ shares, the first numel % count_ one larger.
    share_ = numel_ / count_;
    extra_ = numel_ % count_;
    chunk_ = next_pow2(share_ + (extra_ ? 1 : 0));
    // The levels this core merges at: while its id is a multiple of 2^L.
    top_ = 0;
    while (top_ < levels_ && id_ % (2u << top_) == 0) top_++;
    for (uint32_t level = 0; level <= kMaxLevels; level++) {
      runs_[level] = nullptr;
      if (level <= top_) {
        runs_[level] = (uint32_t*)malloc(sizeof(uint32_t) * (chunk_ << level));
        if (runs_[level] == nullptr) fail(op_, "out of heap memory for the run buffers");
      }
      slot(id_)->runs[level] = (uint32_t)(uintptr_t)runs_[level];
    }
  }

  ~MulticoreSort() {
    active_barrier = nullptr;
    for (uint32_t level = 0; level <= kMaxLevels; level++) free(runs_[level]);
  }

  uint32_t first(uint32_t core) const { return core * share_ + (core < extra_ ? core : extra_); }
  uint32_t size(uint32_t core) const { return share_ + (core < extra_ ? 1 : 0); }
  uint32_t id() const { return id_; }

  // Level 0 from an unsorted x: this core's share of x, padded with the pad
  // key to chunk_ keys and bitonic-sorted into its level-0 run. The sort runs
  // in TCM when the chunk fits there, else in the run buffer itself.
  void sort_local(const torch::Tensor& x) {
    uint32_t n = size(id_);
    uint32_t* run = runs_[0];
    uint32_t* work = (uint32_t*)torch::neuron::tcm_malloc(sizeof(uint32_t) * chunk_);
    if (work != nullptr) {
      x.tcm_accessor().tensor_to_tcm<float>((float*)work, first(id_), n);
      for (uint32_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, &work[i], sizeof f);
        work[i] = key_of(f);
      }
    } else {
      work = run;
      auto acc = x.accessor<float, 1>();
      for (uint32_t i = 0; i < n; i++) work[i] = key_of(acc[first(id_) + i]);
    }
    for (uint32_t i = n; i < chunk_; i++) work[i] = kPadKey;
    bitonic_sort(work, chunk_);
    if (work != run) {
      memcpy(run, work, sizeof(uint32_t) * chunk_);
      torch::neuron::tcm_free(work);
    }
  }

  // Level 0 from an x whose shares are already sorted (the output of
  // partial_sort_multicore_compute): load and check this core's run.
  void load_sorted_run(const torch::Tensor& x) {
    uint32_t n = size(id_);
    uint32_t* run = runs_[0];
    auto acc = x.accessor<float, 1>();
    for (uint32_t i = 0; i < n; i++) {
      run[i] = key_of(acc[first(id_) + i]);
      if (i > 0 && run[i] < run[i - 1]) {
        fail(op_, "the input is not sorted within each core's share (run partial_sort_multicore_compute first)");
      }
    }
    for (uint32_t i = n; i < chunk_; i++) run[i] = kPadKey;
  }

  // This core's level-0 run, for partial_sort_multicore_compute: its share's
  // keys sorted, then the padding.
  const uint32_t* local_run() const { return runs_[0]; }

  // Levels 1..levels_ of the pairwise merge tree (8 -> 4 -> 2 -> 1 runs),
  // each closed by a barrier. At level L the core whose id is a multiple of
  // 2^L merges its own level-(L-1) run with that of core id + 2^(L-1) into
  // its level-L run; the other cores only wait. `keep` bounds how many of the
  // largest real keys a run must hold (TopK); 0 keeps all. Returns the final
  // run (core 0's level-levels_ run: count_ * chunk_ keys, the real ones at
  // [0, numel) when all are kept), readable by every core until finish().
  const uint32_t* merge_tree(uint32_t keep) {
    barrier_.wait(op_);  // every level-0 run sorted, every run address published
    for (uint32_t level = 1; level <= levels_; level++) {
      if (level <= top_) {
        uint32_t half = 1u << (level - 1);
        uint32_t partner = id_ + half;
        const uint32_t* a = runs_[level - 1];
        const uint32_t* b = (const uint32_t*)(uintptr_t)slot(partner)->runs[level - 1];
        uint32_t len = chunk_ << (level - 1);
        uint32_t a_valid = valid(id_, half, level - 1, keep);
        uint32_t b_valid = valid(partner, half, level - 1, keep);
        uint32_t out = valid(id_, 2 * half, level, keep);
        merge_top(a, len - a_valid, len, b, len - b_valid, len, runs_[level], 2 * len, out);
      }
      barrier_.wait(op_);
    }
    return (const uint32_t*)(uintptr_t)slot(0)->runs[levels_];
  }

  // The last barrier: every core has finished reading the final run.
  void finish() { barrier_.wait(op_); }

 private:
  // How many keys at the top of a level-`level` run of the cores
  // [core, core + cores) are valid: all of them for a sort, else the `keep`
  // largest real keys plus the run's padding (which sorts above them).
  uint32_t valid(uint32_t core, uint32_t cores, uint32_t level, uint32_t keep) const {
    uint32_t len = cores * chunk_;
    if (keep == 0 || level == 0) return len;
    uint32_t pads = 0;
    for (uint32_t c = core; c < core + cores; c++) pads += chunk_ - size(c);
    uint32_t need = keep + pads;
    return need < len ? need : len;
  }

  const char* op_;
  uint32_t id_, count_;
  Barrier barrier_;
  uint32_t numel_;
  uint32_t levels_, share_, extra_, chunk_, top_;
  uint32_t* runs_[kMaxLevels + 1];
};

void check_input(const char* op, const torch::Tensor& x) {
  if (x.scalar_type() != torch::kFloat) fail(op, "x must be a float32 tensor");
  if (x.dim() != 1) fail(op, "x must be 1-D");
}

torch::Tensor destination(const char* op, int64_t numel) {
  torch::Tensor dst = get_dst_tensor();
  if (dst.scalar_type() != torch::kFloat || dst.numel() != numel) {
    fail(op, "the destination tensor must be float32 with one element per output");
  }
  return dst;
}

// This core's part of a merged result: the balanced share of [0, total).
void part(uint32_t total, uint32_t* lo, uint32_t* hi) {
  uint32_t id = get_cpu_id(), count = get_cpu_count();
  uint32_t share = total / count, extra = total % count;
  *lo = id * share + (id < extra ? id : extra);
  *hi = *lo + share + (id < extra ? 1 : 0);
}

// The end of a sort: this core converts its part of the final run into dst,
// then waits until every core has (the final run is core 0's memory).
void sort_into(MulticoreSort& s, const uint32_t* merged, uint32_t numel, torch::Tensor& dst) {
  uint32_t lo, hi;
  part(numel, &lo, &hi);
  auto out = dst.accessor<float, 1>();
  for (uint32_t i = lo; i < hi; i++) out[i] = float_of(merged[i]);
  s.finish();
}

}  // namespace

// ---------------------------------------------------------------------------
// The op-name table in .data, as the vendor images carry it: one contiguous
// NUL-terminated list, filled into a lookup table by a static constructor
// (so the image's .ctors holds a real entry between its sentinel and NULL).
// ---------------------------------------------------------------------------
extern "C" {
char builtin_op_names[] =
    "sort_singlecore_compute\0"
    "sort_multicore_compute\0"
    "partial_sort_multicore_compute\0"
    "partial_merge_multicore_compute\0"
    "topk_multicore_compute\0";
const char* builtin_op_table[8];
uint32_t builtin_op_count;
}

namespace {
struct OpTable {
  OpTable() {
    const char* p = builtin_op_names;
    const char* end = builtin_op_names + sizeof builtin_op_names - 1;
    while (p < end && *p && builtin_op_count < 8) {
      builtin_op_table[builtin_op_count++] = p;
      p += strlen(p) + 1;
    }
  }
};
OpTable op_table;
}  // namespace

torch::Tensor sort_singlecore_compute(const torch::Tensor& x) {
  const char* op = "sort_singlecore_compute";
  check_input(op, x);
  uint32_t n = (uint32_t)x.numel();
  // One core's work: on a multicore launch the others return an empty tensor.
  if (get_cpu_id() != 0) return torch::empty({0}, torch::kFloat);
  torch::Tensor out = torch::empty({(int64_t)n}, torch::kFloat);
  uint32_t padded = next_pow2(n);
  uint32_t* keys = (uint32_t*)torch::neuron::tcm_malloc(sizeof(uint32_t) * padded);
  bool in_tcm = keys != nullptr;
  if (!in_tcm) keys = (uint32_t*)malloc(sizeof(uint32_t) * padded);
  if (keys == nullptr) fail(op, "out of heap memory for the keys");
  auto in = x.accessor<float, 1>();
  for (uint32_t i = 0; i < n; i++) keys[i] = key_of(in[i]);
  for (uint32_t i = n; i < padded; i++) keys[i] = kPadKey;
  bitonic_sort(keys, padded);
  auto acc = out.accessor<float, 1>();
  for (uint32_t i = 0; i < n; i++) acc[i] = float_of(keys[i]);
  if (in_tcm) {
    torch::neuron::tcm_free(keys);
  } else {
    free(keys);
  }
  return out;
}

torch::Tensor sort_multicore_compute(const torch::Tensor& x) {
  const char* op = "sort_multicore_compute";
  check_input(op, x);
  uint32_t n = (uint32_t)x.numel();
  torch::Tensor dst = destination(op, n);
  MulticoreSort s(op, n);
  s.sort_local(x);
  sort_into(s, s.merge_tree(0), n, dst);
  return dst;
}

torch::Tensor partial_sort_multicore_compute(const torch::Tensor& x) {
  const char* op = "partial_sort_multicore_compute";
  check_input(op, x);
  uint32_t n = (uint32_t)x.numel();
  torch::Tensor dst = destination(op, n);
  MulticoreSort s(op, n);
  s.sort_local(x);
  // This core's share, sorted, back where it came from: the first size keys
  // of its run (the padding sorts after them). No barrier: no core reads
  // another's memory.
  uint32_t first = s.first(s.id()), size = s.size(s.id());
  const uint32_t* run = s.local_run();
  auto out = dst.accessor<float, 1>();
  for (uint32_t i = 0; i < size; i++) out[first + i] = float_of(run[i]);
  return dst;
}

torch::Tensor partial_merge_multicore_compute(const torch::Tensor& x) {
  const char* op = "partial_merge_multicore_compute";
  check_input(op, x);
  uint32_t n = (uint32_t)x.numel();
  torch::Tensor dst = destination(op, n);
  MulticoreSort s(op, n);
  s.load_sorted_run(x);
  sort_into(s, s.merge_tree(0), n, dst);
  return dst;
}

torch::Tensor topk_multicore_compute(const torch::Tensor& x, int64_t k) {
  const char* op = "topk_multicore_compute";
  check_input(op, x);
  uint32_t n = (uint32_t)x.numel();
  if (k < 0 || k > (int64_t)n) fail(op, "k must lie in [0, x.numel()]");
  torch::Tensor dst = destination(op, k);
  MulticoreSort s(op, n);
  s.sort_local(x);
  // Runs keep only their top k real keys (plus padding) as they merge. The k
  // largest end up at [n - k, n) of the final run, ascending; output t is
  // the (t+1)-th largest. Each core writes its part of the k outputs.
  const uint32_t* merged = s.merge_tree(k == 0 ? 1 : (uint32_t)k);
  uint32_t lo, hi;
  part((uint32_t)k, &lo, &hi);
  auto out = dst.accessor<float, 1>();
  for (uint32_t t = lo; t < hi; t++) out[t] = float_of(merged[n - 1 - t]);
  s.finish();
  return dst;
}
