/* Every size threshold of the CPU backend, named in one place. The
 * measurements behind them are in docs/PERF-LOG.md. */
#ifndef SK_CPU_TUNING_H
#define SK_CPU_TUNING_H

#include <stdint.h>

/* Chunks of parallel work: about SK_CHUNKS_PER_THREAD per thread, each of at
 * least SK_CHUNK_GRAIN elements (256 KB of float32), so that a thread that
 * shares its core with another program does less of the work instead of
 * holding up the others. */
enum { SK_CHUNKS_PER_THREAD = 8 };
enum { SK_CHUNK_GRAIN = 1 << 16 };
/* Copies at least this large stream their stores (about the L3 of one chip). */
#define SK_STREAM_MIN_BYTES ((int64_t)32 << 20)
/* Gathers whose out is at least this large read x and the index mostly from
 * memory, not from a core's caches. */
#define SK_PAST_L2_BYTES ((int64_t)4 << 20)
/* Rows that come from random places (a row gather, the target rows of a
 * scatter) are asked for SK_ROWS_AHEAD rows before they are used, into L2
 * only: a prefetch into L1 holds one of the core's few L1 miss buffers until
 * its line arrives, and those capped the misses in flight. */
enum { SK_ROWS_AHEAD = 64 };

#endif /* SK_CPU_TUNING_H */
