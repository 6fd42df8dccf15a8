// src/cuda/check.cu on the CPU (cuda_emulate.h).
#include "cuda_emulate.h"

#include "cuda/check.cu"
