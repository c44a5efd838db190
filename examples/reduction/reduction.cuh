// reduction.cuh: block-level sum reduction kernel.
#ifndef REDUCTION_CUH
#define REDUCTION_CUH

#include <cuda_runtime.h>

// Each block reduces 2 * blockDim.x input elements into one partial sum.
// blockDim.x must be a power of two; the launch passes
// blockDim.x * sizeof(float) bytes of dynamic shared memory.
__global__ void reduceSum(const float *__restrict__ in, float *__restrict__ out,
                          unsigned int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float sum = 0.0f;
    if (i < n) sum += in[i];
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}

#endif // REDUCTION_CUH
