// src/cuda/segments.cu on the CPU (cuda_emulate.h).
#include "cuda_emulate.h"

#include "cuda/segments.cu"
