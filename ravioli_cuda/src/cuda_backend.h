/*
 * cuda_backend.h - internal hooks of the CUDA backend for other parts of
 * the library (the streaming runtime). Not installed, not public API.
 *
 * Streams: every backend entry (uploads, downloads, launches, procBox
 * result reads) goes to the context's *current* stream; stream 0 is
 * created with the context, others on first use. Selecting stream i, then
 * issuing operations, then selecting stream j lets two frames overlap
 * (upload of frame n+1 on one stream while frame n computes on another).
 * Rules for the caller: an image must not be used on two streams without a
 * rv__cuda_stream_sync() of the first in between, and images destroyed
 * while work on another stream may still use them must be synced first
 * (the device memory pool reuses freed blocks in stream order of the
 * current stream only). Uploads and downloads are synchronous with respect
 * to the host (they wait for their stream); launches are not.
 */
#ifndef RAVIOLI_CUDA_BACKEND_H
#define RAVIOLI_CUDA_BACKEND_H

#include "internal.h"

/** Makes stream `index` (0..9) the current one; RV_ENOSYS on a non-CUDA context. */
int rv__cuda_set_stream(RV_Context *ctx, int index);
/** Waits for everything queued on stream `index`. */
int rv__cuda_stream_sync(RV_Context *ctx, int index);

/**
 * Starts the upload of a host-current image on the current stream and marks
 * the device copy current, without waiting: the caller must not write the
 * host pixels until rv__cuda_stream_sync() of that stream. Kernels queued
 * later on the same stream see the new pixels.
 */
int rv__cuda_image_upload_async(RV_Context *ctx, RV_Image *img);
/**
 * Starts the download of a device-current image on the current stream and
 * marks the host copy current, without waiting: the caller must
 * rv__cuda_stream_sync() that stream before reading the host pixels.
 */
int rv__cuda_image_download_async(RV_Context *ctx, RV_Image *img);

typedef struct rv_cuda_stats {
    unsigned long long cu_mem_allocs; /* cuMemAlloc calls so far */
    unsigned long long pool_hits;     /* allocations served from the free list */
    size_t live_bytes, cached_bytes;  /* device memory in use / waiting in the pool */
    void *stream;                     /* the current CUstream */
    char device_name[256];
    int cc_major, cc_minor, sm_count, driver_version;
} rv_cuda_stats;

int rv__cuda_stats(RV_Context *ctx, rv_cuda_stats *out);

/* Events (timing enabled) for GPU time per frame. record: on the current
 * stream. elapsed: both events must have completed (sync their stream
 * first); RV_ENOSYS when the driver has no cuEventElapsedTime. */
int rv__cuda_event_create(RV_Context *ctx, void **ev);
void rv__cuda_event_destroy(RV_Context *ctx, void **ev);
int rv__cuda_event_record(RV_Context *ctx, void *ev);
int rv__cuda_event_elapsed_ms(RV_Context *ctx, void *a, void *b, float *ms);
/** The current stream waits (on the GPU) until `ev` has completed. */
int rv__cuda_stream_wait_event(RV_Context *ctx, void *ev);
/** The host waits until `ev` has completed. */
int rv__cuda_event_sync(RV_Context *ctx, void *ev);

#endif
