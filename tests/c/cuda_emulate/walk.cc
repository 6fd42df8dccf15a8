// src/cuda/walk.cu on the CPU (cuda_emulate.h).
#include "cuda_emulate.h"

#include "cuda/walk.cu"
