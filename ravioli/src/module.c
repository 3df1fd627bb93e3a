/*
 * module.c - finding and loading kernel modules, looking kernels up.
 * The backend decides the file forms (".so"; ".fatbin", then ".ptx") and how
 * to load them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#ifndef RV_MODULE_INSTALL_DIR
#define RV_MODULE_INSTALL_DIR "/usr/local/lib/ravioli/modules"
#endif
#ifndef RV_MODULE_BUILD_DIR
#define RV_MODULE_BUILD_DIR ""
#endif

/* A module search: the files tried, and the first that exists but cannot be
 * read (with errno), which is RV_EIO when nothing else is found. */
typedef struct mod_search {
    char tried[2048];
    char unreadable[1024];
    int unreadable_errno;
} mod_search;

/* Appends "dir/name.ext" to the files tried, or returns 1 with `path` filled
 * when that file can be read. */
static int try_file(const char *dir, size_t n, const char *name, const char *ext, char *path,
                    size_t path_size, mod_search *ms)
{
    int len = n ? snprintf(path, path_size, "%.*s/%s%s", (int)n, dir, name, ext)
                : snprintf(path, path_size, "%s%s", name, ext);
    if (len <= 0 || (size_t)len >= path_size)
        return 0;
    if (access(path, R_OK) == 0)
        return 1;
    if (errno != ENOENT && errno != ENOTDIR && !ms->unreadable[0]) {
        ms->unreadable_errno = errno;
        snprintf(ms->unreadable, sizeof(ms->unreadable), "%s", path);
    }
    size_t t = strlen(ms->tried);
    if (t + 2 < sizeof(ms->tried))
        snprintf(ms->tried + t, sizeof(ms->tried) - t, "%s%s", t ? ", " : "", path);
    return 0;
}

/* Tries the backend's file forms, in its order, in each directory of a
 * ':'-separated list; returns 1 with `path` filled when one exists. */
static int search_list(const char *list, const char *name, const char *const *exts, char *path,
                       size_t path_size, mod_search *ms)
{
    if (!list || !*list)
        return 0;
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        for (int i = 0; n > 0 && exts[i]; i++)
            if (try_file(p, n, name, exts[i], path, path_size, ms))
                return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* The file forms every backend knows: an explicit path may name any of them. */
static const char *const known_exts[] = {".so", ".ptx", ".fatbin", NULL};

/* "<directory of libravioli.so>/ravioli/modules": where an install put the
 * modules beside the library, wherever the prefix was moved to (cmake
 * --install --prefix, a package unpacked elsewhere). 0 when that is the
 * configured install directory anyway, or the library's file is unknown. */
static int lib_module_dir(char *dir, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)&rv_module_load, &info) || !info.dli_fname)
        return 0;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash)
        return 0;
    int len = snprintf(dir, size, "%.*s/ravioli/modules", (int)(slash - info.dli_fname), info.dli_fname);
    if (len <= 0 || (size_t)len >= size || !strcmp(dir, RV_MODULE_INSTALL_DIR))
        return 0;
    return access(dir, R_OK | X_OK) == 0;
}

static int find_module(RV_Context *ctx, const char *name, char *path, size_t path_size)
{
    const char *const *exts = ctx->ops->module_exts;
    mod_search ms;
    ms.tried[0] = ms.unreadable[0] = 0;
    ms.unreadable_errno = 0;
    if (strchr(name, '/')) {
        /* An explicit path: a form this backend loads is taken as it is; another
         * known extension (or none) is replaced by the backend's, in its order. */
        char base[1024];
        snprintf(base, sizeof(base), "%s", name);
        char *dot = strrchr(base, '.');
        char *slash = strrchr(base, '/');
        const char *given = NULL;
        for (int i = 0; dot && dot > slash && known_exts[i]; i++)
            if (!strcmp(dot, known_exts[i]))
                given = known_exts[i];
        if (given)
            *dot = 0;
        const char *only[2] = {given, NULL};
        for (int i = 0; given && exts[i]; i++)
            if (!strcmp(exts[i], given)) {
                exts = only;
                break;
            }
        for (int i = 0; exts[i]; i++)
            if (try_file(NULL, 0, base, exts[i], path, path_size, &ms))
                return 0;
        if (ms.unreadable[0])
            return rv__error(ctx, RV_EIO, "module '%s': %s cannot be read: %s", name, ms.unreadable,
                             strerror(ms.unreadable_errno));
        return rv__error(ctx, RV_ENOENT, "module '%s': not found; tried: %s (the %s backend loads %s)",
                         name, ms.tried, ctx->ops->name, ctx->ops->module_forms);
    }
    char libdir[1024];
    if (search_list(ctx->module_path, name, exts, path, path_size, &ms) ||
        search_list(getenv("RAVIOLI_MODULE_PATH"), name, exts, path, path_size, &ms) ||
        (lib_module_dir(libdir, sizeof(libdir)) && search_list(libdir, name, exts, path, path_size, &ms)) ||
        search_list(RV_MODULE_INSTALL_DIR, name, exts, path, path_size, &ms) ||
        search_list(RV_MODULE_BUILD_DIR, name, exts, path, path_size, &ms))
        return 0;
    if (ms.unreadable[0])
        return rv__error(ctx, RV_EIO, "module '%s': %s cannot be read: %s (and no other form was found; tried: %s)",
                         name, ms.unreadable, strerror(ms.unreadable_errno), ms.tried);
    return rv__error(ctx, RV_ENOENT,
                     "module '%s' not found for the %s backend; tried: %s "
                     "(set RV_Settings.module_path or RAVIOLI_MODULE_PATH)",
                     name, ctx->ops->name, ms.tried[0] ? ms.tried : "(no directories)");
}

RV_API int rv_module_load(RV_Context *ctx, const char *name, RV_Module **out)
{
    if (!ctx)
        return RV_EINVAL;
    if (!out || !name || !*name)
        return rv__error(ctx, RV_EINVAL, "rv_module_load: name and out are required");
    *out = NULL;
    char path[1024];
    int err = find_module(ctx, name, path, sizeof(path));
    if (err < 0)
        return err;
    /* a file this context has loaded already: one more reference to it (the CUDA
     * backend would hand the driver the whole PTX again, megabytes for the built-in
     * modules, to be hashed and looked up in its cache, or compiled) */
    pthread_mutex_lock(&ctx->module_lock);
    for (rv_list *l = ctx->modules.next; l != &ctx->modules; l = l->next) {
        RV_Module *o = (RV_Module *)l;
        if (!strcmp(o->path, path)) {
            o->refs++;
            pthread_mutex_unlock(&ctx->module_lock);
            *out = o;
            return 0;
        }
    }
    RV_Module *m = calloc(1, sizeof(*m));
    if (!m) {
        pthread_mutex_unlock(&ctx->module_lock);
        return rv__error(ctx, RV_ENOMEM, "rv_module_load: out of memory");
    }
    m->ctx = ctx;
    m->refs = 1;
    m->path = strdup(path);
    if (!m->path) {
        free(m);
        pthread_mutex_unlock(&ctx->module_lock);
        return rv__error(ctx, RV_ENOMEM, "rv_module_load: out of memory");
    }
    err = ctx->ops->module_load(ctx, path, m);
    if (err < 0) {
        free(m->path);
        free(m);
        pthread_mutex_unlock(&ctx->module_lock);
        return err;
    }
    pthread_mutex_lock(&ctx->lock);
    rv__list_add(&ctx->modules, &m->link);
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_unlock(&ctx->module_lock);
    rv__log(ctx, RV_LOG_DEBUG, "loaded module %s", path);
    *out = m;
    return 0;
}

RV_API void rv_module_unload(RV_Module **pm)
{
    if (!pm || !*pm)
        return;
    RV_Module *m = *pm;
    RV_Context *ctx = m->ctx;
    *pm = NULL;
    pthread_mutex_lock(&ctx->module_lock);
    if (--m->refs > 0) {
        pthread_mutex_unlock(&ctx->module_lock);
        return;
    }
    pthread_mutex_lock(&ctx->lock);
    rv__list_del(&m->link);
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_unlock(&ctx->module_lock);
    RV_Kernel *k = m->kernels;
    while (k) {
        RV_Kernel *next = k->next;
        if (ctx->ops->kernel_free)
            ctx->ops->kernel_free(ctx, k);
        free(k->name);
        free(k);
        k = next;
    }
    ctx->ops->module_unload(ctx, m);
    free(m->path);
    free(m);
}

RV_API const char *rv_module_path(const RV_Module *m)
{
    return m ? m->path : NULL;
}

static int check_desc(RV_Context *ctx, const RV_Module *m, const char *name, const rv_kernel_desc *d)
{
    if (d->magic != RV_KERNEL_MAGIC)
        return rv__error(ctx, RV_EBADMSG, "module %s: kernel '%s' has no valid descriptor", m->path, name);
    if (d->abi != RV_KERNEL_ABI)
        return rv__error(ctx, RV_EBADMSG,
                         "module %s: kernel '%s' was built for kernel ABI %u, this library has %u; rebuild the module",
                         m->path, name, d->abi, RV_KERNEL_ABI);
    if (d->op < RV_OP_PIX || d->op > RV_OP_RAW)
        return rv__error(ctx, RV_EBADMSG, "module %s: kernel '%s' has unknown operation %u", m->path,
                         name, d->op);
    if (d->param_size > RV_MAX_PARAMS)
        return rv__error(ctx, RV_EBADMSG,
                         "module %s: kernel '%s' takes a %u-byte parameter block, more than the %d allowed",
                         m->path, name, d->param_size, RV_MAX_PARAMS);
    return 0;
}

static int kernel_get_locked(RV_Context *ctx, RV_Module *m, const char *name, const RV_Kernel **out);

RV_API int rv_kernel_get(RV_Module *m, const char *name, const RV_Kernel **out)
{
    if (!m)
        return RV_EINVAL;
    RV_Context *ctx = m->ctx;
    if (!out || !name || !*name)
        return rv__error(ctx, RV_EINVAL, "rv_kernel_get: name and out are required");
    *out = NULL;
    /* (the module's kernel list may be shared by several loads: under module_lock) */
    pthread_mutex_lock(&ctx->module_lock);
    const int err = kernel_get_locked(ctx, m, name, out);
    pthread_mutex_unlock(&ctx->module_lock);
    return err;
}

static int kernel_get_locked(RV_Context *ctx, RV_Module *m, const char *name, const RV_Kernel **out)
{
    for (RV_Kernel *k = m->kernels; k; k = k->next)
        if (!strcmp(k->name, name)) {
            *out = k;
            return 0;
        }
    RV_Kernel *k = calloc(1, sizeof(*k));
    if (!k)
        return rv__error(ctx, RV_ENOMEM, "rv_kernel_get: out of memory");
    k->mod = m;
    k->name = strdup(name);
    if (!k->name) {
        free(k);
        return rv__error(ctx, RV_ENOMEM, "rv_kernel_get: out of memory");
    }
    int err = ctx->ops->kernel_lookup(ctx, m, name, k);
    if (err >= 0)
        err = check_desc(ctx, m, name, &k->desc);
    if (err < 0) {
        if (ctx->ops->kernel_free)
            ctx->ops->kernel_free(ctx, k);
        free(k->name);
        free(k);
        return err;
    }
    k->next = m->kernels;
    m->kernels = k;
    *out = k;
    return 0;
}

RV_API const char *rv_kernel_name(const RV_Kernel *k)
{
    return k ? k->name : NULL;
}

RV_API int rv_kernel_arch(const RV_Kernel *k)
{
    return k ? k->arch : 0;
}
