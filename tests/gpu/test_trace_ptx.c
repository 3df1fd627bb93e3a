/*
 * test_trace_ptx.c - grid timelines (kernel.h, RV_TRACE_GRIDS) without a GPU:
 * the build compiles the samples module with -DRV_TRACE_GRIDS (nvcc; ptxas
 * checks it in its own test), and this test reads that PTX (RV_TRACE_PTX):
 *  - every entry records the timer, its grid and its SM (%globaltimer,
 *    %gridid, %smid) and appends to the module's ring rv__trace;
 *  - the hash of its symbol each entry stores (a compile-time FNV-1a in
 *    kernel.h) is the one the CUDA backend computes for that symbol
 *    (rvc_trace_hash, ravioli_cuda/src/trace.h), so that the backend's dump
 *    names the records.
 * Without nvcc the build has no traced PTX and the test reports skipped.
 */
#include "rv_test.h"

#include <ctype.h>

#include "../../ravioli_cuda/src/trace.h"

static void test_entries_record_their_name(void **state)
{
    (void)state;
    const char *path = getenv("RV_TRACE_PTX");
    if (!path || !*path) {
        skip(); /* no nvcc at configure time: nothing to check */
        return;
    }
    char *ptx = rv_test_slurp(path, NULL);
    assert_non_null(ptx);
    assert_non_null(strstr(ptx, "rv__trace_n"));
    int entries = 0;
    for (char *at = strstr(ptx, ".entry rvk"); at; at = strstr(at + 1, ".entry rvk")) {
        char name[128]; /* the entry's symbol: rvk_<name> or rvkw_<name> */
        const char *p = at + strlen(".entry ");
        size_t k = 0;
        while (k + 1 < sizeof(name) && (isalnum((unsigned char)p[k]) || p[k] == '_'))
            name[k] = p[k], k++;
        name[k] = 0;
        /* the entry's text: from its .entry line to the next one or the end */
        char *end = strstr(at + 1, ".entry ");
        if (!end)
            end = ptx + strlen(ptx);
        const char *body = at;
        const char saved = *end;
        *end = 0;
        /* nvcc writes the 64-bit constant as a signed decimal */
        char hs[32];
        snprintf(hs, sizeof(hs), " %lld;", (long long)rvc_trace_hash(name));
        if (!strstr(body, hs))
            fail_msg("entry %s: no name hash%s in its PTX (kernel.h and trace.h disagree?)", name, hs);
        assert_non_null(strstr(body, "%globaltimer"));
        assert_non_null(strstr(body, "%gridid"));
        assert_non_null(strstr(body, "%smid"));
        assert_non_null(strstr(body, "rv__trace"));
        *end = saved;
        entries++;
    }
    print_message("%d traced entries checked\n", entries);
    assert_true(entries >= 10);
    free(ptx);
}

static void test_hash_reference(void **state)
{
    (void)state;
    /* FNV-1a 64 reference values (the empty string is the offset basis) */
    assert_true(rvc_trace_hash("") == 14695981039346656037ull);
    assert_true(rvc_trace_hash("a") == 0xaf63dc4c8601ec8cull);
    assert_true(rvc_trace_hash("foobar") == 0x85944171f73967e8ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_reference),
        cmocka_unit_test(test_entries_record_their_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
