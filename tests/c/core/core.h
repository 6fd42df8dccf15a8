/* core.h - the parts of test_core, one function each (tests/c/core/). */
#ifndef SKT_CORE_H
#define SKT_CORE_H

void test_half(void);
void test_bfloat16(void);
void test_status(void);
void test_dtype(void);
void test_last_error(void);
void test_tensor(void);
void test_dlpack(void);
void test_threads(void);
void test_env_threads(void);
void test_omp_threads(void);
void test_threads_default(void);
void test_pool_wakes(void);
void test_scratch_cache(void);

#endif /* SKT_CORE_H */
