// constant_memory: 1-D convolution with the filter taps in __constant__ memory.
//
// Build: nvcc -O2 -o constant_memory constant_memory.cu

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,  \
                    cudaGetErrorString(err));                                 \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

#define MAX_RADIUS 8
#define MAX_TAPS (2 * MAX_RADIUS + 1)

__constant__ float c_taps[MAX_TAPS];
__constant__ int c_radius;

// out[i] = sum_k taps[k] * in[i + k - radius], zero padding at the edges.
__global__ void convolve1D(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float acc = 0.0f;
    for (int k = -c_radius; k <= c_radius; ++k) {
        int j = i + k;
        if (j >= 0 && j < n) {
            acc += c_taps[k + c_radius] * in[j];
        }
    }
    out[i] = acc;
}

int main()
{
    const int n = 1 << 16;
    const int radius = 4;
    const int taps = 2 * radius + 1;

    // Normalised Gaussian taps.
    float h_taps[MAX_TAPS] = {0};
    float norm = 0.0f;
    for (int k = 0; k < taps; ++k) {
        float x = (float)(k - radius);
        h_taps[k] = expf(-x * x / 8.0f);
        norm += h_taps[k];
    }
    for (int k = 0; k < taps; ++k) h_taps[k] /= norm;

    CUDA_CHECK(cudaMemcpyToSymbol(c_taps, h_taps, taps * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_radius, &radius, sizeof(int), 0, cudaMemcpyHostToDevice));

    // Read the taps back to make sure the upload landed.
    float check[MAX_TAPS];
    CUDA_CHECK(cudaMemcpyFromSymbol(check, c_taps, sizeof(check)));
    for (int k = 0; k < taps; ++k) {
        if (check[k] != h_taps[k]) {
            fprintf(stderr, "tap %d read back as %f, expected %f\n", k, check[k], h_taps[k]);
            return EXIT_FAILURE;
        }
    }

    void *d_tapsAddr = NULL;
    size_t tapsSize = 0;
    CUDA_CHECK(cudaGetSymbolAddress(&d_tapsAddr, c_taps));
    CUDA_CHECK(cudaGetSymbolSize(&tapsSize, c_taps));
    printf("c_taps lives at %p (%zu bytes)\n", d_tapsAddr, tapsSize);

    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h_in[i] = sinf(i * 0.01f) + ((i % 7) == 0 ? 0.5f : 0.0f);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(128);
    dim3 grid((n + block.x - 1) / block.x);
    convolve1D<<<grid, block>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double maxErr = 0.0;
    for (int i = 0; i < n; ++i) {
        float ref = 0.0f;
        for (int k = -radius; k <= radius; ++k) {
            int j = i + k;
            if (j >= 0 && j < n) ref += h_taps[k + radius] * h_in[j];
        }
        maxErr = fmax(maxErr, fabs(ref - h_out[i]));
    }
    printf("constant_memory: %d taps, max abs error %.3e\n", taps, maxErr);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);

    if (maxErr > 1e-5) {
        printf("FAILED\n");
        return EXIT_FAILURE;
    }
    printf("PASSED\n");
    return EXIT_SUCCESS;
}
