/*
 * rv_cli.h - small helpers shared by the command-line tools (ravioli-run,
 * rv-deband, rv-dwt, rv-plot): compiled into each tool that needs them
 * (tools/common/rv_cli.c, no library dependency).
 */
#ifndef RV_CLI_H
#define RV_CLI_H

/** 1 when paths a and b name one existing file (same device and inode), else 0
 *  (also when either does not exist or cannot be examined). */
int rv_cli_same_file(const char *a, const char *b);

/** Parses the whole string s as an integer: decimal (a leading 0 is not
 *  octal), or hexadecimal after 0x / 0X; an optional sign. Returns 0 with
 *  *out set, or -1 (empty, trailing characters, out of range of long). */
int rv_cli_parse_long(const char *s, long *out);

/** 1 when path ends in ext (e.g. ".pgm"), compared case-insensitively. */
int rv_cli_has_ext(const char *path, const char *ext);

#endif
