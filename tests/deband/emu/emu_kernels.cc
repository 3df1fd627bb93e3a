// The deband module compiled as CUDA source against cuda_emu.h.
#include "cuda_emu.h"
#include "../../../modules/deband/deband_kernels.c"
