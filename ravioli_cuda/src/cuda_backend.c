/*
 * cuda_backend.c - CUDA Driver API backend (placeholder until it lands).
 */
#include <stdio.h>

#include "internal.h"

int rv_cuda_backend_open(RV_Context *ctx, char *why, size_t why_size)
{
    (void)ctx;
    snprintf(why, why_size, "the CUDA backend is not built yet");
    return RV_ENODEV;
}
