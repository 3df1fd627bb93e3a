/*
 * rv_spawn.h - starting a command-line tool under test: the child's stdin
 * from a file (or /dev/null), its stdout and stderr into <dir>/stdout and
 * <dir>/stderr, extra environment entries, and waiting for its exit code.
 * Used by the ravioli-run tests (tests/stream, tests/camcli).
 */
#ifndef RV_TEST_SPAWN_H
#define RV_TEST_SPAWN_H

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rv_test.h"

/** Starts `exe` with the NULL-terminated `args` (argv[0] is exe itself).
 *  `in`: the child's stdin (NULL: /dev/null); `dir`: where stdout and
 *  stderr go; `env`: NULL-terminated "NAME=value" entries added to the
 *  child's environment (NULL: none). Returns the child's pid. */
static inline pid_t rv_test_spawn(const char *exe, const char *const *args, const char *in, const char *dir,
                                  const char *const *env)
{
    char out_path[256], err_path[256];
    snprintf(out_path, sizeof(out_path), "%s/stdout", dir);
    snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
    const char *argv[64];
    int n = 0;
    argv[n++] = exe;
    for (int i = 0; args[i] && n < 62; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fi = open(in ? in : "/dev/null", O_RDONLY);
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fi < 0 || fo < 0 || fe < 0)
            _exit(126);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]); /* the child's copy; exec follows */
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/** The exit code of a child that ended (waitpid status), or -1 with a
 *  message when it died of a signal. */
static inline int rv_test_exit_code(const char *what, int status)
{
    if (!WIFEXITED(status)) {
        fprintf(stderr, "%s died (status %d)\n", what, status);
        return -1;
    }
    return WEXITSTATUS(status);
}

#endif
