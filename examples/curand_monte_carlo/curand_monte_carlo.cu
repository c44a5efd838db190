// curand_monte_carlo: estimate pi twice, once with cuRAND's device API
// (per-thread generator state) and once with its host API (bulk generation
// into device memory, consumed by a kernel).
//
// Build: nvcc -O2 -o curand_monte_carlo curand_monte_carlo.cu -lcurand

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#define CUDA_CALL(x)                                                          \
    do {                                                                      \
        cudaError_t e_ = (x);                                                 \
        if (e_ != cudaSuccess) {                                              \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_),        \
                   __FILE__, __LINE__);                                       \
            return EXIT_FAILURE;                                              \
        }                                                                     \
    } while (0)

#define CURAND_CALL(x)                                                        \
    do {                                                                      \
        curandStatus_t s_ = (x);                                              \
        if (s_ != CURAND_STATUS_SUCCESS) {                                    \
            printf("cuRAND error %d at %s:%d\n", (int)s_, __FILE__, __LINE__);\
            return EXIT_FAILURE;                                              \
        }                                                                     \
    } while (0)

__global__ void setupStates(curandState *states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    // Same seed, different subsequence per thread.
    curand_init(seed, id, 0, &states[id]);
}

__global__ void samplePi(curandState *states, int samplesPerThread,
                         unsigned long long *hits)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned int count = 0;
    for (int i = 0; i < samplesPerThread; ++i) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        if (x * x + y * y <= 1.0f) ++count;
    }
    states[id] = local;  // so a later launch continues the stream
    atomicAdd(hits, (unsigned long long)count);
}

// Consumes (x, y) pairs produced by the host-API generator.
__global__ void countInside(const float *xy, int pairs, unsigned long long *hits)
{
    unsigned int count = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs;
         i += blockDim.x * gridDim.x) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        if (x * x + y * y <= 1.0f) ++count;
    }
    atomicAdd(hits, (unsigned long long)count);
}

int main()
{
    const int blocks = 64, threads = 256;
    const int totalThreads = blocks * threads;
    const int samplesPerThread = 1000;
    const unsigned long long seed = 1234ULL;

    curandState *d_states;
    unsigned long long *d_hits, h_hits = 0;
    CUDA_CALL(cudaMalloc((void **)&d_states, totalThreads * sizeof(curandState)));
    CUDA_CALL(cudaMalloc((void **)&d_hits, sizeof(unsigned long long)));

    // --- device API ---
    CUDA_CALL(cudaMemset(d_hits, 0, sizeof(unsigned long long)));
    setupStates<<<blocks, threads>>>(d_states, seed);
    samplePi<<<blocks, threads>>>(d_states, samplesPerThread, d_hits);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(&h_hits, d_hits, sizeof(h_hits), cudaMemcpyDeviceToHost));
    double samples = (double)totalThreads * samplesPerThread;
    double piDevice = 4.0 * (double)h_hits / samples;
    printf("device API: %.0f samples, pi ~= %.6f\n", samples, piDevice);

    // --- host API ---
    const int pairs = 1 << 22;
    float *d_xy;
    CUDA_CALL(cudaMalloc((void **)&d_xy, 2 * pairs * sizeof(float)));

    curandGenerator_t gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, seed));
    CURAND_CALL(curandGenerateUniform(gen, d_xy, 2 * pairs));

    CUDA_CALL(cudaMemset(d_hits, 0, sizeof(unsigned long long)));
    countInside<<<128, 256>>>(d_xy, pairs, d_hits);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(&h_hits, d_hits, sizeof(h_hits), cudaMemcpyDeviceToHost));
    double piHost = 4.0 * (double)h_hits / pairs;
    printf("host API:   %d samples, pi ~= %.6f\n", pairs, piHost);

    CURAND_CALL(curandDestroyGenerator(gen));
    CUDA_CALL(cudaFree(d_xy));
    CUDA_CALL(cudaFree(d_states));
    CUDA_CALL(cudaFree(d_hits));

    const double pi = 3.14159265358979;
    bool ok = fabs(piDevice - pi) < 0.01 && fabs(piHost - pi) < 0.01;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
