// src/cuda/segments_grad.cu on the CPU (cuda_emulate.h).
#include "cuda_emulate.h"

#include "cuda/segments_grad.cu"
