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
/* Threads of one call at most: the pool's size, and the length of every
 * per-thread array of the kernels. */
enum { SK_MAX_THREADS = 256 };
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

/* Scratch per index element a call may take: strategies that need a
 * buffer (packed tiles, packed operands, partial sums) fit it in this many
 * bytes per element of the caller's index, or take another path. */
enum { SK_SCRATCH_BYTES_PER_INDEX = 16 };

/* ---- gather (src/cpu/gather) ---- */
/* Last-axis element gathers check and copy blocks of this many elements. */
enum { SK_GATHER_BLOCK = 512 };
/* The AVX2 gather instruction pays off only where x's rows miss the caches:
 * out past SK_PAST_L2_BYTES, rows of x this long or longer, runs this long. */
enum { SK_GATHER4_MIN_ROW = 1024, SK_GATHER4_MIN_RUN = 256 };
/* The next row of x is prefetched during a last-axis gather only when it is
 * this short: a longer row would not stay in L2 until it is used. */
enum { SK_GATHER_AHEAD_MAX_ROW_BYTES = 65536 };
/* How far ahead the index of a last-axis gather is prefetched. */
enum { SK_INDEX_PREFETCH_BYTES = 2048 };
/* Transposing copies: tiles of SK_TRANSPOSE_TA output runs by
 * SK_TRANSPOSE_BYTES_B bytes of source runs. Long source strips keep its
 * page and prefetch streams; few output columns per tile keep the buffer
 * and the output rows in L1. */
enum { SK_TRANSPOSE_TA = 8, SK_TRANSPOSE_BYTES_B = 1024 };
/* A transposed operand of a gather (its last dimension's elements a line or
 * more apart, at least SK_PACK_MIN_ROW long, SK_PACK_MIN_BYTES in all) is
 * copied row-major first, within SK_SCRATCH_BYTES_PER_INDEX. */
enum { SK_CACHE_LINE = 64, SK_PACK_MIN_ROW = 16 };
#define SK_PACK_MIN_BYTES ((int64_t)1 << 20)
/* Column tiles (tile.c): a tile of n target rows takes at most
 * SK_TILE_BYTES at one line per row (half of a 512 KiB L2), and is walked
 * in strips of SK_TILE_STRIP plan rows. */
enum { SK_TILE_BYTES = 256 << 10, SK_TILE_STRIP = 8 };

/* ---- scatter (src/cpu/scatter) ---- */
/* Scatter paths keep per-thread scratch for at most this many threads. */
enum { SK_SCATTER_MAX_THREADS = SK_MAX_THREADS };
/* Owner-computes with scratch (16-bit sums, counts): a chunk of a thread's
 * targets holds at least this many; each chunk costs one walk of all updates. */
enum { SK_OWNER_MIN_CHUNK = 1 << 16 };
/* Owner-computes over rows: target rows asked for this many rows ahead. */
enum { SK_OWNER_ROWS_AHEAD = 16 };
/* Winners: enough update rows to repay the pass over the index, and at most
 * this many targets per update row (walking every target must cost less
 * than the updates). */
enum { SK_WINNERS_MIN_ROWS = 1024, SK_WINNERS_MAX_TARGETS_PER_ROW = 4 };
/* Segments take the row pattern from this many update rows (fewer repay
 * neither the sort nor the threads). */
enum { SK_SEG_MIN_ROWS = 1 << 13 };
/* Segments: update rows sorted by target in chunks of SK_SEG_SORT_ROWS rows
 * (at most SK_SEG_SORT_CHUNKS of them) into at most SK_SEG_BUCKETS buckets
 * of keys; a bucket's working and partial rows take at most
 * SK_SEG_BUCKET_BYTES (within a core's L2), and there are at least
 * SK_SEG_BUCKETS_PER_THREAD buckets per thread where the keys allow, so
 * that a thread slowed by another program does less of the work. */
enum { SK_SEG_SORT_ROWS = 1 << 14, SK_SEG_SORT_CHUNKS = 256, SK_SEG_BUCKETS = 4096 };
enum { SK_SEG_BUCKET_BYTES = 256 << 10, SK_SEG_BUCKETS_PER_THREAD = 4 };
/* Segments, direct: rows of at least SK_SEG_DIRECT_MIN_ROW_BYTES read from
 * src by the fold rather than staged; each group (a thread's range of
 * buckets) is made of SK_SEG_DIRECT_BUCKETS buckets at least, so the groups
 * come out even. A group reads 1/ngroups of src's rows spread over all of
 * it, so the traffic could grow with the groups; on a 16-core machine it did
 * not outgrow staging's extra write and read of every row at 16 groups
 * (docs/PERF-LOG.md, 2026-11-27), so the groups are not capped below the
 * thread limit (SCATTERKIT_SEG_DIRECT_GROUPS, a
 * tuning override, caps them: 0 stages every row). */
enum { SK_SEG_DIRECT_MIN_ROW_BYTES = 64, SK_SEG_DIRECT_MAX_GROUPS = SK_MAX_THREADS, SK_SEG_DIRECT_BUCKETS = 64 };
/* Segments: windows of at least this many rows, and key windows of more
 * than this many keys (fewer: owner_chunks). */
enum { SK_SEG_LEAST_WINDOW = 1024 };
/* segments_hot: a key is hot when, in a sample of SK_SEG_HOT_SAMPLE rows,
 * its rows are more than SK_SEG_HOT_SHARE_TENTHS tenths of one thread's
 * share: the thread folding it in segments_direct would take that much
 * longer than the others (a sample, not a count: the decision changes no
 * bits). */
enum { SK_SEG_HOT_SAMPLE = 1024, SK_SEG_HOT_SHARE_TENTHS = 12 };
/* segments_few: at most SK_SEG_FEW_MAX_KEYS keys, in stretches of
 * positions with SK_SEG_FEW_ROWS_PER_KEY rows per key at least,
 * SK_SEG_FEW_STRETCHES_PER_THREAD per thread where the rows allow (a
 * thread slowed by another program then does fewer of them). */
enum { SK_SEG_FEW_MAX_KEYS = 64, SK_SEG_FEW_ROWS_PER_KEY = 512, SK_SEG_FEW_STRETCHES_PER_THREAD = 4 };
/* segments_runs (a sorted index): SK_SEG_RUNS_STRETCHES_PER_THREAD
 * stretches per thread, of SK_SEG_RUNS_LEAST_ROWS rows at least; applies()
 * samples SK_SEG_RUNS_SAMPLE keys; a stretch of more than half a thread's
 * share of the rows, or twice a stretch's where the least rows cut fewer
 * stretches (a key holding many of them), is declined: the others would
 * wait for it. */
enum { SK_SEG_RUNS_STRETCHES_PER_THREAD = 4, SK_SEG_RUNS_LEAST_ROWS = 1024, SK_SEG_RUNS_SAMPLE = 64 };
/* Owner-computes in the canonical order takes spans of at least this many
 * targets. */
enum { SK_SEG_MIN_WINDOW = 1 << 16 };
/* Segment rows of src asked for this many rows ahead (a bucket's rows are
 * in increasing order, but far apart). */
enum { SK_SEG_AHEAD = 32 };
/* Segments, direct, with at most this many groups (threads running at
 * once): each group's thread scans the window's keys for its own rather
 * than have them placed by group first; the place pass costs more than
 * the scan where every thread scans all keys only twice (docs/PERF-LOG.md). */
enum { SK_SEG_SCAN_MAX_GROUPS = 2 };
/* Inner axis: runs of at least this many updates along the last axis, in
 * chunks of whole target rows of about SK_INNER_CHUNK_BYTES; the index copy
 * is uint16 where the axis has at most SK_INNER_INDEX16_MAX entries. */
enum { SK_INNER_MIN_RUN = 1024, SK_INNER_CHUNK_BYTES = 65536, SK_INNER_INDEX16_MAX = 65536 };
/* Inner axis sums: what one thread with the four-row buffers does in the
 * time of one thread summing a row at a time, in tenths (measured:
 * docs/PERF-LOG.md, 2026-11-27). Where the budget holds the buffers for
 * only some of the threads, they are used only if those threads outrun all
 * of them without. */
enum { SK_INNER_ROWS4_GAIN_TENTHS = 18 };
/* Inner axis: the index copy and its count run on every thread from this
 * many index entries; below, in the calling thread, where two more parallel
 * regions would cost more than the serial pass (docs/PERF-LOG.md,
 * 2026-11-27: W6's 65536 entries gain on 2 and on 16 cores). */
enum { SK_INNER_PARALLEL_PREP_MIN = 1 << 15 };

#endif /* SK_CPU_TUNING_H */
