/* Declaration shapes the struct-layout parser must follow: multi-dimension
 * arrays of structs, typedef'd arrays, anonymous unions holding anonymous
 * structs, enums, function pointers (plain, typedef'd, arrays of them), an
 * assertion inside a struct body, bit-fields, a flexible array member, and a
 * packed struct. Written for the q7 tests. */
#include <stdint.h>

typedef uint8_t q7_block[4];

struct q7_point {
    int16_t x, y;
};

#pragma pack(push, 1)
struct q7_packed {
    uint8_t tag;
    uint32_t value;
    uint16_t pair[2];
};
#pragma pack(pop)

typedef void (*q7_callback)(void *context);

struct q7_shapes {
    struct q7_point grid[2][3];
    q7_block blocks[2];
    union {
        uint32_t word;
        struct {
            uint16_t lo, hi;
        };
    };
    enum { Q7_RED, Q7_BLUE } colour;
    q7_callback on_done;
    int (*table[2])(int);
    _Static_assert(sizeof(struct q7_point) == 4, "a point is two halfwords");
    uint32_t flags : 3;
    uint32_t level : 5;
    uint8_t count;
    uint8_t data[];
};

_Static_assert(sizeof(struct q7_packed) == 9, "packed: no padding");
