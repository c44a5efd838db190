// cooperative_groups: dot product written with cooperative groups instead of
// raw threadIdx/blockIdx arithmetic and __syncthreads().
//
// Build: nvcc -O2 -o cooperative_groups cooperative_groups.cu

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__,      \
                    __LINE__, cudaGetErrorString(err));                       \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

// Tree reduction over any group whose size is a power of two; `temp` must
// hold g.size() floats. Returns the total in thread rank 0.
__device__ float reduce_sum(cg::thread_group g, float *temp, float val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i) val += temp[lane + i];
        g.sync();
    }
    return val;
}

__global__ void dotProduct(const float *x, const float *y, float *partial, int n)
{
    extern __shared__ float temp[];

    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();

    // Grid-stride loop over the input.
    float sum = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
        sum += x[i] * y[i];
    }

    float blockSum = reduce_sum(block, temp, sum);
    if (block.thread_rank() == 0) {
        partial[block.group_index().x] = blockSum;
    }
}

int main()
{
    const int n = 1 << 20;
    const int threads = 256;
    const int blocks = 120;

    float *h_x = (float *)malloc(n * sizeof(float));
    float *h_y = (float *)malloc(n * sizeof(float));
    float *h_partial = (float *)malloc(blocks * sizeof(float));
    double expected = 0.0;
    for (int i = 0; i < n; ++i) {
        h_x[i] = (float)((i % 13) - 6) * 0.5f;
        h_y[i] = (float)((i % 5) + 1);
        expected += (double)h_x[i] * h_y[i];
    }

    float *d_x, *d_y, *d_partial;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, n * sizeof(float), cudaMemcpyHostToDevice));

    dotProduct<<<blocks, threads, threads * sizeof(float)>>>(d_x, d_y, d_partial, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));

    double result = 0.0;
    for (int b = 0; b < blocks; ++b) result += h_partial[b];

    printf("cooperative_groups: dot = %.1f (expected %.1f)\n", result, expected);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_partial));
    free(h_x);
    free(h_y);
    free(h_partial);

    bool ok = fabs(result - expected) <= 1e-3 * fmax(1.0, fabs(expected));
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
