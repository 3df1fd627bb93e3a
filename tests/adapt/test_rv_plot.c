/*
 * test_rv_plot.c - rv-plot on a log written by rv_adapt_log_write(): the SVG
 * has one red dot per missed frame, one processing-time point per frame,
 * and rv-plot rejects files without the required columns.
 */
#include <unistd.h>

#include "rv_test.h"
#include <ravioli/adapt.h>

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *slurp(const char *path)
{
    char *b = rv_test_slurp(path, NULL);
    assert_non_null(b);
    return b;
}

static void test_plot(void **state)
{
    (void)state;
    char dir[] = "/tmp/rv_plot_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char csv[256], svg[256], bad[256], cmd[1024];
    snprintf(csv, sizeof(csv), "%s/log.csv", dir);
    snprintf(svg, sizeof(svg), "%s/log.svg", dir);
    snprintf(bad, sizeof(bad), "%s/bad.csv", dir);

    RV_AdaptSettings set;
    rv_adapt_settings_default(&set);
    set.deadline_s = 1.0 / 30;
    RV_Adapt *a = NULL;
    assert_int_equal(rv_adapt_create(&a, &set), 0);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    const double D = set.deadline_s;
    int missed = 0, si, st;
    double t = 0;
    for (int i = 0; i < 90; i++) {
        rv_adapt_strides(a, &si, &st);
        double load = (i >= 30 && i < 60) ? 3.0 : 1.0;
        double proc = 0.6 * D * load / (si * si);
        t += st * D;
        rv_adapt_update(a, t, proc, si, st);
        RV_AdaptRecord r;
        rv_adapt_last_record(a, &r);
        missed += !r.met;
        assert_int_equal(rv_adapt_log_write(f, &r, i == 0), 0);
    }
    fclose(f);
    rv_adapt_destroy(&a);
    assert_true(missed >= 2); /* the step's first frames */

    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' -t 'test' -m 1:2:load run=%s", RV_PLOT_EXE, svg, csv);
    assert_int_equal(system(cmd), 0);
    char *s = slurp(svg);
    assert_non_null(strstr(s, "<svg"));
    assert_non_null(strstr(s, "</svg>"));
    assert_int_equal(count(s, "<circle cx"), missed + 1); /* + the legend's dot */
    assert_non_null(strstr(s, ">run</text>"));
    assert_non_null(strstr(s, ">load</text>"));
    free(s);

    /* RV_Streaming's log format, deadline given with -d */
    f = fopen(csv, "w");
    assert_non_null(f);
    fputs("frame,time,proc_ms,deadline_met,S_I,S_T\n", f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "%d,%.4f,%.3f,%d,%d,%d\n", i, i / 30.0, (i == 10 || i == 11) ? 50.0 : 20.0,
                !(i == 10 || i == 11), i >= 12 ? 2 : 1, 1);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' -d 33.3 '%s'", RV_PLOT_EXE, svg, csv);
    assert_int_equal(system(cmd), 0);
    s = slurp(svg);
    assert_int_equal(count(s, "<circle cx"), 2 + 1);
    assert_non_null(strstr(s, "stroke-dasharray='5,3' points='")); /* the deadline line */
    free(s);

    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("a,b\n1,2\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' '%s' 2>/dev/null", RV_PLOT_EXE, svg, bad);
    assert_int_not_equal(system(cmd), 0);
    /* bad option values and unknown options are usage errors (2) */
    const char *bad_opts[] = {"-y abc", "-y -5", "-d abc", "-d 0", "-d 33x", "-m 1x:2", "-m 1:2x", "-x",
                              "-m 5:1", "-m 2:2:same"};
    for (size_t i = 0; i < sizeof(bad_opts) / sizeof(bad_opts[0]); i++) {
        snprintf(cmd, sizeof(cmd), "'%s' -o '%s' %s '%s' 2>/dev/null", RV_PLOT_EXE, svg, bad_opts[i], csv);
        const int ws = system(cmd);
        assert_true(WIFEXITED(ws));
        if (WEXITSTATUS(ws) != 2)
            fail_msg("rv-plot %s: exit %d, expected 2", bad_opts[i], WEXITSTATUS(ws));
    }
    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' -y 40 -d 33.3 -m 0.5:1 '%s'", RV_PLOT_EXE, svg, csv);
    assert_int_equal(system(cmd), 0);
    /* an interval ending before it starts: said so */
    char err[256];
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    /* --help: the usage, options and exit codes on standard output, exit 0 */
    snprintf(cmd, sizeof(cmd), "'%s' --help >'%s' 2>/dev/null", RV_PLOT_EXE, err);
    assert_int_equal(system(cmd), 0);
    s = slurp(err);
    assert_non_null(strstr(s, "usage: rv-plot"));
    assert_non_null(strstr(s, "Exit status"));
    free(s);
    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' -m 5:1 '%s' 2>'%s'", RV_PLOT_EXE, svg, csv, err);
    assert_int_not_equal(system(cmd), 0);
    s = slurp(err);
    assert_non_null(strstr(s, "rv-plot: -m 5:1: the end (1 s) is not after the start (5 s)"));
    free(s);

    /* -o naming an input (also by another path): refused (2), the input kept */
    char *before = slurp(csv);
    snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' -o ./log.csv -d 33.3 run='%s' 2>'%s'", dir, RV_PLOT_EXE, csv, err);
    int ws = system(cmd);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 2);
    s = slurp(err);
    assert_non_null(strstr(s, "would overwrite it"));
    free(s);
    s = slurp(csv);
    assert_string_equal(s, before);
    free(s);
    free(before);

    /* rows that cannot be read: skipped with a warning naming file and line (exit 0);
     * blank lines are not reported */
    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("frame,time_s,proc_ms\n0,0.0,5\n1,abc,5\n2,0.1\n\n3,0.2,6\n4,0.3,x\n5,0.4,7\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' -o '%s' '%s' 2>'%s'", RV_PLOT_EXE, svg, bad, err);
    assert_int_equal(system(cmd), 0);
    s = slurp(err);
    char want[400];
    snprintf(want, sizeof(want), "%s:3: time_s 'abc' is not a number", bad);
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof(want), "%s:4: 2 fields, expected 3", bad);
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof(want), "%s:7: proc_ms 'x' is not a number", bad);
    assert_non_null(strstr(s, want));
    assert_int_equal(count(s, "warning"), 3);
    free(s);
    /* many: the first five, then a count */
    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("frame,time_s,proc_ms\n", f);
    for (int i = 0; i < 20; i++)
        fprintf(f, i % 2 ? "%d,%.1f,zz\n" : "%d,%.1f,5\n", i, i / 10.0);
    fclose(f);
    assert_int_equal(system(cmd), 0);
    s = slurp(err);
    assert_int_equal(count(s, "is not a number"), 5);
    assert_non_null(strstr(s, "10 rows skipped in all (5 more than shown)"));
    free(s);
    unlink(err);
    unlink(csv);
    unlink(svg);
    unlink(bad);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plot)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
