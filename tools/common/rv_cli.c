/*
 * rv_cli.c - helpers shared by the command-line tools (rv_cli.h).
 */
#include "rv_cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int rv_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int rv_cli_parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    /* decimal (a leading 0 is not octal), or hexadecimal after 0x */
    const char *d = s + (s[0] == '-' || s[0] == '+');
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? 16 : 10);
    if (end == s || *end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

int rv_cli_has_ext(const char *path, const char *ext)
{
    const size_t a = strlen(path), b = strlen(ext);
    return a >= b && strcasecmp(path + a - b, ext) == 0;
}

/* The library's latest error message (rv_cli_keep_error), under its lock:
 * the log callback runs on the capture thread too (RV_LogFn), while the main
 * thread may read it. */
static pthread_mutex_t g_kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_kept_error[512];

void rv_cli_keep_error(int level, const char *msg)
{
    if (level != 0 || !msg) /* RV_LOG_ERROR only */
        return;
    pthread_mutex_lock(&g_kept_lock);
    snprintf(g_kept_error, sizeof(g_kept_error), "%s", msg);
    pthread_mutex_unlock(&g_kept_lock);
}

void rv_cli_log(const char *prog, int verbose, int level, const char *msg)
{
    rv_cli_keep_error(level, msg);
    if (!msg || (!verbose && (level == 0 || level > 2))) /* RV_LOG_ERROR, RV_LOG_DEBUG */
        return;
    fprintf(stderr, "%s: %s%s\n", prog, level == 1 ? "warning: " : "", msg);
}

void rv_cli_kept_error(char *buf, size_t size)
{
    if (!buf || !size)
        return;
    pthread_mutex_lock(&g_kept_lock);
    snprintf(buf, size, "%s", g_kept_error);
    pthread_mutex_unlock(&g_kept_lock);
}

int rv_cli_backend_failed(const char *prog, const char *backend, int err, const char *errstr,
                          const char *auto_opt)
{
    /* "CUDA backend requested but not available: <reason>" (context.c): the reason */
    char kept[sizeof(g_kept_error)];
    rv_cli_kept_error(kept, sizeof(kept));
    const char *why = kept, *p = strstr(why, "not available: ");
    if (p)
        why = p + strlen("not available: ");
    fprintf(stderr, "%s: backend '%s' unavailable: %s%s%s\n", prog, backend, errstr, why[0] ? ": " : "", why);
    const int unavailable = err == -ENODEV || err == -ENOSYS; /* RV_ENODEV, RV_ENOSYS */
    if (unavailable && !strcmp(backend, "cuda") && auto_opt)
        fprintf(stderr, "%s: (%s runs on the CPU when there is no usable GPU)\n", prog, auto_opt);
    return unavailable;
}
