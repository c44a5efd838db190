// templates: templated kernels, functor arguments and namespaced kernels.
//
// Build: nvcc -O2 -std=c++17 -o templates templates.cu

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>
#include "templates.cuh"

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err = call;                                               \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                    cudaGetErrorString(err));                                 \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)

template <typename T>
static int countMismatches(const std::vector<T> &got, const std::vector<T> &want)
{
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::fabs(got[i] - want[i]) > 1e-4 * std::fmax(1.0, std::fabs(want[i]))) ++bad;
    }
    return bad;
}

int main()
{
    const int n = 100000;
    float *d_a = nullptr, *d_b = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));

    // a[i] = 1 + 0.001 * i
    ns::kernel<<<(n + 255) / 256, 256>>>(d_a, 1.0f, 0.001f, n);
    CUDA_CHECK(cudaGetLastError());

    // b = 2 * a
    scale<float, 256><<<(n + 255) / 256, 256>>>(d_a, d_b, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    // b = b^2, with a fixed-size grid and a grid-stride loop
    apply<Square<float>, 128><<<64, 128>>>(Square<float>(), d_b, n);
    CUDA_CHECK(cudaGetLastError());

    // b = 0.5 * b - 1
    Affine<float> affine = {0.5f, -1.0f};
    apply<Affine<float>, 128>
        <<<(n + 127) / 128,   // one thread per element
           128,               // must match the BLOCK template argument
           0>>>(affine, d_b, n);
    CUDA_CHECK(cudaGetLastError());

    // Same kernels instantiated for double.
    double *d_c = nullptr;
    CUDA_CHECK(cudaMalloc(&d_c, n * sizeof(double)));
    ns::kernel<double><<<(n + 511) / 512, 512>>>(d_c, 0.0, 0.5, n);
    scale<double, 512><<<(n + 511) / 512, 512>>>(d_c, d_c, 4.0, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> h_b(n), ref_b(n);
    std::vector<double> h_c(n), ref_c(n);
    CUDA_CHECK(cudaMemcpy(h_b.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_c.data(), d_c, n * sizeof(double), cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; ++i) {
        float a = 1.0f + static_cast<float>(i) * 0.001f;
        float b = 2.0f * a;
        ref_b[i] = 0.5f * (b * b) - 1.0f;
        ref_c[i] = 4.0 * (static_cast<double>(i) * 0.5);
    }

    int bad = countMismatches(h_b, ref_b) + countMismatches(h_c, ref_c);
    printf("templates: b[10]=%f c[10]=%f, %d mismatches\n", h_b[10], h_c[10], bad);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));

    printf(bad ? "FAILED\n" : "PASSED\n");
    return bad ? 1 : 0;
}
