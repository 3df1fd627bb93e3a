/*
 * ravioli/ravioli.h - everything a host program needs.
 * Kernel sources include <ravioli/kernel.h> instead.
 */
#ifndef RAVIOLI_RAVIOLI_H
#define RAVIOLI_RAVIOLI_H

#include "common.h"
#include "context.h"
#include "image.h"
#include "io.h"
#include "kernel_abi.h"
#include "module.h"
#include "ops.h"
#include "pixel.h"
#include "video.h"
#include "adapt.h"
#include "stream.h"

#endif /* RAVIOLI_RAVIOLI_H */
