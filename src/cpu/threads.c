/* A small thread pool and sk_parallel_run.
 *
 * Work is split by the caller, statically (sk_partition) or in chunks that
 * threads claim one at a time (sk_parallel_chunks), and every kernel is
 * written so that the split never changes a result: that is what makes
 * results bitwise identical for every thread count. So when the pool is busy
 * (another thread of the application is inside a call), the tasks simply run
 * one after another on the caller. */
#define _GNU_SOURCE
#include "cpu/cpu.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int sk_num_threads_setting; /* 0: not set, use the default */

static int sk_clamp_threads(long n) { return n > SK_MAX_THREADS ? SK_MAX_THREADS : (int)n; }

/* The leading positive integer of a thread-count variable ("4", or OpenMP's
 * nested list "4,2"); 0 when there is none. */
int sk_threads_from_env_text(const char *text) {
    if (!text || !*text) return 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || v < 1 || (*end != '\0' && *end != ',')) return 0;
    return sk_clamp_threads(v);
}

long sk_env_count(const char *name, long fallback, long most) {
    const char *env = getenv(name);
    if (!env || !*env) return fallback;
    char *end;
    long v = strtol(env, &end, 10);
    if (*end != '\0' || v < 0) return fallback;
    return v > most ? most : v;
}

int sk_env_count_once(atomic_int *cached, const char *name, long fallback, long most) {
    int v = atomic_load_explicit(cached, memory_order_relaxed);
    if (v >= 0) return v;
    v = (int)sk_env_count(name, fallback, most);
    atomic_store_explicit(cached, v, memory_order_relaxed);
    return v;
}

/* The first line of a small file, or false. */
static bool sk_read_line(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    return ok;
}

/* CPUs a quota of `quota` microseconds per `period` allows, rounded up; 0
 * for no quota. */
static int sk_quota_cpus(long long quota, long long period) {
    if (quota <= 0 || period <= 0) return 0;
    long long n = (quota + period - 1) / period;
    return n > SK_MAX_THREADS ? SK_MAX_THREADS : (int)n;
}

/* The cgroup path of this process in the unified (v2) hierarchy, from the
 * "0::<path>" line of /proc/self/cgroup; "" when there is none. */
static void sk_cgroup_v2_path(char *path, size_t size) {
    path[0] = '\0';
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) != 0) continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(path, size, "%s", strcmp(line + 3, "/") == 0 ? "" : line + 3);
        break;
    }
    fclose(f);
}

/* The CPU quota of this process's cgroup under `root` (normally
 * /sys/fs/cgroup): v2's cpu.max ("max 100000" or "<quota> <period>") in its
 * own cgroup or at the root, else v1's cpu.cfs_quota_us / cpu.cfs_period_us.
 * 0 when there is no quota or it cannot be read. */
int sk_cgroup_cpu_quota(const char *root) {
    char own[256], path[1024], line[128];
    sk_cgroup_v2_path(own, sizeof own);
    const char *v2[] = {own, ""};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s%s/cpu.max", root, v2[i]);
        if (!sk_read_line(path, line, sizeof line)) continue;
        long long quota, period;
        if (sscanf(line, "%lld %lld", &quota, &period) == 2) return sk_quota_cpus(quota, period);
        return 0; /* "max ...": no limit */
    }
    const char *v1[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
    for (int i = 0; i < 3; i++) {
        char qline[64];
        snprintf(path, sizeof path, "%s/%s/cpu.cfs_quota_us", root, v1[i]);
        if (!sk_read_line(path, qline, sizeof qline)) continue;
        snprintf(path, sizeof path, "%s/%s/cpu.cfs_period_us", root, v1[i]);
        if (!sk_read_line(path, line, sizeof line)) return 0;
        return sk_quota_cpus(atoll(qline), atoll(line));
    }
    return 0;
}

/* The CPUs this process may use: its affinity mask, capped by its cgroup's
 * CPU quota (read once: a quota does not change under a running process as
 * a rule, and the default is asked for on every call). SCATTERKIT_CPUS=n
 * (read once) replaces the count: a testing override, so that a machine of
 * two CPUs runs the groups and walkers that a machine of n would. */
int sk_usable_cpu_count(void) {
    static atomic_int quota = -1, forced = -1;
    int f = sk_env_count_once(&forced, "SCATTERKIT_CPUS", 0, SK_MAX_THREADS);
    if (f > 0) return f;
    int q = atomic_load_explicit(&quota, memory_order_relaxed);
    if (q < 0) {
        q = sk_cgroup_cpu_quota("/sys/fs/cgroup");
        atomic_store_explicit(&quota, q, memory_order_relaxed);
    }
    long n = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (q > 0 && q < n) n = q;
    return sk_clamp_threads(n);
}

/* SCATTERKIT_NUM_THREADS, then OMP_NUM_THREADS (as PyTorch and OpenMP
 * libraries read it), then the CPUs this process may use. */
static int sk_default_threads(void) {
    int n = sk_threads_from_env_text(getenv("SCATTERKIT_NUM_THREADS"));
    if (n < 1) n = sk_threads_from_env_text(getenv("OMP_NUM_THREADS"));
    return n >= 1 ? n : sk_usable_cpu_count();
}

sk_status sk_set_num_threads(int32_t n) {
    atomic_store(&sk_num_threads_setting, n < 1 ? 0 : (n > SK_MAX_THREADS ? SK_MAX_THREADS : n));
    return SK_STATUS_OK;
}

int32_t sk_get_num_threads(void) {
    int n = atomic_load(&sk_num_threads_setting);
    return n > 0 ? n : sk_default_threads();
}

int sk_threads_for(const sk_options *opts) {
    if (opts && opts->num_threads > 0)
        return opts->num_threads > SK_MAX_THREADS ? SK_MAX_THREADS : opts->num_threads;
    return sk_get_num_threads();
}

int sk_threads_for_work(int nthreads, int64_t work) {
    /* below ~32k element operations a thread costs more than it saves */
    const int64_t grain = 1 << 15;
    int64_t useful = work / grain + 1;
    return useful < nthreads ? (int)useful : nthreads;
}

static struct {
    pthread_mutex_t lock;       /* guards everything below */
    pthread_cond_t wake, done;
    pthread_mutex_t busy;       /* held by the caller of a parallel run */
    int nworkers;
    atomic_ulong generation;    /* read without the lock while spinning */
    void (*fn)(void *, int, int);
    void *ctx;
    int nthreads;               /* of the current job */
    atomic_int pending;         /* workers that have not finished the job */
} sk_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
             PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, NULL, 0, 0};

/* How long a thread that has finished its part keeps polling for the next
 * job (a worker) or for the other threads (the caller) before sleeping on
 * the condition variable: SCATTERKIT_SPIN_US microseconds, default 2000, 0
 * never. A sleeping worker's virtual CPU can go back to the host, and waking
 * it can cost a millisecond, paid by every parallel region of a call. It
 * polls with sched_yield(), so that any other runnable thread gets the CPU
 * first (a pause-instruction spin starved a second process on the same
 * CPUs). docs/PERF-LOG.md has the measurements. */
static long sk_spin_ns(void) {
    static atomic_int cached_us = -1;
    return (long)sk_env_count_once(&cached_us, "SCATTERKIT_SPIN_US", 2000, 1000000) * 1000;
}

static int64_t sk_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Polls, for at most sk_spin_ns(), until the pool's generation is no
 * longer `seen` (a worker) or no worker is pending (the caller). Either way
 * the thread then takes the lock and waits on the condition variable as
 * before, so polling only ever starts it earlier, never loses a wake-up. */
static void sk_spin_until(bool for_generation, unsigned long seen) {
    long ns = sk_spin_ns();
    if (ns <= 0) return;
    int64_t until = sk_now_ns() + ns;
    for (unsigned i = 1;; i++) {
        if (for_generation
                ? atomic_load_explicit(&sk_pool.generation, memory_order_acquire) != seen
                : atomic_load_explicit(&sk_pool.pending, memory_order_acquire) == 0)
            return;
        sched_yield(); /* keeps the CPU only while nothing else wants it */
        if ((i & 15) == 0 && sk_now_ns() > until) return;
    }
}

static void *sk_worker(void *arg) {
    int id = (int)(intptr_t)arg; /* worker id >= 1; tid 0 is the caller */
    unsigned long seen = 0;
    pthread_mutex_lock(&sk_pool.lock);
    for (;;) {
        if (sk_pool.generation == seen) {
            pthread_mutex_unlock(&sk_pool.lock);
            sk_spin_until(true, seen);
            pthread_mutex_lock(&sk_pool.lock);
        }
        while (sk_pool.generation == seen) pthread_cond_wait(&sk_pool.wake, &sk_pool.lock);
        seen = sk_pool.generation;
        if (id >= sk_pool.nthreads) continue; /* not needed for this job */
        void (*fn)(void *, int, int) = sk_pool.fn;
        void *ctx = sk_pool.ctx;
        int n = sk_pool.nthreads;
        pthread_mutex_unlock(&sk_pool.lock);
        fn(ctx, id, n);
        pthread_mutex_lock(&sk_pool.lock);
        if (--sk_pool.pending == 0) pthread_cond_signal(&sk_pool.done);
    }
    return NULL;
}

/* Starts workers up to `want` (excluding the caller); returns how many exist. */
static int sk_pool_grow(int want) {
    while (sk_pool.nworkers < want) {
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&th, &attr, sk_worker, (void *)(intptr_t)(sk_pool.nworkers + 1));
        pthread_attr_destroy(&attr);
        if (rc != 0) break;
        sk_pool.nworkers++;
    }
    return sk_pool.nworkers;
}

/* A child of fork() has only the forking thread: forget the workers (they
 * are started again on demand) and reset the locks, which may have been held
 * by a thread that does not exist in the child. */
static void sk_pool_after_fork_child(void) {
    pthread_mutex_init(&sk_pool.lock, NULL);
    pthread_mutex_init(&sk_pool.busy, NULL);
    pthread_cond_init(&sk_pool.wake, NULL);
    pthread_cond_init(&sk_pool.done, NULL);
    sk_pool.nworkers = 0;
    sk_pool.pending = 0;
}

static pthread_once_t sk_pool_once = PTHREAD_ONCE_INIT;
static void sk_pool_register_fork_handler(void) {
    pthread_atfork(NULL, NULL, sk_pool_after_fork_child);
}

void sk_parallel_run(int nthreads, void (*fn)(void *ctx, int tid, int nthreads), void *ctx) {
    if (nthreads <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_once(&sk_pool_once, sk_pool_register_fork_handler);
    if (pthread_mutex_trylock(&sk_pool.busy) != 0) {
        for (int t = 0; t < nthreads; t++) fn(ctx, t, nthreads);
        return;
    }
    pthread_mutex_lock(&sk_pool.lock);
    int have = sk_pool_grow(nthreads - 1);
    if (have < nthreads - 1) { /* could not start threads: run the rest here */
        pthread_mutex_unlock(&sk_pool.lock);
        pthread_mutex_unlock(&sk_pool.busy);
        for (int t = 0; t < nthreads; t++) fn(ctx, t, nthreads);
        return;
    }
    sk_pool.fn = fn;
    sk_pool.ctx = ctx;
    sk_pool.nthreads = nthreads;
    sk_pool.pending = nthreads - 1;
    sk_pool.generation++;
    pthread_cond_broadcast(&sk_pool.wake);
    pthread_mutex_unlock(&sk_pool.lock);

    fn(ctx, 0, nthreads);

    sk_spin_until(false, 0);
    pthread_mutex_lock(&sk_pool.lock);
    while (sk_pool.pending > 0) pthread_cond_wait(&sk_pool.done, &sk_pool.lock);
    pthread_mutex_unlock(&sk_pool.lock);
    pthread_mutex_unlock(&sk_pool.busy);
}

/* Chunks claimed one at a time (see sk_parallel_chunks). */
typedef struct {
    void (*fn)(void *ctx, int tid, int64_t chunk, int64_t lo, int64_t hi);
    void *ctx;
    int64_t n, nchunks;
    atomic_llong next;
} sk_chunks_job;

static void sk_chunks_task(void *arg, int tid, int nthreads) {
    sk_chunks_job *job = arg;
    (void)nthreads;
    for (;;) {
        int64_t c = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (c >= job->nchunks) return;
        int64_t lo, hi;
        sk_partition(job->n, (int)c, (int)job->nchunks, &lo, &hi);
        job->fn(job->ctx, tid, c, lo, hi);
    }
}

int64_t sk_chunks_for(int nthreads, int64_t n, int64_t unit_elems) {
    if (nthreads <= 1 || n <= 0) return n > 0 ? 1 : 0;
    int64_t grain = unit_elems > 0 && unit_elems < SK_CHUNK_GRAIN ? SK_CHUNK_GRAIN / unit_elems : 1;
    int64_t most = (int64_t)nthreads * SK_CHUNKS_PER_THREAD, fit = n / grain;
    int64_t c = fit < most ? fit : most;
    return c > nthreads ? c : (n < nthreads ? n : nthreads);
}

void sk_parallel_chunks(int nthreads, int64_t n, int64_t nchunks,
                        void (*fn)(void *ctx, int tid, int64_t chunk, int64_t lo, int64_t hi),
                        void *ctx) {
    if (nchunks <= 0) return;
    sk_chunks_job job = {fn, ctx, n, nchunks, 0};
    sk_parallel_run(nthreads < nchunks ? nthreads : (int)nchunks, sk_chunks_task, &job);
}
