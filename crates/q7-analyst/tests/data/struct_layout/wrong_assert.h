/* A header whose size assertion is deliberately wrong: the struct is 52
   bytes (a 4-byte field was added without updating the assertion). A plain
   compile of this header fails; q7 must still measure it and report the
   assertion as failing, with the real size. */
#include <stdint.h>

struct q7_dma_desc {
    uint32_t src;
    uint32_t dst;
    uint32_t len;
    uint32_t flags;
    uint32_t added_later;
    uint32_t queue[8];
};

_Static_assert(sizeof(struct q7_dma_desc) == 48, "dma descriptor is 48 bytes");
_Static_assert(sizeof(uint32_t) == 4, "uint32_t is 4 bytes");

struct q7_host_handle {
    void *buffer;
    unsigned long length;
    char tag[6];
};
