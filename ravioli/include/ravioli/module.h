/*
 * ravioli/module.h - kernel modules, loaded by name.
 *
 * A module is built from kernel sources by the cmake function
 * ravioli_add_module() into NAME.so (CPU), NAME.ptx and NAME.fatbin (CUDA:
 * machine code for one architecture with the PTX, which needs no JIT on a
 * machine's first load). Loading it by name picks the form the context's
 * backend runs (CUDA: the .fatbin, else the .ptx): the CPU side mirrors
 * cuModuleLoad / cuModuleGetFunction with dlopen / dlsym.
 *
 * Search order for "NAME": a path containing '/' is used as it is when its
 * extension is one the backend loads (so "dir/NAME.ptx" loads the PTX);
 * with another known extension (.so, .ptx, .fatbin) or none, the backend's
 * forms are tried in its order. Otherwise the directories of
 * RV_Settings.module_path, then of the environment variable
 * RAVIOLI_MODULE_PATH, then ravioli/modules beside the library's file (an
 * install under any prefix), then the directory the library was configured to
 * be installed to (and the build tree's modules directory), each for each form.
 */
#ifndef RAVIOLI_MODULE_H
#define RAVIOLI_MODULE_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RV_Module RV_Module;
typedef struct RV_Kernel RV_Kernel;

/**
 * Loads module `name`; errors name the files tried. A file the context has
 * loaded already is not loaded again: *out is the same module, with one more
 * reference (module-scope device variables are shared by its users).
 * RV_ENOENT when no form of it exists; RV_EIO, saying why, when none can be
 * read but one exists (e.g. no permission, a link loop).
 */
RV_API int rv_module_load(RV_Context *ctx, const char *name, RV_Module **out);
/** Drops one reference to a module and sets *m to NULL; the last one unloads it
 * (its kernels become invalid then). Each rv_module_load needs one. */
RV_API void rv_module_unload(RV_Module **m);
/** The file the module was loaded from. */
RV_API const char *rv_module_path(const RV_Module *m);

/**
 * Looks up kernel `name` (declared in the source with RV_PROC_*(name, ...) or
 * RV_RAW_KERNEL(name, ...)). The kernel belongs to the module. RV_ENOENT when
 * the module has no such kernel; on the CUDA backend RV_ENOSYS, without an
 * error message, for an entry whose compile-time cluster shape the device
 * does not allow (more than 8 blocks where the non-portable size is refused;
 * docs/cuda.md), so that the caller can take another way.
 */
RV_API int rv_kernel_get(RV_Module *m, const char *name, const RV_Kernel **out);
RV_API const char *rv_kernel_name(const RV_Kernel *k);
/**
 * The GPU architecture the kernel's code was compiled for, as 10 x major +
 * minor of its PTX target (e.g. 80, 90); 0 on the CPU backend and for NULL.
 * A fat binary holds code for several (RV_CUDA_BASE_ARCH and RV_CUDA_ARCH,
 * docs/cuda.md) and the driver picks the newest the device runs, so on a GPU
 * older than RV_CUDA_ARCH a kernel reports the base architecture: code
 * guarded by __CUDA_ARCH__ >= 900 (clusters, programmatic dependent launch)
 * is not in it, and a module's host code can choose another way.
 */
RV_API int rv_kernel_arch(const RV_Kernel *k);

#ifdef __cplusplus
}
#endif
#endif /* RAVIOLI_MODULE_H */
