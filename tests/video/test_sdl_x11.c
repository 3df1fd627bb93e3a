/*
 * test_sdl_x11.c - the SDL2 window sink in a real X window: starts a private
 * Xvfb server, shows frames through SDL's x11 driver, takes a screenshot of
 * the whole screen with `xwd -root`, and compares the window's area with the
 * frame, pixel for pixel. Skipped (exit 77) when Xvfb or xwd is not
 * installed (Debian: xvfb, x11-apps).
 *
 * Set RV_TEST_SCREENSHOT=<file.ppm> to keep the screenshot (with overlay).
 */
#include "rv_test.h"

#include <SDL.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ravioli/video.h>

#include "sdl_hook.h"

/* LeakSanitizer (RV_SANITIZE builds): SDL's X11 and D-Bus libraries keep
 * process-wide allocations (Xlib's locale/XIM caches, the D-Bus connection).
 * SDL opens Mesa's GL even for a software-rendered window. All are kept
 * loaded (RTLD_NODELETE below) so that their frames have names,
 * and those names are suppressed here; ravioli's own leaks still show. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libdbus-1.so\nleak:libX11.so\nleak:libXext.so\nleak:libXcursor.so\n"
           "leak:libXi.so\nleak:libXrandr.so\nleak:libxcb.so\nleak:libGL.so\nleak:libGLX_mesa.so\n"
           "leak:swrast_dri.so\nleak:libLLVM\nleak:libdrm\n";
}

static void keep_x11_libraries_loaded(void)
{
    static const char *libs[] = {"libX11.so.6", "libXext.so.6", "libXcursor.so.1", "libXi.so.6",
                                 "libXrandr.so.2", "libXss.so.1", "libXinerama.so.1",
                                 "libXfixes.so.3", "libxkbcommon.so.0", "libGL.so.1",
                                 "libGLX_mesa.so.0",
                                 "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so",
                                 "/usr/lib/dri/swrast_dri.so", "/usr/lib64/dri/swrast_dri.so"};
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
        (void)dlopen(libs[i], RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}

static int in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[1024];
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (c ? 1 : 0);
    }
    return 0;
}

static pid_t xvfb_pid;
static char display[32];
static char tmpdir[256];
static RV_Context *ctx;

static void stop_xvfb(void)
{
    if (xvfb_pid > 0) {
        kill(xvfb_pid, SIGTERM);
        waitpid(xvfb_pid, NULL, 0);
        xvfb_pid = 0;
    }
}

/* Starts Xvfb on a free display (-displayfd) with a 24-bit 400x300 screen;
 * -noreset: no server reset when the last client leaves, so the second
 * window of the test (a new SDL video init) never meets a resetting server. */
static int start_xvfb(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    xvfb_pid = fork();
    if (xvfb_pid < 0)
        return -1;
    if (xvfb_pid == 0) {
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", fds[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execlp("Xvfb", "Xvfb", "-displayfd", fd, "-screen", "0", "400x300x24", "-nolisten", "tcp", "-noreset",
               (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char num[16] = {0};
    size_t n = 0;
    while (n < sizeof(num) - 1) {
        ssize_t r = read(fds[0], num + n, 1);
        if (r <= 0 || num[n] == '\n')
            break;
        n++;
    }
    close(fds[0]);
    num[n] = '\0';
    if (n == 0)
        return -1;
    snprintf(display, sizeof(display), ":%s", num);
    return 0;
}

static int setup(void **state)
{
    (void)state;
    ctx = rv_test_cpu_context(1);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/rv_x11_XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rv_context_destroy(&ctx);
    stop_xvfb();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int shift_of(uint32_t mask)
{
    int s = 0;
    while (mask && !(mask & 1))
        mask >>= 1, s++;
    return s;
}

/* Reads an XWD (X Window Dump, version 7) ZPixmap of 24 or 32 bits a pixel
 * into RGB bytes. */
static unsigned char *read_xwd(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)size);
    assert_int_equal(fread(d, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    assert_true(size > 100);
    uint32_t hdr = be32(d), version = be32(d + 4), format = be32(d + 8);
    uint32_t width = be32(d + 16), height = be32(d + 20), byte_order = be32(d + 28);
    uint32_t bpp = be32(d + 44), bpl = be32(d + 48);
    uint32_t rmask = be32(d + 56), gmask = be32(d + 60), bmask = be32(d + 64);
    uint32_t ncolors = be32(d + 76);
    assert_int_equal(version, 7);
    assert_int_equal(format, 2); /* ZPixmap */
    assert_true(bpp == 24 || bpp == 32);
    const unsigned bytes = bpp / 8;
    size_t off = hdr + (size_t)ncolors * 12;
    assert_true(off + (size_t)bpl * height <= (size_t)size);
    unsigned char *rgb = malloc((size_t)width * height * 3);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            const unsigned char *p = d + off + (size_t)y * bpl + bytes * x;
            uint32_t v = 0;
            for (unsigned i = 0; i < bytes; i++) /* byte_order 0: LSBFirst */
                v |= (uint32_t)p[i] << (8 * (byte_order == 0 ? i : bytes - 1 - i));
            unsigned char *o = rgb + ((size_t)y * width + x) * 3;
            o[0] = (unsigned char)((v & rmask) >> shift_of(rmask));
            o[1] = (unsigned char)((v & gmask) >> shift_of(gmask));
            o[2] = (unsigned char)((v & bmask) >> shift_of(bmask));
        }
    free(d);
    *w = (int)width;
    *h = (int)height;
    return rgb;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_window_on_screen(void **state)
{
    (void)state;
    const int w = 160, h = 120;
    RV_VideoInfo info = {0};
    info.width = w, info.height = h, info.format = RV_FMT_RGBA8;
    RV_SDLSettings s;
    rv_sdl_settings_default(&s);
    s.overlay = 0;
    RV_Sink *sink = NULL;
    if (rv_sink_open_sdl_ex(ctx, &s, &info, &sink) < 0)
        fail_msg("rv_sink_open_sdl on Xvfb %s: %s", display, rv_context_error(ctx));
    RV_SyntheticSettings ss;
    rv_synthetic_settings_default(&ss);
    ss.width = w, ss.height = h, ss.realtime = 0;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_synthetic(ctx, &ss, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_RGBA8, &img), 0);
    for (int k = 0; k < 10; k++) { /* the window maps; keep showing the last frame */
        if (k < 5)
            assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
        pause_ms(50);
    }
    SDL_Window *win = rv__sink_sdl_window(sink);
    int wx, wy, ww, wh;
    SDL_GetWindowPosition(win, &wx, &wy);
    SDL_GetWindowSize(win, &ww, &wh);
    assert_int_equal(ww, w);
    assert_int_equal(wh, h);
    char path[400], cmd[600];
    snprintf(path, sizeof(path), "%s/screen.xwd", tmpdir);
    snprintf(cmd, sizeof(cmd), "xwd -root -silent -display %s -out '%s'", display, path);
    assert_int_equal(system(cmd), 0);
    int sw, sh;
    unsigned char *screen = read_xwd(path, &sw, &sh);
    assert_int_equal(sw, 400);
    assert_int_equal(sh, 300);
    assert_true(wx >= 0 && wy >= 0 && wx + w <= sw && wy + h <= sh);
    ptrdiff_t pitch;
    const unsigned char *p = rv_image_read(img, 0, &pitch);
    long bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *a = screen + ((size_t)(wy + y) * sw + (size_t)(wx + x)) * 3;
            const unsigned char *b = p + y * pitch + 4 * x;
            bad += a[0] != b[0] || a[1] != b[1] || a[2] != b[2];
        }
    printf("window at %d,%d on %s: %ld of %d pixels differ from the frame\n", wx, wy, display,
           bad, w * h);
    assert_int_equal(bad, 0);
    free(screen);
    /* with the overlay, for a look (RV_TEST_SCREENSHOT) */
    const char *keep = getenv("RV_TEST_SCREENSHOT");
    if (keep && *keep) {
        rv_sink_close(&sink);
        s.overlay = 1;
        info.width = 2 * w, info.height = 2 * h;
        ss.width = 2 * w, ss.height = 2 * h;
        rv_source_close(&src);
        rv_image_destroy(&img);
        assert_int_equal(rv_source_open_synthetic(ctx, &ss, &src), 0);
        assert_int_equal(rv_image_create(ctx, 2 * w, 2 * h, RV_FMT_RGBA8, &img), 0);
        assert_int_equal(rv_sink_open_sdl_ex(ctx, &s, &info, &sink), 0);
        RV_FrameStats st = {0};
        st.fps = 29.97, st.latency_ms = 33.4, st.spatial_stride = 2, st.temporal_stride = 1;
        for (int k = 0; k < 6; k++) {
            st.index = k;
            assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
            assert_int_equal(rv_sink_write(sink, img, &st), 0);
            pause_ms(50);
        }
        assert_int_equal(system(cmd), 0);
        screen = read_xwd(path, &sw, &sh);
        FILE *f = fopen(keep, "wb");
        if (f) {
            fprintf(f, "P6\n%d %d\n255\n", sw, sh);
            fwrite(screen, 3, (size_t)sw * sh, f);
            fclose(f);
        }
        free(screen);
    }
    rv_sink_close(&sink);
    rv_source_close(&src);
    rv_image_destroy(&img);
}

/* yuv420p8 frames go to an IYUV texture that the X11 renderer converts:
 * the window's pixels within 2 codes of real-valued BT.601 (limited range,
 * chroma repeated over its 2x2 block). */
static void test_window_iyuv(void **state)
{
    (void)state;
    const int w = 160, h = 120;
    RV_VideoInfo info = {0};
    info.width = w, info.height = h, info.format = RV_FMT_YUV420P8, info.bit_depth = 8;
    RV_SDLSettings s;
    rv_sdl_settings_default(&s);
    s.overlay = 0;
    RV_Sink *sink = NULL;
    if (rv_sink_open_sdl_ex(ctx, &s, &info, &sink) < 0)
        fail_msg("rv_sink_open_sdl on Xvfb %s: %s", display, rv_context_error(ctx));
    RV_SyntheticSettings ss;
    rv_synthetic_settings_default(&ss);
    ss.width = w, ss.height = h, ss.realtime = 0, ss.format = RV_FMT_YUV420P8;
    RV_Source *src = NULL;
    assert_int_equal(rv_source_open_synthetic(ctx, &ss, &src), 0);
    RV_Image *img = NULL;
    assert_int_equal(rv_image_create(ctx, w, h, RV_FMT_YUV420P8, &img), 0);
    for (int k = 0; k < 10; k++) {
        if (k < 5)
            assert_int_equal(rv_source_read(src, img, NULL, 0), 0);
        assert_int_equal(rv_sink_write(sink, img, NULL), 0);
        pause_ms(50);
    }
    SDL_Window *win = rv__sink_sdl_window(sink);
    int wx, wy;
    SDL_GetWindowPosition(win, &wx, &wy);
    char path[400], cmd[600];
    snprintf(path, sizeof(path), "%s/screen_iyuv.xwd", tmpdir);
    snprintf(cmd, sizeof(cmd), "xwd -root -silent -display %s -out '%s'", display, path);
    assert_int_equal(system(cmd), 0);
    int sw, sh;
    unsigned char *screen = read_xwd(path, &sw, &sh);
    assert_true(wx >= 0 && wy >= 0 && wx + w <= sw && wy + h <= sh);
    ptrdiff_t p0, p1, p2;
    const unsigned char *Y = rv_image_read(img, 0, &p0), *U = rv_image_read(img, 1, &p1),
                        *V = rv_image_read(img, 2, &p2);
    double worst = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double yy = (Y[y * p0 + x] - 16) / 219.0, pb = (U[(y / 2) * p1 + x / 2] - 128) / 224.0,
                   pr = (V[(y / 2) * p2 + x / 2] - 128) / 224.0;
            double r = yy + 1.402 * pr, b = yy + 1.772 * pb, g = (yy - 0.299 * r - 0.114 * b) / 0.587;
            double ref[3] = {r, g, b};
            const unsigned char *a = screen + ((size_t)(wy + y) * sw + (size_t)(wx + x)) * 3;
            for (int c = 0; c < 3; c++) {
                double e = ref[c] * 255 < 0 ? 0 : ref[c] * 255 > 255 ? 255 : ref[c] * 255;
                double d = a[c] > e ? a[c] - e : e - a[c];
                worst = d > worst ? d : worst;
            }
        }
    printf("IYUV window on %s: max %.2f codes from BT.601\n", display, worst);
    assert_true(worst <= 2.0);
    free(screen);
    rv_sink_close(&sink);
    rv_source_close(&src);
    rv_image_destroy(&img);
}

int main(void)
{
    if (!in_path("Xvfb") || !in_path("xwd")) {
        printf("SKIPPED: Xvfb and xwd are needed (Debian packages xvfb, x11-apps)\n");
        return RV_TEST_SKIP;
    }
    if (start_xvfb() != 0) {
        stop_xvfb();
        fprintf(stderr, "cannot start Xvfb\n");
        return 1;
    }
    setenv("DISPLAY", display, 1);
    keep_x11_libraries_loaded();
    setenv("SDL_VIDEODRIVER", "x11", 1);
    /* SDL's software renderer draws into the X window through XPutImage/MIT-SHM;
     * a GL renderer would go through Mesa, whose dlclose()d driver leaves
     * allocations LeakSanitizer cannot attribute. What reaches the screen is
     * checked either way. */
    setenv("SDL_RENDER_DRIVER", "software", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_on_screen),
        cmocka_unit_test(test_window_iyuv),
    };
    int r = cmocka_run_group_tests(tests, setup, teardown);
    SDL_Quit(); /* SDL's process-wide leftovers (D-Bus connection) */
    stop_xvfb();
    return r;
}
