/*
 * rv_cli.h - small helpers shared by the command-line tools (ravioli-run,
 * rv-deband, rv-dwt, rv-plot): compiled into each tool that needs them
 * (tools/common/rv_cli.c, no library dependency: what they need of ravioli,
 * such as a code's rv_strerror text, is passed in).
 */
#ifndef RV_CLI_H
#define RV_CLI_H

#include <stddef.h>

/** 1 when paths a and b name one existing file (same device and inode), else 0
 *  (also when either does not exist or cannot be examined). */
int rv_cli_same_file(const char *a, const char *b);

/** Parses the whole string s as an integer: decimal (a leading 0 is not
 *  octal), or hexadecimal after 0x / 0X; an optional sign. Returns 0 with
 *  *out set, or -1 (empty, trailing characters, out of range of long). */
int rv_cli_parse_long(const char *s, long *out);

/** 1 when path ends in ext (e.g. ".pgm"), compared case-insensitively. */
int rv_cli_has_ext(const char *path, const char *ext);

/** For a tool's log callback (RV_LogFn): keeps `msg` when `level` is
 *  RV_LOG_ERROR (0), the library's latest error message, for
 *  rv_cli_backend_failed. A context that cannot be created has no
 *  rv_context_error: the reason (no driver, no device, ...) reaches the log
 *  callback only. Thread-safe (a lock around the kept message): the
 *  callback may run on a streaming capture thread while another thread
 *  reads the message with rv_cli_kept_error. */
void rv_cli_keep_error(int level, const char *msg);

/** The tools' one policy for the library's log messages, for a tool's log
 *  callback (RV_LogFn) with the context's log level at RV_LOG_INFO (2), or
 *  RV_LOG_DEBUG (3) with `verbose`:
 *  - errors (0) are kept (rv_cli_keep_error) and not shown, since the tool
 *    reports each failure itself with the context's message; with `verbose`
 *    they are shown too, as "<prog>: <msg>";
 *  - warnings (1): "<prog>: warning: <msg>";
 *  - information (2): "<prog>: <msg>". The library says so once a context:
 *    which backend runs ("no usable GPU (<reason>): running on the CPU
 *    backend with N threads" when `auto` found none; the GPU's name), a
 *    camera's format;
 *  - debug messages (3): only with `verbose`.
 *  Thread-safe as rv_cli_keep_error (one fprintf a message). */
void rv_cli_log(const char *prog, int verbose, int level, const char *msg);

/** Copies the message rv_cli_keep_error kept last ("" when none) into
 *  buf[0, size), truncated, under the same lock. */
void rv_cli_kept_error(char *buf, size_t size);

/** Says on stderr why a context on `backend` (its name: "cuda", "cpu",
 *  "auto") could not be created; `err` is rv_context_create's code and
 *  `errstr` rv_strerror(err):
 *      <prog>: backend 'cuda' unavailable: device not available: <reason>
 *  where <reason> is the message rv_cli_keep_error kept, less the library's
 *  "... not available: " lead (the NVIDIA driver library libcuda.so.1 cannot
 *  be loaded, the driver reports no CUDA device, ...); for "cuda" with
 *  -ENODEV or -ENOSYS a second line says that `auto_opt` (the tool's
 *  spelling, e.g. "--backend auto") runs on the CPU when there is no usable
 *  GPU. Returns 1 when err says the backend is unavailable (-ENODEV,
 *  -ENOSYS), else 0 (another failure, e.g. out of memory). */
int rv_cli_backend_failed(const char *prog, const char *backend, int err, const char *errstr,
                          const char *auto_opt);

#endif
