// src/cuda/segments_sort.cu on the CPU (cuda_emulate.h).
#include "cuda_emulate.h"

#include "cuda/segments_sort.cu"
