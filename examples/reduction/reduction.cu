// reduction: sum a large array with a multi-pass shared-memory tree reduction.
//
// Build: nvcc -O2 -o reduction reduction.cu

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include "reduction.cuh"

#define checkCuda(expr)                                                       \
    do {                                                                      \
        cudaError_t status = (expr);                                          \
        if (status != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                    cudaGetErrorString(status));                              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static const unsigned int kThreads = 256;

static unsigned int numBlocksFor(unsigned int n)
{
    return (n + kThreads * 2 - 1) / (kThreads * 2);
}

int main()
{
    const unsigned int n = 1u << 24;
    const size_t bytes = n * sizeof(float);

    float *h_in = (float *)malloc(bytes);
    double expected = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        h_in[i] = (float)(i % 17) * 0.25f;
        expected += h_in[i];
    }

    unsigned int blocks = numBlocksFor(n);
    float *d_in, *d_partial;
    checkCuda(cudaMalloc(&d_in, bytes));
    checkCuda(cudaMalloc(&d_partial, blocks * sizeof(float)));
    checkCuda(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    // Keep reducing the partial sums until a single value is left.
    const size_t shmem = kThreads * sizeof(float);
    unsigned int remaining = n;
    const float *src = d_in;
    float *dst = d_partial;
    int passes = 0;
    while (remaining > 1) {
        blocks = numBlocksFor(remaining);
        reduceSum<<<blocks, kThreads, shmem>>>(src, dst, remaining);
        checkCuda(cudaGetLastError());
        remaining = blocks;
        src = dst;
        dst = (dst == d_partial) ? d_in : d_partial;  // ping-pong buffers
        ++passes;
    }
    checkCuda(cudaDeviceSynchronize());

    float result = 0.0f;
    checkCuda(cudaMemcpy(&result, src, sizeof(float), cudaMemcpyDeviceToHost));

    double relErr = fabs(result - expected) / expected;
    printf("reduction: n=%u passes=%d gpu=%.1f cpu=%.1f rel.err=%.2e\n",
           n, passes, result, expected, relErr);

    checkCuda(cudaFree(d_in));
    checkCuda(cudaFree(d_partial));
    free(h_in);

    if (relErr > 1e-5) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
