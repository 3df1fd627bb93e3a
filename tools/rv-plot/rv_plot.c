/*
 * rv-plot - turns per-frame adaptation logs (CSV as written by
 * rv_adapt_log_write(), header line first) into an SVG plot: processing
 * time against the deadline, and the strides S_I and S_T over time.
 *
 *   rv-plot [-o out.svg] [-t title] [-m T0:T1[:label]]... [-y YMAX_MS]
 *           [-c COLUMN] [-d DEADLINE_MS] [label=]log.csv [[label=]log2.csv ...]
 *
 * Every CSV becomes one block (two panels) of the figure, all on the same
 * time axis. Columns are found by name: time_s and proc_ms are required;
 * deadline_ms, budget_ms, met, s_spatial, s_temporal are used when present.
 * -m shades a time interval in every block (e.g. when a load was on).
 * -c plots another column in ms instead of proc_ms (e.g. latency_ms).
 * RV_Streaming's log (ravioli-run --log) has the same column names. A log
 * without a deadline column (frame,time,proc_ms,deadline_met,S_I,S_T) is
 * read too: give the deadline with -d DEADLINE_MS.
 *
 * Rows that cannot be read (a wrong number of fields, time or the plotted
 * column not a number) are skipped with a warning naming the file and line
 * (the first few of each file, then a count); blank lines are ignored. A
 * file without any readable row is an error (exit 1). -m T0:T1 needs
 * T0 < T1; -o must not name an input file. Exit status: 0, 1 on an error,
 * 2 on a usage error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rv_cli.h"

#define MAX_FILES 8
#define MAX_MARKS 8
#define MAX_COLS 64

typedef struct series {
    const char *label;
    const char *path;
    size_t n, cap;
    double *t, *proc, *deadline, *budget;
    int *met, *si, *st;
    int has_budget, has_strides;
} series;

typedef struct mark {
    double t0, t1;
    const char *label;
} mark;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "rv-plot: out of memory\n");
        exit(1);
    }
    return q;
}

static int split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = 0;
    while (n < max) {
        fields[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

static int col(char **hdr, int nh, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (strcmp(hdr[i], name) == 0)
            return i;
    return -1;
}

static int col2(char **hdr, int nh, const char *name, const char *alias)
{
    int c = col(hdr, nh, name);
    return c >= 0 ? c : col(hdr, nh, alias);
}

static double g_deadline_ms = 0; /* -d: deadline for logs without one */

static int num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && errno != ERANGE;
}

static const char *g_ycol = "proc_ms";

/* An option's value: a whole, finite, positive number. */
static int opt_positive(const char *opt, const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*v) || *v <= 0) {
        fprintf(stderr, "rv-plot: %s: expected a positive number, got '%s'\n", opt, s);
        return 0;
    }
    return 1;
}

static int load_csv(series *s)
{
    FILE *f = fopen(s->path, "r");
    if (!f) {
        fprintf(stderr, "rv-plot: cannot open %s: %s\n", s->path, strerror(errno));
        return -1;
    }
    char hline[4096], line[4096];
    char *hdr[MAX_COLS], *fld[MAX_COLS];
    if (!fgets(hline, sizeof(hline), f)) {
        fprintf(stderr, "rv-plot: %s is empty\n", s->path);
        fclose(f);
        return -1;
    }
    int nh = split(hline, hdr, MAX_COLS);
    /* rv_adapt_log_write() names, or RV_Streaming's log_path names */
    int c_t = col2(hdr, nh, "time_s", "time"), c_p = col(hdr, nh, g_ycol), c_d = col(hdr, nh, "deadline_ms");
    int c_b = col(hdr, nh, "budget_ms"), c_m = col2(hdr, nh, "met", "deadline_met");
    int c_si = col2(hdr, nh, "s_spatial", "S_I"), c_st = col2(hdr, nh, "s_temporal", "S_T");
    if (c_t < 0 || c_p < 0) {
        fprintf(stderr, "rv-plot: %s: needs the columns time_s and %s\n", s->path, g_ycol);
        fclose(f);
        return -1;
    }
    s->has_budget = c_b >= 0 || c_d >= 0 || g_deadline_ms > 0;
    s->has_strides = c_si >= 0 && c_st >= 0;
    long lineno = 1, skipped = 0;
    enum { MAX_SAID = 5 }; /* warnings per file; then a count */
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] == 0)
            continue; /* a blank line */
        int nf = split(line, fld, MAX_COLS);
        double t, p, d = NAN, b = NAN, v;
        const char *bad = NULL, *what = NULL;
        if (nf != nh)
            bad = "fields";
        else if (!num(fld[c_t], &t) || !isfinite(t))
            bad = "num", what = hdr[c_t];
        else if (!num(fld[c_p], &p))
            bad = "num", what = hdr[c_p];
        if (bad) {
            if (++skipped <= MAX_SAID) {
                if (what)
                    fprintf(stderr, "rv-plot: warning: %s:%ld: %s '%.40s' is not a number (row skipped)\n",
                            s->path, lineno, what, what == hdr[c_t] ? fld[c_t] : fld[c_p]);
                else
                    fprintf(stderr, "rv-plot: warning: %s:%ld: %d field%s, expected %d (row skipped)\n", s->path,
                            lineno, nf, nf == 1 ? "" : "s", nh);
            }
            continue;
        }
        if (c_d >= 0 && num(fld[c_d], &v))
            d = v;
        if (c_b >= 0 && num(fld[c_b], &v))
            b = v;
        if (!isfinite(d) && g_deadline_ms > 0)
            d = g_deadline_ms;
        if (!isfinite(b) && isfinite(d))
            b = d * (c_st >= 0 && atoi(fld[c_st]) > 1 ? atoi(fld[c_st]) : 1);
        if (!isfinite(d))
            d = b;
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 1024;
            s->t = xrealloc(s->t, s->cap * sizeof(double));
            s->proc = xrealloc(s->proc, s->cap * sizeof(double));
            s->deadline = xrealloc(s->deadline, s->cap * sizeof(double));
            s->budget = xrealloc(s->budget, s->cap * sizeof(double));
            s->met = xrealloc(s->met, s->cap * sizeof(int));
            s->si = xrealloc(s->si, s->cap * sizeof(int));
            s->st = xrealloc(s->st, s->cap * sizeof(int));
        }
        size_t i = s->n++;
        s->t[i] = t;
        s->proc[i] = p;
        s->deadline[i] = d;
        s->budget[i] = b;
        s->met[i] = c_m >= 0 ? atoi(fld[c_m]) != 0 : (isfinite(b) ? p <= b : 1);
        s->si[i] = c_si >= 0 ? atoi(fld[c_si]) : 1;
        s->st[i] = c_st >= 0 ? atoi(fld[c_st]) : 1;
    }
    fclose(f);
    if (skipped > MAX_SAID)
        fprintf(stderr, "rv-plot: warning: %s: %ld rows skipped in all (%ld more than shown)\n", s->path, skipped,
                skipped - MAX_SAID);
    if (s->n == 0) {
        fprintf(stderr, "rv-plot: %s: no data rows\n", s->path);
        return -1;
    }
    return 0;
}

static double nice_step(double range, int ticks)
{
    if (!(range > 0))
        return 1;
    double raw = range / ticks, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void xml_text(FILE *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", o);
        else if (*s == '>')
            fputs("&gt;", o);
        else if (*s == '&')
            fputs("&amp;", o);
        else
            fputc(*s, o);
    }
}

enum { W = 960, ML = 64, MR = 24, TITLE_H = 26, TP_H = 210, SP_H = 96, GAP = 44 };

typedef struct frame_box {
    double x0, x1, y0, y1; /* pixels: left, right, top, bottom */
    double vx0, vx1, vy0, vy1;
} frame_box;

static double px(const frame_box *b, double v)
{
    return b->x0 + (v - b->vx0) / (b->vx1 - b->vx0) * (b->x1 - b->x0);
}

static double py(const frame_box *b, double v)
{
    if (v > b->vy1)
        v = b->vy1;
    if (v < b->vy0)
        v = b->vy0;
    return b->y1 - (v - b->vy0) / (b->vy1 - b->vy0) * (b->y1 - b->y0);
}

static void axes(FILE *o, const frame_box *b, const char *ylabel, double ystep, int xlabels)
{
    fprintf(o, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#444'/>\n", b->x0, b->y0,
            b->x1 - b->x0, b->y1 - b->y0);
    for (double v = b->vy0; v <= b->vy1 + 1e-9; v += ystep) {
        double y = py(b, v);
        fprintf(o, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n", b->x0, y, b->x1, y);
        fprintf(o, "<text x='%.1f' y='%.1f' font-size='10' text-anchor='end'>%g</text>\n", b->x0 - 4, y + 3, v);
    }
    double xstep = nice_step(b->vx1 - b->vx0, 10);
    for (double v = ceil(b->vx0 / xstep) * xstep; v <= b->vx1 + 1e-9; v += xstep) {
        double x = px(b, v);
        fprintf(o, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#eee'/>\n", x, b->y0, x, b->y1);
        if (xlabels)
            fprintf(o, "<text x='%.1f' y='%.1f' font-size='10' text-anchor='middle'>%g</text>\n", x, b->y1 + 12,
                    v);
    }
    fprintf(o,
            "<text x='%.1f' y='%.1f' font-size='11' text-anchor='middle' "
            "transform='rotate(-90 %.1f %.1f)'>%s</text>\n",
            b->x0 - 44, (b->y0 + b->y1) / 2, b->x0 - 44, (b->y0 + b->y1) / 2, ylabel);
}

static void marks(FILE *o, const frame_box *b, const mark *m, int nm)
{
    for (int i = 0; i < nm; i++) {
        double a = fmax(m[i].t0, b->vx0), c = fmin(m[i].t1, b->vx1);
        if (c <= a)
            continue;
        fprintf(o, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#f4a742' fill-opacity='0.15'/>\n",
                px(b, a), b->y0, px(b, c) - px(b, a), b->y1 - b->y0);
        if (m[i].label) {
            fprintf(o, "<text x='%.1f' y='%.1f' font-size='10' fill='#a0600a'>", px(b, a) + 3, b->y0 + 11);
            xml_text(o, m[i].label);
            fputs("</text>\n", o);
        }
    }
}

static void usage_to(FILE *f)
{
    fprintf(f, "usage: rv-plot [-o out.svg] [-t title] [-m T0:T1[:label]]... [-y YMAX_MS] "
               "[-c COLUMN] [-d DEADLINE_MS] [label=]log.csv [...]\n"
               "Plots per-frame logs (rv_adapt_log_write, ravioli-run --log) as one SVG: frame time\n"
               "against the deadline and budget, missed frames, and the strides S_I, S_T over time.\n"
               "  -o FILE   the SVG (default: standard output); must not name an input\n"
               "  -t TITLE  title of the figure\n"
               "  -m T0:T1[:label]  shade T0..T1 s (T0 < T1), e.g. while a load was on\n"
               "  -y YMAX   upper end of the frame-time axis, ms\n"
               "  -c COLUMN plot this column (ms) instead of proc_ms, e.g. latency_ms\n"
               "  -d MS     the deadline, for logs without a deadline_ms column\n"
               "Rows that cannot be read are skipped with a warning (file:line).\n"
               "Exit status: 0; 1 on an error (a file that cannot be read, or without a readable row);\n"
               "2 on a usage error.\n");
}

static void usage(void)
{
    usage_to(stderr);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *title = NULL;
    double ymax_user = 0;
    series ser[MAX_FILES];
    mark mk[MAX_MARKS];
    int ns = 0, nm = 0;
    memset(ser, 0, sizeof(ser));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "-t") || !strcmp(a, "-m") || !strcmp(a, "-y") || !strcmp(a, "-c") ||
             !strcmp(a, "-d")) &&
            i + 1 >= argc) {
            usage();
            return 2;
        }
        if (!strcmp(a, "-o")) {
            out = argv[++i];
        } else if (!strcmp(a, "-t")) {
            title = argv[++i];
        } else if (!strcmp(a, "-d")) {
            if (!opt_positive("-d", argv[++i], &g_deadline_ms))
                return 2;
        } else if (!strcmp(a, "-c")) {
            g_ycol = argv[++i];
        } else if (!strcmp(a, "-y")) {
            if (!opt_positive("-y", argv[++i], &ymax_user))
                return 2;
        } else if (!strcmp(a, "-m")) {
            if (nm == MAX_MARKS) {
                fprintf(stderr, "rv-plot: at most %d marks\n", MAX_MARKS);
                return 2;
            }
            char *spec = argv[++i], *end;
            mk[nm].t0 = strtod(spec, &end);
            if (end == spec || *end != ':' || !isfinite(mk[nm].t0)) {
                usage();
                return 2;
            }
            const char *t1s = end + 1;
            mk[nm].t1 = strtod(t1s, &end);
            if (end == t1s || (*end != ':' && *end) || !isfinite(mk[nm].t1)) {
                usage();
                return 2;
            }
            mk[nm].label = *end == ':' ? end + 1 : NULL;
            if (!(mk[nm].t1 > mk[nm].t0)) {
                fprintf(stderr, "rv-plot: -m %s: the end (%g s) is not after the start (%g s); "
                                "give -m T0:T1 with T0 < T1\n",
                        spec, mk[nm].t1, mk[nm].t0);
                return 2;
            }
            nm++;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage_to(stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rv-plot: unknown option '%s' (a file named so: LABEL=%s)\n", a, a);
            usage();
            return 2;
        } else {
            if (ns == MAX_FILES) {
                fprintf(stderr, "rv-plot: at most %d files\n", MAX_FILES);
                return 2;
            }
            const char *eq = strchr(a, '=');
            if (eq) {
                size_t n = (size_t)(eq - a);
                char *lab = xrealloc(NULL, n + 1);
                memcpy(lab, a, n);
                lab[n] = 0;
                ser[ns].label = lab;
                ser[ns].path = eq + 1;
            } else {
                ser[ns].label = a;
                ser[ns].path = a;
            }
            ns++;
        }
    }
    if (ns == 0) {
        usage();
        return 2;
    }
    for (int i = 0; out && i < ns; i++)
        if (rv_cli_same_file(out, ser[i].path)) {
            fprintf(stderr, "rv-plot: -o '%s' is the input file '%s': the plot would overwrite it\n", out,
                    ser[i].path);
            for (int k = 0; k < ns; k++)
                if (ser[k].label != ser[k].path)
                    free((void *)ser[k].label);
            return 2;
        }
    int rc = 0;
    double t0 = INFINITY, t1 = -INFINITY;
    for (int i = 0; i < ns && rc == 0; i++) {
        if (load_csv(&ser[i]) < 0)
            rc = 1;
        else {
            t0 = fmin(t0, ser[i].t[0]);
            t1 = fmax(t1, ser[i].t[ser[i].n - 1]);
        }
    }
    if (rc)
        goto done;
    if (!(t1 > t0))
        t1 = t0 + 1;
    t0 = floor(t0);

    /* one time scale for every block: up to 3x the deadline, or the data's largest value if less */
    double ymax_all = 0, dl_all = 0, p_all = 0;
    for (int i = 0; i < ns; i++)
        for (size_t k = 0; k < ser[i].n; k++) {
            if (isfinite(ser[i].deadline[k]))
                dl_all = fmax(dl_all, ser[i].deadline[k]);
            if (isfinite(ser[i].proc[k]))
                p_all = fmax(p_all, ser[i].proc[k]);
        }
    ymax_all = dl_all > 0 ? fmin(3.0 * dl_all, fmax(1.2 * dl_all, 1.05 * p_all)) : 1.05 * p_all;
    FILE *o = out ? fopen(out, "w") : stdout;
    if (!o) {
        fprintf(stderr, "rv-plot: cannot write %s: %s\n", out, strerror(errno));
        rc = 1;
        goto done;
    }
    const int block_h = TITLE_H + TP_H + 16 + SP_H + GAP;
    const int head_h = title ? 30 : 6;
    const int H = head_h + ns * block_h;
    fprintf(o, "<?xml version='1.0' encoding='UTF-8'?>\n");
    fprintf(o, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
               "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
            W, H, W, H);
    if (title) {
        fprintf(o, "<text x='%d' y='20' font-size='15' font-weight='bold' text-anchor='middle'>", W / 2);
        xml_text(o, title);
        fputs("</text>\n", o);
    }
    for (int i = 0; i < ns; i++) {
        const series *s = &ser[i];
        int y = head_h + i * block_h;
        size_t met = 0, sisum = 0;
        double dmax = 0, psorted_max = 0;
        int stmax = 1, simax = 1;
        for (size_t k = 0; k < s->n; k++) {
            met += s->met[k] != 0;
            sisum += (size_t)s->si[k];
            if (isfinite(s->budget[k]))
                dmax = fmax(dmax, s->budget[k]);
            if (isfinite(s->proc[k]))
                psorted_max = fmax(psorted_max, s->proc[k]);
            if (s->si[k] > simax)
                simax = s->si[k];
            if (s->st[k] > stmax)
                stmax = s->st[k];
        }
        fprintf(o, "<text x='%d' y='%d' font-size='13' font-weight='bold'>", ML, y + 17);
        xml_text(o, s->label);
        fprintf(o, "</text><text x='%d' y='%d' font-size='11' text-anchor='end'>%zu processed frames, "
                   "%.1f %% met, mean S_I %.2f</text>\n",
                W - MR, y + 17, s->n, 100.0 * (double)met / (double)s->n, (double)sisum / (double)s->n);
        /* time panel */
        (void)dmax;
        (void)psorted_max;
        double ymax = ymax_user > 0 ? ymax_user : ymax_all;
        if (!(ymax > 0))
            ymax = 1;
        double ystep = nice_step(ymax, 5);
        ymax = ceil(ymax / ystep) * ystep;
        frame_box tp = {ML, W - MR, y + TITLE_H, y + TITLE_H + TP_H, t0, t1, 0, ymax};
        marks(o, &tp, mk, nm);
        axes(o, &tp, "time per frame (ms)", ystep, 0);
        /* deadline of the source frame (dashed) and budget of the processed frame (step) */
        if (s->has_budget) {
            fprintf(o, "<polyline fill='none' stroke='#888' stroke-dasharray='5,3' points='");
            for (size_t k = 0; k < s->n; k++)
                if (isfinite(s->deadline[k]))
                    fprintf(o, "%.1f,%.1f ", px(&tp, s->t[k]), py(&tp, s->deadline[k]));
            fputs("'/>\n", o);
            int differs = 0;
            for (size_t k = 0; k < s->n; k++)
                differs |= isfinite(s->budget[k]) && s->budget[k] != s->deadline[k];
            if (differs) {
                fprintf(o, "<polyline fill='none' stroke='#e07b00' stroke-width='1' points='");
                for (size_t k = 0; k < s->n; k++)
                    if (isfinite(s->budget[k])) {
                        if (k)
                            fprintf(o, "%.1f,%.1f ", px(&tp, s->t[k]), py(&tp, s->budget[k - 1]));
                        fprintf(o, "%.1f,%.1f ", px(&tp, s->t[k]), py(&tp, s->budget[k]));
                    }
                fputs("'/>\n", o);
            }
        }
        fprintf(o, "<polyline fill='none' stroke='#1f5fbf' stroke-width='0.8' points='");
        for (size_t k = 0; k < s->n; k++)
            if (isfinite(s->proc[k]))
                fprintf(o, "%.1f,%.1f ", px(&tp, s->t[k]), py(&tp, s->proc[k]));
        fputs("'/>\n<g fill='#d62020'>", o);
        for (size_t k = 0; k < s->n; k++)
            if (!s->met[k] && isfinite(s->proc[k]))
                fprintf(o, "<circle cx='%.1f' cy='%.1f' r='1.8'/>", px(&tp, s->t[k]), py(&tp, s->proc[k]));
        fputs("</g>\n", o);
        /* legend */
        int lx = ML + 8, ly = (int)tp.y0 + 14;
        fprintf(o, "<g font-size='10'><line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#1f5fbf'/>"
                   "<text x='%d' y='%d'>",
                lx + 150, ly - 3, lx + 168, ly - 3, lx + 172, ly);
        xml_text(o, strcmp(g_ycol, "proc_ms") ? g_ycol : "processing time");
        fputs("</text>", o);
        fprintf(o, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888' stroke-dasharray='5,3'/>"
                   "<text x='%d' y='%d'>deadline</text>",
                lx + 260, ly - 3, lx + 278, ly - 3, lx + 282, ly);
        fprintf(o, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#e07b00'/><text x='%d' y='%d'>"
                   "budget S_T x deadline</text>",
                lx + 332, ly - 3, lx + 350, ly - 3, lx + 354, ly);
        fprintf(o, "<circle cx='%d' cy='%d' r='2' fill='#d62020'/><text x='%d' y='%d'>missed</text></g>\n",
                lx + 478, ly - 3, lx + 484, ly);
        /* stride panel */
        int smax = simax > stmax ? simax : stmax;
        if (smax < 4)
            smax = 4;
        frame_box sp = {ML, W - MR, tp.y1 + 16, tp.y1 + 16 + SP_H, t0, t1, 0, smax};
        marks(o, &sp, mk, nm);
        axes(o, &sp, "stride", nice_step(smax, 4), 1);
        if (s->has_strides) {
            const char *colors[2] = {"#1f5fbf", "#e07b00"};
            for (int which = 0; which < 2; which++) {
                const int *v = which ? s->st : s->si;
                double off = which ? -1.5 : 1.5; /* keep equal lines apart */
                fprintf(o, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", colors[which]);
                for (size_t k = 0; k < s->n; k++) {
                    if (k)
                        fprintf(o, "%.1f,%.1f ", px(&sp, s->t[k]), py(&sp, v[k - 1]) + off);
                    fprintf(o, "%.1f,%.1f ", px(&sp, s->t[k]), py(&sp, v[k]) + off);
                }
                fputs("'/>\n", o);
            }
            fprintf(o, "<g font-size='10'><line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#1f5fbf' stroke-width='1.5'/>"
                       "<text x='%d' y='%d'>S_I (spatial)</text>"
                       "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#e07b00' stroke-width='1.5'/>"
                       "<text x='%d' y='%d'>S_T (temporal)</text></g>\n",
                    W - MR - 220, (int)sp.y0 + 11, W - MR - 202, (int)sp.y0 + 11, W - MR - 198, (int)sp.y0 + 14,
                    W - MR - 110, (int)sp.y0 + 11, W - MR - 92, (int)sp.y0 + 11, W - MR - 88, (int)sp.y0 + 14);
        }
        fprintf(o, "<text x='%d' y='%.1f' font-size='11' text-anchor='middle'>time (s)</text>\n", (ML + W - MR) / 2,
                sp.y1 + 26);
    }
    fputs("</svg>\n", o);
    if (o != stdout && fclose(o) != 0) {
        fprintf(stderr, "rv-plot: writing %s failed\n", out);
        rc = 1;
    }
done:
    for (int i = 0; i < ns; i++) {
        if (ser[i].label != ser[i].path)
            free((void *)ser[i].label);
        free(ser[i].t);
        free(ser[i].proc);
        free(ser[i].deadline);
        free(ser[i].budget);
        free(ser[i].met);
        free(ser[i].si);
        free(ser[i].st);
    }
    return rc;
}
