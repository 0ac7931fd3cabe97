/* The q7 device ABI (sdk/ABI.md) as C types: the launch block the host writes at
   __q7_launch, the argument records and the tensor descriptor. */
#ifndef Q7_ABI_H
#define Q7_ABI_H

#include <stdint.h>

#define Q7_LAUNCH_MAGIC 0x424c3751u /* "Q7LB" in memory */
#define Q7_LAUNCH_VERSION 1u
#define Q7_MAX_RANK 8
#define Q7_TENSOR_DEVICE_ALLOCATED 1u

/* Argument kinds. */
enum { Q7_ARG_TENSOR = 1, Q7_ARG_DOUBLE = 2, Q7_ARG_INT64 = 3, Q7_ARG_SCALAR = 4 };

/* Launch status codes; also the exit code. */
enum {
  Q7_STATUS_OK = 0,
  Q7_STATUS_BAD_LAUNCH = 1,
  Q7_STATUS_BAD_FUNCTION = 2,
  Q7_STATUS_ARG_KIND = 3,
  Q7_STATUS_ARG_COUNT = 4,
  Q7_STATUS_NO_HEAP = 5,
  Q7_STATUS_NO_TCM = 6,
  Q7_STATUS_ABORT = 7
};

/* dtype codes (c10::ScalarType numbering). */
enum {
  Q7_DTYPE_BYTE = 0,
  Q7_DTYPE_CHAR = 1,
  Q7_DTYPE_SHORT = 2,
  Q7_DTYPE_INT = 3,
  Q7_DTYPE_LONG = 4,
  Q7_DTYPE_HALF = 5,
  Q7_DTYPE_FLOAT = 6,
  Q7_DTYPE_DOUBLE = 7,
  Q7_DTYPE_BOOL = 11,
  Q7_DTYPE_BFLOAT16 = 15
};

/* A tensor's data address: 32 bits on the device. The host build of the SDK
   (`q7 run --native`, -DQ7_NATIVE) keeps tensors wherever the host allocates, so
   there it is pointer-wide and the descriptor layout is the host's own. */
#ifdef Q7_NATIVE
typedef uintptr_t q7_addr;
#else
typedef uint32_t q7_addr;
#endif

typedef struct q7_tensor_desc {
  uint32_t dtype;
  uint32_t rank;
  q7_addr data; /* address of element [0, 0, ...] */
  uint32_t flags;
  int64_t sizes[Q7_MAX_RANK];
  int64_t strides[Q7_MAX_RANK]; /* in elements */
  int64_t numel;
  uint64_t reserved;
#ifdef Q7_NATIVE
  uintptr_t host_owner; /* a view's owner; on the device the high word of reserved */
#endif
} __attribute__((aligned(8))) q7_tensor_desc;

typedef struct q7_arg {
  uint32_t kind;
  uint32_t reserved;
  union {
    uint32_t tensor; /* address of a q7_tensor_desc (high word zero) */
    double f64;
    int64_t i64;
  } value;
} q7_arg;

typedef struct q7_launch_block {
  uint32_t magic;
  uint32_t version;
  uint32_t function_index;
  uint32_t core_id;
  uint32_t core_count;
  uint32_t arg_count;
  uint32_t args;       /* address of q7_arg[arg_count] */
  uint32_t dst_tensor; /* address of a q7_tensor_desc, or 0 */
  uint32_t heap_base;
  uint32_t heap_size;
  uint32_t tcm_base;
  uint32_t tcm_size;
  uint32_t status;        /* written by the device */
  uint32_t result_tensor; /* written by the device */
  uint32_t flags;         /* Q7_LAUNCH_* bits, written by the host */
  uint32_t reserved;
} q7_launch_block;

/* flags: skip the SDK's runtime checks (ranges of TCM copies, accessor dtype
   and rank), behaving as the hardware would. */
#define Q7_LAUNCH_NO_SDK_CHECKS 1u

#ifndef Q7_NATIVE /* the device layout; the host build's is its own */
#ifdef __cplusplus
#define Q7_STATIC_ASSERT static_assert
#else
#define Q7_STATIC_ASSERT _Static_assert
#endif
Q7_STATIC_ASSERT(sizeof(q7_tensor_desc) == 160, "tensor descriptor is 160 bytes");
Q7_STATIC_ASSERT(sizeof(q7_arg) == 16, "argument record is 16 bytes");
Q7_STATIC_ASSERT(sizeof(q7_launch_block) == 64, "launch block header is 64 bytes");
#undef Q7_STATIC_ASSERT
#endif

#endif
