/*
 * pool.c - the CPU backend's worker pool.
 *
 * threads - 1 workers wait on a condition variable; rv_pool_run() publishes
 * a job (a task count and a function), wakes them and takes tasks itself.
 * Tasks are claimed with an atomic counter, so uneven tasks balance out.
 * The split into tasks is chosen by the caller and does not depend on the
 * thread count, so results (reductions included) do not either.
 */
#include <stdlib.h>

#include "internal.h"

struct rv_pool {
    int threads;
    pthread_t *tids;
    int nstarted;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    /* current job */
    unsigned long generation;
    rv_task_fn fn;
    void *arg;
    int ntasks;
    atomic_int next;
    int active;     /* workers still inside the current job */
    int quit;
};

typedef struct worker_arg {
    rv_pool *pool;
    int index;
} worker_arg;

static void run_tasks(rv_pool *p, rv_task_fn fn, void *arg, int ntasks, int worker)
{
    for (;;) {
        int t = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (t >= ntasks)
            break;
        fn(arg, t, worker);
    }
}

static void *worker_main(void *varg)
{
    worker_arg wa = *(worker_arg *)varg;
    free(varg);
    rv_pool *p = wa.pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->generation;
        rv_task_fn fn = p->fn;
        void *arg = p->arg;
        int ntasks = p->ntasks;
        pthread_mutex_unlock(&p->mu);
        run_tasks(p, fn, arg, ntasks, wa.index);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int rv_pool_create(rv_pool **out, int threads)
{
    if (threads < 1)
        threads = 1;
    rv_pool *p = calloc(1, sizeof(*p));
    if (!p)
        return RV_ENOMEM;
    p->threads = threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->next, 0);
    if (threads > 1) {
        p->tids = calloc((size_t)threads - 1, sizeof(pthread_t));
        if (!p->tids) {
            rv_pool_destroy(&p);
            return RV_ENOMEM;
        }
        for (int i = 0; i < threads - 1; i++) {
            worker_arg *wa = malloc(sizeof(*wa));
            if (!wa) {
                rv_pool_destroy(&p);
                return RV_ENOMEM;
            }
            wa->pool = p;
            wa->index = i + 1;
            if (pthread_create(&p->tids[i], NULL, worker_main, wa) != 0) {
                free(wa);
                rv_pool_destroy(&p);
                return RV_ENOMEM;
            }
            p->nstarted++;
        }
    }
    *out = p;
    return 0;
}

void rv_pool_destroy(rv_pool **pp)
{
    if (!pp || !*pp)
        return;
    rv_pool *p = *pp;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nstarted; i++)
        pthread_join(p->tids[i], NULL);
    free(p->tids);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
    *pp = NULL;
}

int rv_pool_threads(const rv_pool *p)
{
    return p ? p->threads : 1;
}

void rv_pool_run(rv_pool *p, int ntasks, rv_task_fn fn, void *arg)
{
    if (ntasks <= 0)
        return;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    if (p->nstarted == 0 || ntasks == 1) {
        run_tasks(p, fn, arg, ntasks, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->ntasks = ntasks;
    p->active = p->nstarted;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    run_tasks(p, fn, arg, ntasks, 0);

    pthread_mutex_lock(&p->mu);
    while (p->active > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
