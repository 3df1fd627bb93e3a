// The yuyv module compiled as CUDA source against tests/deband/emu/cuda_emu.h
// (see test_yuv_kernels_emu.cc).
#include "cuda_emu.h"
#include "../../../modules/yuyv/yuyv.c"
