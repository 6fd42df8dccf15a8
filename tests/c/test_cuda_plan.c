/*
 * test_cuda_plan.c - the CUDA backend's planning (src/cuda/launch.c), which
 * is plain C and runs on any machine: the plans src/ops builds for the CPU
 * become kernel parameters (scheme, vector width, lanes per row, launch
 * geometry, validation and tensor_scatter descriptors) without a CUDA call.
 * Built in every configuration (launch.c is compiled into this test), so the
 * CPU-only CI checks the GPU's planning.
 */
#include "cuda/cuda.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* Fake device addresses: planning only looks at their alignment. */
#define ADDR(a) ((char *)(uintptr_t)(a))

/* index_select of rows: out[i, :] = x[index[i], :], x [rows, width]. */
static void rows_plan(sk_plan *p, int64_t n, int64_t width, sk_dtype dt, uintptr_t x,
                      uintptr_t out) {
    sk_plan_init(p, "index_select", dt);
    sk_plan_add_dim(p, n, width, 0, 0, 1);
    sk_plan_add_dim(p, width, 1, 1, 0, 0);
    p->ncomp = 1;
    p->comp_size[0] = 1000;
    p->comp_target_stride[0] = width;
    p->dense = ADDR(out);
    p->target = ADDR(x);
    p->index = ADDR(0x9000);
    p->index_is64 = true;
    sk_plan_normalize(p);
}

static void test_rows(void) {
    sk_plan p;
    sk_cuda_walk w;
    rows_plan(&p, 50, 32, SK_DTYPE_FLOAT32, 0x10000, 0x20000);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ROWS, "rows of 128 B: scheme %d, want rows", w.scheme);
    SKT_CHECK(w.vec == 16 && w.group == 8, "rows of 128 B: vec %d group %d, want 16 and 8", w.vec,
              w.group);
    SKT_CHECK(w.rows == 50 && w.row_len == 32, "rows %lld of %lld", (long long)w.rows,
              (long long)w.row_len);
    SKT_CHECK(w.blocks == 2 && w.threads == 256, "geometry %d x %d, want 2 x 256", w.blocks,
              w.threads);
    rows_plan(&p, 50, 32, SK_DTYPE_FLOAT32, 0x10004, 0x20000);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ROWS && w.vec == 4, "x 4 B off 16: vec %d, want 4", w.vec);
    rows_plan(&p, 50, 6, SK_DTYPE_INT16, 0x10000, 0x20000);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ELEMENTS, "rows of 12 B: scheme %d, want elements", w.scheme);
    rows_plan(&p, 7, 9, SK_DTYPE_FLOAT64, 0x10000, 0x20000);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ROWS && w.vec == 8 && w.group == 16,
              "rows of 72 B: vec %d group %d, want 8 and 16", w.vec, w.group);
    rows_plan(&p, 3, 4096, SK_DTYPE_UINT8, 0x10000, 0x20000);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.vec == 16 && w.group == 32 && w.chunk_vecs == 256 && w.chunks == 1,
              "rows of 4 KiB: vec %d group %d chunks %lld of %lld", w.vec, w.group,
              (long long)w.chunks, (long long)w.chunk_vecs);
    SKT_CHECK(w.chunks == 1 && w.blocks == 1, "3 rows of 4 KiB: one chunk each, one block");
}

/* A contiguous copy is one long row: shared out in chunks over many blocks. */
static void test_long_row(void) {
    float src[4], out[4];
    const int64_t shape[1] = {(int64_t)1 << 28};
    sk_tensor s, o;
    sk_tensor_init(&s, src, SK_DTYPE_FLOAT32, 1, shape, NULL);
    sk_tensor_init(&o, out, SK_DTYPE_FLOAT32, 1, shape, NULL);
    s.data = ADDR(0x100000);
    o.data = ADDR(0x200000);
    sk_plan p;
    sk_cuda_walk w;
    sk_cuda_copy_plan(&s, &o, &p);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ROWS && w.rows == 1 && w.vec == 16 && w.group == 32,
              "1 GiB copy: scheme %d rows %lld vec %d", w.scheme, (long long)w.rows, w.vec);
    SKT_CHECK(w.chunks == ((int64_t)1 << 26) / 256 && w.blocks == 8192,
              "1 GiB copy: %lld chunks over %d blocks", (long long)w.chunks, w.blocks);
}

/* gather along the last axis: the index varies along the row. */
static void test_elements(void) {
    sk_plan p;
    sk_cuda_walk w;
    sk_plan_init(&p, "gather", SK_DTYPE_FLOAT32);
    sk_plan_add_dim(&p, 64, 100, 200, 0, 100);
    sk_plan_add_dim(&p, 100, 1, 0, 0, 1);
    p.ncomp = 1;
    p.comp_size[0] = 200;
    p.comp_target_stride[0] = 1;
    p.mode = SK_INDEX_MODE_FILL;
    p.fill = ADDR(0x7000);
    sk_plan_normalize(&p);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.scheme == SK_CUDA_ELEMENTS && w.numel == 6400 && w.blocks == 25,
              "gather last axis: scheme %d numel %lld blocks %d", w.scheme, (long long)w.numel,
              w.blocks);
    SKT_CHECK(w.fill == ADDR(0x7000) && w.mode == SK_CUDA_FILL, "fill mode keeps the fill");
    p.mode = SK_INDEX_MODE_CLIP;
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.fill == NULL, "the fill is read in fill mode only");
    sk_plan_init(&p, "gather", SK_DTYPE_FLOAT32);
    sk_plan_add_dim(&p, (int64_t)1 << 40, 1, 0, 0, 1);
    p.ncomp = 1;
    sk_plan_normalize(&p);
    sk_cuda_plan_walk(&p, &w);
    SKT_CHECK(w.blocks == 8192, "2^40 positions: %d blocks, want the grid-stride cap 8192",
              w.blocks);
}

static void test_copy_plan(void) {
    float xs[4], os[12];
    const int64_t s14[2] = {1, 4}, s34[2] = {3, 4};
    sk_tensor src, out;
    sk_tensor_init(&src, xs, SK_DTYPE_FLOAT32, 2, s14, NULL);
    sk_tensor_init(&out, os, SK_DTYPE_FLOAT32, 2, s34, NULL);
    sk_plan p;
    sk_cuda_copy_plan(&src, &out, &p);
    SKT_CHECK(p.ndim == 2 && p.shape[0] == 3 && p.shape[1] == 4 && p.target_stride[0] == 0 &&
                  p.target_stride[1] == 1 && p.dense_stride[0] == 4 && p.ncomp == 0,
              "broadcast copy plan: ndim %d shape [%lld, %lld] target strides [%lld, %lld]",
              p.ndim, (long long)p.shape[0], (long long)p.shape[1],
              (long long)p.target_stride[0], (long long)p.target_stride[1]);
    sk_tensor_init(&src, xs, SK_DTYPE_FLOAT32, 1, s14 + 1, NULL);
    sk_cuda_copy_plan(&src, &out, &p);
    SKT_CHECK(p.ndim == 2 && p.target_stride[0] == 0, "a missing leading dimension broadcasts");
    sk_tensor_init(&src, os, SK_DTYPE_FLOAT32, 2, s34, NULL);
    sk_cuda_copy_plan(&src, &out, &p);
    SKT_CHECK(p.ndim == 1 && p.shape[0] == 12, "contiguous copy merges to one dimension");
}

static void test_check_plan(void) {
    int64_t data[24];
    const int64_t shape[3] = {2, 4, 3};
    sk_tensor index;
    sk_tensor_init(&index, data, SK_DTYPE_INT64, 3, shape, NULL);
    const int32_t axes[3] = {0, 2, 1};
    const int64_t sizes[3] = {5, 6, 7};
    sk_index_check c = {"gather_nd", &index, 2, axes, sizes, SK_INDEX_MODE_ERROR};
    sk_cuda_check k;
    sk_cuda_plan_check(&c, &k);
    SKT_CHECK(k.ndim == 3 && k.comp_dim == 2 && k.numel == 24 && k.is64,
              "check: ndim %d comp_dim %d numel %lld", k.ndim, k.comp_dim, (long long)k.numel);
    SKT_CHECK(k.sizes[0] == 5 && k.sizes[1] == 6 && k.sizes[2] == 7 && k.strides[0] == 12,
              "check: sizes per component and strides");
    char buf[64];
    int64_t coord[3];
    sk_cuda_check_coords(&k, 17, 3, coord);
    sk_cuda_format_coords(buf, sizeof buf, 3, coord);
    SKT_CHECK(strcmp(buf, "1, 1, 2") == 0, "position 17 of [2, 4, 3]: '%s'", buf);
    /* an expanded index [1000, 32] (stride 0 along 32) is scanned as [1000] */
    const int64_t es[2] = {1000, 32}, est[2] = {1, 0};
    sk_tensor expanded;
    sk_tensor_init(&expanded, data, SK_DTYPE_INT32, 2, es, est);
    sk_index_check e = {"gather", &expanded, -1, axes, sizes, SK_INDEX_MODE_ERROR};
    sk_cuda_plan_check(&e, &k);
    SKT_CHECK(k.ndim == 1 && k.numel == 1000 && k.dim_of[0] == 0 && k.comp_dim == -1 && !k.is64,
              "expanded index: scanned ndim %d numel %lld", k.ndim, (long long)k.numel);
    sk_cuda_check_coords(&k, 7, 2, coord);
    SKT_CHECK(coord[0] == 7 && coord[1] == 0, "expanded index: position 7 is [7, 0]");
    const int64_t s1[3] = {1, 5, 1}, st1[3] = {0, 2, 0};
    sk_tensor_init(&expanded, data, SK_DTYPE_INT64, 3, s1, st1);
    sk_cuda_plan_check(&e, &k);
    sk_cuda_check_coords(&k, 3, 3, coord);
    SKT_CHECK(k.ndim == 1 && coord[0] == 0 && coord[1] == 3 && coord[2] == 0,
              "size-1 dimensions are left out of the scan");
}

static void test_ts_plan(void) {
    float cache[2 * 5 * 3], update[2 * 7 * 3], out[2 * 5 * 3];
    int64_t wi[2];
    const int64_t sc[3] = {2, 5, 3}, su[3] = {2, 7, 3}, sw[1] = {2};
    sk_tensor tc, tu, to, tw;
    sk_tensor_init(&tc, cache, SK_DTYPE_FLOAT32, 3, sc, NULL);
    sk_tensor_init(&tu, update, SK_DTYPE_FLOAT32, 3, su, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 3, sc, NULL);
    sk_tensor_init(&tw, wi, SK_DTYPE_INT64, 1, sw, NULL);
    sk_tensor_scatter_desc d = {"tensor_scatter", false, &tc, &tu, &tw, &to, NULL, 1,
                                SK_TENSOR_SCATTER_CIRCULAR};
    sk_cuda_ts t;
    sk_cuda_plan_ts(&d, &t);
    SKT_CHECK(t.circular && t.n == 5 && t.skip == 2 && t.numel == 42 && t.batch == 2,
              "circular update of 7 into 5: skip %lld numel %lld", (long long)t.skip,
              (long long)t.numel);
    SKT_CHECK(t.out_stride[1] == 3 && t.update_stride[0] == 21 && t.wi_is64 && t.wi_stride == 1,
              "tensor_scatter strides");
    d.mode = SK_TENSOR_SCATTER_LINEAR;
    sk_cuda_plan_ts(&d, &t);
    SKT_CHECK(!t.circular && t.skip == 0, "linear mode skips nothing");
}

static void test_mask_plan(void) {
    sk_mask_desc *d = calloc(1, sizeof *d);
    if (!d) return;
    sk_plan_init(&d->p, "masked_select", SK_DTYPE_FLOAT64);
    sk_plan_add_dim(&d->p, 5000, 0, 1, 0, 1);
    sk_plan_normalize(&d->p);
    d->kind = SK_MASK_SELECT;
    d->out_stride = 2;
    sk_cuda_mask_walk m;
    sk_cuda_plan_mask(d, &m);
    SKT_CHECK(m.select && m.numel == 5000 &&
                  m.tiles == (5000 + SK_CUDA_MASK_TILE - 1) / SK_CUDA_MASK_TILE &&
                  m.elem_size == 8 && m.out_stride1 == 2,
              "mask plan: numel %lld tiles %lld", (long long)m.numel, (long long)m.tiles);
    free(d);
}

int main(void) {
    test_rows();
    test_long_row();
    test_elements();
    test_copy_plan();
    test_check_plan();
    test_ts_plan();
    test_mask_plan();
    printf("cuda_plan: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}
