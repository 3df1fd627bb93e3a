#include <ravioli/kernel.h>

typedef struct { int32_t add; } add_params;

RV_FN uint8_t add_sat(uint8_t v, const add_params *p)
{
    int r = v + p->add;
    return (uint8_t)(r > 255 ? 255 : r < 0 ? 0 : r);
}
RV_PROC_PIX(add_sat, add_sat, u8, u8, add_params)
